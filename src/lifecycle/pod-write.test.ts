import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SERVICE_READY_GATE } from '../api/protocol.ts';
import { pod } from '../../test/support/pods.ts';
import { podWrite } from './pod-write.ts';

const stored = (options: Parameters<typeof pod>[0] = {}) => {
  const p = pod(options);
  p.metadata.resourceVersion = '42';
  return p;
};

test('labels and annotations: a merge patch of what changed (null removes), guarded by the resourceVersion', () => {
  const before = stored({ labels: { keep: '1', drop: '1', change: 'a' }, annotations: { a: '1' } });
  const after = stored({ labels: { keep: '1', change: 'b', add: '1' }, annotations: { a: '1', b: '2' } });
  assert.deepEqual(podWrite(before, after), {
    patchType: 'merge',
    body: { metadata: { resourceVersion: '42', labels: { add: '1', change: 'b', drop: null }, annotations: { b: '2' } } },
  });
});

test('finalizers: the whole list, which the resourceVersion guard makes safe', () => {
  assert.deepEqual(podWrite(stored({ finalizers: ['a', 'b'] }), stored({ finalizers: ['b'] }))?.body.metadata, { resourceVersion: '42', finalizers: ['b'] });
});

test('a change of the service-ready condition goes through pods/status with only that condition, the labels in the same request', () => {
  const before = stored({ serviceReady: 'True', ready: true });
  const after = stored({ serviceReady: 'False', ready: true, labels: { x: '1' } });
  assert.deepEqual(podWrite(before, after), {
    subresource: 'status',
    patchType: 'strategic',
    body: { metadata: { resourceVersion: '42', labels: { x: '1' } }, status: { conditions: [{ type: SERVICE_READY_GATE, status: 'False' }] } },
  });
});

test('nothing to write: undefined; finalizers and the condition at once cannot be one strategic patch', () => {
  assert.equal(podWrite(stored({ labels: { a: '1' } }), stored({ labels: { a: '1' } })), undefined);
  assert.throws(() => podWrite(stored({ finalizers: ['a'], serviceReady: 'True' }), stored({ serviceReady: 'False' })), /cannot be one request/);
});
