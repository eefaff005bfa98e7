// Upstream utils_test (IDToLabelsMap) and TestReadyToUpgrade.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { L, pod } from '../../test/support/pods.ts';
import { InvalidLabelError, parseIdLabelKey } from '../api/protocol.ts';
import { parseLifecycles } from './parse.ts';
import { readyToOperate } from './pod.ts';

describe('parseLifecycles', () => {
  test('a bare key of an ID-defining family is an error', () => {
    assert.throws(() => parseLifecycles({ 'operate.podopslifecycle.kusionstack.io': '1' }), InvalidLabelError);
  });

  test("other malformed keys are the validation's to deny: the parse skips them (upstream's mutation does not fail on them)", () => {
    const parsed = parseLifecycles({
      'operating.podopslifecycle.kusionstack.io/a': '1',
      'post-check.podopslifecycle.kusionstack.io': '1',
      'pre-check.podopslifecycle.kusionstack.io/a/b': '1',
      'operated.podopslifecycle.kusionstack.io/x/y': '1',
    });
    assert.deepEqual([...parsed.byId.keys()], ['a']);
    assert.deepEqual(parsed.byId.get('a')?.labels, { operating: '1' });
    assert.throws(() => parseLifecycles({ 'operated.podopslifecycle.kusionstack.io/': '1' }), InvalidLabelError);
  });

  test('no labels: no lifecycles', () => {
    const parsed = parseLifecycles(undefined);
    assert.equal(parsed.byId.size, 0);
    assert.equal(parsed.typeCount.size, 0);
  });

  test('operating defines an ID and gathers its families', () => {
    const parsed = parseLifecycles({ [L('operating', 'a')]: '1', [L('operation-type', 'a')]: 'upgrade', [L('pre-check', 'a')]: '2' });
    assert.deepEqual(parsed.byId.get('a'), {
      id: 'a',
      type: 'upgrade',
      labels: { operating: '1', 'operation-type': 'upgrade', 'pre-check': '2' },
    });
  });

  test('operated + done-operation-type: the done type counts', () => {
    const parsed = parseLifecycles({ [L('operated', 'a')]: '1', [L('done-operation-type', 'a')]: 'upgrade' });
    assert.equal(parsed.byId.get('a')?.type, 'upgrade');
    assert.deepEqual([...parsed.typeCount], [['upgrade', 1]]);
  });

  test('two types, and the same type twice', () => {
    const two = parseLifecycles({
      [L('operating', 'a')]: '1',
      [L('operation-type', 'a')]: 'upgrade',
      [L('operating', 'b')]: '1',
      [L('operation-type', 'b')]: 'restart',
    });
    assert.deepEqual(Object.fromEntries(two.typeCount), { upgrade: 1, restart: 1 });
    const same = parseLifecycles({
      [L('operating', 'a')]: '1',
      [L('operation-type', 'a')]: 'upgrade',
      [L('operate', 'b')]: '1',
      [L('operation-type', 'b')]: 'upgrade',
    });
    assert.deepEqual(Object.fromEntries(same.typeCount), { upgrade: 2 });
  });

  test('families other than operating/operate/operated do not define an ID', () => {
    const parsed = parseLifecycles({ [L('pre-check', 'x')]: '1', [L('operation-type', 'x')]: 'upgrade' });
    assert.equal(parsed.byId.size, 0);
  });

  test('keys must match the family prefix exactly; pre-check and pre-checked are distinct', () => {
    assert.equal(parseIdLabelKey('operating.podopslifecycle.kusionstack.io.other/a'), undefined);
    assert.deepEqual(parseIdLabelKey(L('pre-checked', 'a')), { word: 'pre-checked', id: 'a' });
    assert.deepEqual(parseIdLabelKey(L('pre-check', 'a')), { word: 'pre-check', id: 'a' });
    assert.throws(() => parseIdLabelKey('operated.podopslifecycle.kusionstack.io/'), InvalidLabelError);
  });
});

describe('readyToOperate (upstream TestReadyToUpgrade)', () => {
  const prot = ['prot.podopslifecycle.kusionstack.io/lb'];
  test('no service-ready condition: ready', () => assert.equal(readyToOperate(pod()), true));
  test('condition True: not ready', () => assert.equal(readyToOperate(pod({ serviceReady: 'True' })), false));
  test('condition False: ready', () => assert.equal(readyToOperate(pod({ serviceReady: 'False' })), true));
  test('condition False + protection finalizer: not ready', () =>
    assert.equal(readyToOperate(pod({ serviceReady: 'False', finalizers: prot })), false));
  test('condition True + protection finalizer: not ready', () =>
    assert.equal(readyToOperate(pod({ serviceReady: 'True', finalizers: prot })), false));
  test('a finalizer without the prot. prefix does not block', () =>
    assert.equal(readyToOperate(pod({ serviceReady: 'False', finalizers: ['example.com/other'] })), true));
});
