// Webhook parameters from literal values and fieldRef paths (Kuperator's behaviour, docs/podtransitionrule.md).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WebhookParameter } from '../api/podtransitionrule.ts';
import { stagePod } from './fixtures.test-support.ts';
import { fieldPathProblem, ParameterError, parameterValue } from './parameters.ts';

const pod = stagePod('web-1', { stage: 'none', available: false, labels: { zone: 'a' }, annotations: { 'test.io/context': 'test-context', note: 'say "hi"\n' }, podIP: '10.0.0.7' });
pod.metadata.uid = 'uid-1';
if (pod.spec) pod.spec.nodeName = 'node-3';
const byPath = (fieldPath: string): WebhookParameter => ({ key: 'k', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath } } });
const value = (fieldPath: string) => parameterValue(byPath(fieldPath), pod);
const refuses = (parameter: WebhookParameter, message: string) =>
  assert.throws(() => parameterValue(parameter, pod), (err: unknown) => err instanceof ParameterError && err.message === message);

describe('parameterValue', () => {
  test('a non-empty literal wins over valueFrom', () => {
    assert.equal(parameterValue({ key: 'k', value: 'literal', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, pod), 'literal');
  });

  test('metadata fields', () => {
    assert.equal(value('metadata.name'), 'web-1');
    assert.equal(value('metadata.namespace'), 'default');
    assert.equal(value('metadata.uid'), 'uid-1');
  });

  test('whole label and annotation maps: sorted key="value" lines, Go quoting', () => {
    assert.equal(value('metadata.labels'), 'app="web"\nkusionstack.io/control="true"\nzone="a"');
    assert.equal(value('metadata.annotations'), 'note="say \\"hi\\"\\n"\ntest.io/context="test-context"');
  });

  test('one label or annotation by subscript; a missing key is ""', () => {
    assert.equal(value("metadata.annotations['test.io/context']"), 'test-context');
    assert.equal(value("metadata.labels['zone']"), 'a');
    assert.equal(value("metadata.labels['absent']"), '');
    // Names of Object.prototype's members are labels like any other: absent here.
    assert.equal(value("metadata.labels['constructor']"), '');
    assert.equal(value("metadata.annotations['toString']"), '');
  });

  test('any dotted path of the pod: strings as is, other values as JSON, missing or null as ""', () => {
    assert.equal(value('status.podIP'), '10.0.0.7');
    assert.equal(value('spec.nodeName'), 'node-3');
    assert.equal(value('status.phase'), 'Running');
    assert.equal(value('spec.readinessGates'), '[{"conditionType":"pod.kusionstack.io/service-ready"}]');
    assert.equal(value('status.hostIP'), '');
    const withNull = structuredClone(pod);
    if (withNull.status) withNull.status.hostIP = null;
    assert.equal(parameterValue(byPath('status.hostIP'), withNull), '');
  });

  test('invalid paths are errors naming the parameter, never a crash', () => {
    refuses({ key: 'ip' }, 'unexpected empty parameter ip');
    refuses({ key: 'ip', value: '' }, 'unexpected empty parameter ip');
    refuses(byPath('status.podIP.octets'), 'fail to parse parameter k by field ref: status.podIP is not an object in the pod');
    refuses(byPath('status.nothing.here'), 'fail to parse parameter k by field ref: status.nothing is missing in the pod');
    refuses(byPath('metadata.constructor.name'), 'fail to parse parameter k by field ref: metadata.constructor is missing in the pod');
    assert.equal(value('spec.__proto__'), '');
    assert.equal(value('metadata.toString'), '');
    refuses(byPath("spec.containers['app']"), `fail to parse parameter k by field ref: fieldPath "spec.containers['app']" does not support subscript`);
    refuses(
      byPath("metadata.labels['Bad Key']"),
      `fail to parse parameter k by field ref: invalid key subscript in metadata.labels['Bad Key']: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
    refuses(byPath(''), 'fail to parse parameter k by field ref: fieldPath is empty');
    refuses(byPath('status..podIP'), 'fail to parse parameter k by field ref: fieldPath "status..podIP" has an empty segment');
  });

  test('annotation subscripts are checked lowercased, as upstream does', () => {
    assert.equal(fieldPathProblem("metadata.annotations['Test.IO/Context']"), undefined);
    assert.notEqual(fieldPathProblem("metadata.labels['Test.IO/Context']"), undefined);
  });
});
