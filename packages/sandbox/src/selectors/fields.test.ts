import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors.ts';
import { compileFieldSelector, convertFieldSelector, parseFieldSelector, selectableFields } from './fields.ts';

const POD = { group: '', kind: 'Pod' };
const CONFIGMAP = { group: '', kind: 'ConfigMap' };

function badRequest(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError);
    assert.equal(e.status.code, 400);
    assert.equal(e.status.reason, 'BadRequest');
    return e.status.message ?? '';
  }
  assert.fail('accepted');
}

describe('field selectors', () => {
  test('parsing: operators, sorting, escapes', () => {
    assert.deepEqual(parseFieldSelector('status.phase!=Running,metadata.name==a,spec.nodeName=n1'), [
      { field: 'metadata.name', operator: '==', value: 'a' },
      { field: 'spec.nodeName', operator: '=', value: 'n1' },
      { field: 'status.phase', operator: '!=', value: 'Running' },
    ]);
    assert.deepEqual(parseFieldSelector('metadata.name=a\\,b\\=c\\\\d'), [{ field: 'metadata.name', operator: '=', value: 'a,b=c\\d' }]);
    assert.deepEqual(parseFieldSelector(''), []);
    assert.deepEqual(parseFieldSelector('a=,'), [{ field: 'a', operator: '=', value: '' }]);
  });

  test('parse errors', () => {
    assert.equal(badRequest(() => parseFieldSelector('metadata.name')), "invalid selector: 'metadata.name'; can't understand 'metadata.name'");
    assert.equal(badRequest(() => parseFieldSelector('a=b=c')), 'invalid field selector: unescaped character in value: 61');
    assert.equal(badRequest(() => parseFieldSelector('a=b\\x')), 'invalid field selector: invalid escape sequence: \\x');
    assert.equal(badRequest(() => parseFieldSelector('a=b\\')), 'invalid field selector: invalid escape sequence: \\');
  });

  test('unsupported fields, per kind, with the real messages', () => {
    assert.equal(
      badRequest(() => convertFieldSelector(CONFIGMAP, parseFieldSelector('spec.bogus=x'))),
      '"spec.bogus" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    assert.equal(badRequest(() => convertFieldSelector(POD, parseFieldSelector('metadata.labels.app=x'))), 'field label not supported: metadata.labels.app');
    assert.equal(
      badRequest(() => convertFieldSelector({ group: 'batch', kind: 'Job' }, parseFieldSelector('status.succeeded=1'))),
      'field label "status.succeeded" not supported for batchv1.Job',
    );
    assert.deepEqual(convertFieldSelector(POD, parseFieldSelector('spec.host=n1')), [{ field: 'spec.nodeName', operator: '=', value: 'n1' }]);
  });

  test('pods: node, phase, IP, service account, host network', () => {
    const pod = {
      metadata: { name: 'p', namespace: 'probe' },
      spec: { nodeName: 'n1', restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccountName: 'default' },
      status: { phase: 'Running', podIPs: [{ ip: '10.0.0.5' }] },
    };
    const matches = (s: string): boolean => compileFieldSelector(POD, s)(pod);
    assert.equal(matches('spec.nodeName=n1,status.phase=Running'), true);
    assert.equal(matches('status.podIP=10.0.0.5'), true);
    assert.equal(matches('spec.serviceAccountName=default,spec.hostNetwork=false'), true);
    assert.equal(matches('metadata.namespace=probe,metadata.name!=p'), false);
    assert.equal(matches('spec.nodeName='), false);
  });

  test('events, secrets, nodes, jobs', () => {
    const event = {
      metadata: { name: 'e', namespace: 'probe' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'probe', uid: 'u1', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec' },
      reason: 'Started',
      type: 'Normal',
      source: {},
      reportingComponent: 'kubelet',
    };
    assert.deepEqual(selectableFields({ group: '', kind: 'Event' }, event), {
      'metadata.name': 'e',
      'metadata.namespace': 'probe',
      'involvedObject.kind': 'Pod',
      'involvedObject.namespace': 'probe',
      'involvedObject.name': 'p',
      'involvedObject.uid': 'u1',
      'involvedObject.apiVersion': 'v1',
      'involvedObject.resourceVersion': '7',
      'involvedObject.fieldPath': 'spec',
      reason: 'Started',
      reportingComponent: 'kubelet',
      source: 'kubelet',
      type: 'Normal',
    });
    assert.equal(compileFieldSelector({ group: '', kind: 'Secret' }, 'type=Opaque')({ metadata: { name: 's' }, type: 'Opaque' }), true);
    assert.equal(compileFieldSelector({ group: '', kind: 'Node' }, 'spec.unschedulable=true')({ metadata: { name: 'n' }, spec: { unschedulable: true } }), true);
    assert.equal(compileFieldSelector({ group: 'batch', kind: 'Job' }, 'status.successful=0')({ metadata: { name: 'j', namespace: 'x' } }), true);
  });
});
