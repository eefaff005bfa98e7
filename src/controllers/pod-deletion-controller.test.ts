// The pod-deletion reconciler over the shared caches, its requests answered as the API server answers them: a
// marked pod begins its pod-delete lifecycle in one guarded write (or waits for its budgets' room), is deleted
// under its uid once the lifecycle allows it, and a pod gone meanwhile ends the reconcile quietly.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod } from '../api/kube.ts';
import { OPERATION_TYPE_DELETE, POD_DELETE_LIFECYCLE_ID, TO_DELETE_LABEL } from '../api/protocol.ts';
import { LeavingDecisions } from '../cache/leaving.ts';
import { WorkloadReads } from '../cache/workloads.ts';
import { isConflict } from '../kube/client.ts';
import { isDuringOps, podDeleteAdapter } from '../sdk/operation.ts';
import { budgetWithoutRoom, fakeCaches } from '../../test/support/fake-caches.ts';
import { FakePodClient, recordedReasons } from '../../test/support/fake-pod-client.ts';
import { L, NOW, pod, STAMP } from '../../test/support/pods.ts';
import { PodDeletionReconciler } from './pod-deletion-controller.ts';

const signal = new AbortController().signal;
const request = { namespace: 'default', name: 'pod-a' };

function setup(...pods: Pod[]) {
  const fakes = fakeCaches();
  const api = new FakePodClient();
  const { reasons: events, recorder } = recordedReasons();
  for (const p of pods) fakes.pods.put(api.put(p));
  const leaving = new LeavingDecisions(new WorkloadReads(fakes.caches, api.client));
  const reconciler = new PodDeletionReconciler({ client: api.client, caches: fakes.caches, leaving, events: recorder, now: () => NOW });
  return { fakes, api, events, reconciler };
}

const marked = (labels: Record<string, string> = {}): Pod => {
  const p = pod({ labels: { app: 'web', [TO_DELETE_LABEL]: STAMP, ...labels } });
  return { ...p, metadata: { ...p.metadata, uid: 'uid-a' } };
};

/** Its pod-delete lifecycle at the point where the operation is allowed. */
const allowed = (): Pod => marked({ [L('operating', POD_DELETE_LIFECYCLE_ID)]: STAMP, [L('operation-type', POD_DELETE_LIFECYCLE_ID)]: OPERATION_TYPE_DELETE, [L('operate', POD_DELETE_LIFECYCLE_ID)]: STAMP });

describe('PodDeletionReconciler', () => {
  test('a marked pod begins its pod-delete lifecycle in one write guarded by the version read, seen by the cache at once', async () => {
    const { fakes, api, reconciler } = setup(marked());
    const before = fakes.pods.get('default', 'pod-a');
    assert.equal(await reconciler.reconcile(request, signal), undefined);
    assert.deepEqual(api.requests.map((r) => [r.verb, r.name, (r.body as Pod).metadata.resourceVersion]), [['patch', 'pod-a', before?.metadata.resourceVersion]]);
    assert.ok(isDuringOps(podDeleteAdapter, api.stored('default', 'pod-a') as Pod));
    assert.equal(fakes.pods.get('default', 'pod-a')?.metadata.resourceVersion, api.stored('default', 'pod-a')?.metadata.resourceVersion, 'assumed into the cache');
  });

  test('a budget without room: nothing written, the pod looked at again in 5 s', async () => {
    const { fakes, api, reconciler } = setup(marked());
    fakes.podDisruptionBudgets.put(budgetWithoutRoom('web'));
    assert.deepEqual(await reconciler.reconcile(request, signal), { requeueAfterMs: 5000 });
    assert.deepEqual(api.requests, []);
  });

  test('once the lifecycle allows it, the pod is deleted under its uid; a delete that finds it gone ends quietly', async () => {
    const { fakes, api, events, reconciler } = setup(allowed());
    await reconciler.reconcile(request, signal);
    assert.deepEqual(api.requests.map((r) => [r.verb, r.name, r.options?.preconditions]), [['delete', 'pod-a', { uid: 'uid-a' }]]);
    assert.deepEqual(events, ['PodDeletion']);
    // The cache has not seen the delete yet: the next reconcile deletes again, and the API server says it is gone.
    assert.ok(fakes.pods.get('default', 'pod-a'));
    assert.equal(await reconciler.reconcile(request, signal), undefined);
    assert.deepEqual(events, ['PodDeletion'], 'no second event');
  });

  test('a pod gone meanwhile (in the cache, no longer in the API server): its write meets a NotFound, and the reconcile ends quietly', async () => {
    const { fakes, api, reconciler } = setup();
    fakes.pods.put(marked());
    assert.equal(await reconciler.reconcile(request, signal), undefined);
    assert.deepEqual(api.requests.map((r) => [r.verb, r.name]), [['patch', 'pod-a']]);
  });

  test('a cache behind a write of someone else: the Conflict reaches the harness (which waits for the newer version), named with the step', async () => {
    const { fakes, api, reconciler } = setup(marked());
    api.put(marked({ team: 'a' }));
    await assert.rejects(reconciler.reconcile(request, signal), (err: Error) => {
      assert.ok(isConflict(err));
      assert.match(err.message, /^begin the pod-delete lifecycle of pod default\/pod-a: /);
      return true;
    });
    assert.ok(!isDuringOps(podDeleteAdapter, fakes.pods.get('default', 'pod-a') as Pod));
  });
});
