import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { AVAILABLE_CONDITIONS_ANNOTATION, SERVICE_READY_GATE } from '../api/protocol.ts';
import { pod } from '../../test/support/pods.ts';
import {
  addFinalizer,
  expectedFinalizerKey,
  lifecycleReady,
  protectionFinalizer,
  readExpectedFinalizers,
  removeExpectedFinalizers,
  removeFinalizer,
  setExpectedFinalizers,
} from './cooperation.ts';

describe('cooperation helpers', () => {
  test('the protection finalizer is ResourceConsist\'s: md5 hex characters 8..24 of the employer name', () => {
    const md5 = createHash('md5').update('web').digest('hex');
    assert.equal(protectionFinalizer('web'), `prot.podopslifecycle.kusionstack.io/${md5.substring(8, 24)}`);
    assert.equal(protectionFinalizer('web').length, 'prot.podopslifecycle.kusionstack.io/'.length + 16);
  });

  test('add and remove a finalizer: idempotent, never modifying the input', () => {
    const input = pod();
    const added = addFinalizer(input, 'prot.podopslifecycle.kusionstack.io/x');
    assert.equal(added.changed, true);
    assert.deepEqual(added.pod.metadata.finalizers, ['prot.podopslifecycle.kusionstack.io/x']);
    assert.equal(input.metadata.finalizers, undefined);
    assert.equal(addFinalizer(added.pod, 'prot.podopslifecycle.kusionstack.io/x').changed, false);
    const removed = removeFinalizer(added.pod, 'prot.podopslifecycle.kusionstack.io/x');
    assert.deepEqual([removed.changed, removed.pod.metadata.finalizers], [true, []]);
    assert.equal(removeFinalizer(removed.pod, 'prot.podopslifecycle.kusionstack.io/x').changed, false);
  });

  test('expected finalizers: merge keeps other entries, remove drops only the named keys', () => {
    const other = { [AVAILABLE_CONDITIONS_ANNOTATION]: JSON.stringify({ expectedFinalizers: { 'Service/default/a': 'prot.a' } }) };
    const merged = setExpectedFinalizers(pod({ annotations: other }), { [expectedFinalizerKey('Service', 'default', 'b')]: 'prot.b' });
    assert.deepEqual(readExpectedFinalizers(merged.pod), { 'Service/default/a': 'prot.a', 'Service/default/b': 'prot.b' });
    assert.equal(setExpectedFinalizers(merged.pod, { 'Service/default/b': 'prot.b' }).changed, false);
    const removed = removeExpectedFinalizers(merged.pod, ['Service/default/a', 'Service/default/missing']);
    assert.deepEqual(readExpectedFinalizers(removed.pod), { 'Service/default/b': 'prot.b' });
  });

  test('an empty Kind is refused rather than producing a key nothing can judge', () => {
    assert.throws(() => expectedFinalizerKey('', 'default', 'web'), /kind must not be empty/);
  });

  test('lifecycleReady: Ready and service-ready not non-True; a missing condition counts as ready', () => {
    assert.equal(lifecycleReady(pod({ ready: true })), true);
    assert.equal(lifecycleReady(pod({ ready: true, serviceReady: 'True' })), true);
    assert.equal(lifecycleReady(pod({ ready: true, serviceReady: 'False' })), false);
    // ResourceConsist treats any status but True as not ready (frame/controller/utils.go).
    const unknown = pod({ ready: true });
    unknown.status?.conditions?.push({ type: SERVICE_READY_GATE, status: 'Unknown' });
    assert.equal(lifecycleReady(unknown), false);
    assert.equal(lifecycleReady(pod({ ready: false, serviceReady: 'True' })), false);
    const deleting = pod({ ready: true });
    deleting.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
    assert.equal(lifecycleReady(deleting), false);
  });
});
