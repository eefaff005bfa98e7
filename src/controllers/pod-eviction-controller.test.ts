// The pod-eviction reconciler over the shared caches, its requests answered as the API server answers them: a
// pod whose eviction was asked begins its pod-eviction lifecycle while its budgets have room, and is looked at
// again when the eviction would be abandoned; an eviction nobody retried is withdrawn; a pod gone meanwhile ends
// the reconcile quietly.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod } from '../api/kube.ts';
import { EVICTION_REQUESTED_ANNOTATION, TO_EVICT_LABEL } from '../api/protocol.ts';
import { NANOS_PER_SECOND } from '../lifecycle/time.ts';
import { isDuringOps, podEvictionAdapter } from '../sdk/operation.ts';
import { budgetWithoutRoom, fakeCaches } from '../../test/support/fake-caches.ts';
import { FakePodClient, recordedReasons } from '../../test/support/fake-pod-client.ts';
import { NOW, pod, STAMP } from '../../test/support/pods.ts';
import { PodEvictionReconciler } from './pod-eviction-controller.ts';

const signal = new AbortController().signal;
const request = { namespace: 'default', name: 'pod-a' };

function setup(now: bigint, ...pods: Pod[]) {
  const fakes = fakeCaches();
  const api = new FakePodClient();
  const { reasons: events, recorder } = recordedReasons();
  for (const p of pods) fakes.pods.put(api.put(p));
  const reconciler = new PodEvictionReconciler({ client: api.client, caches: fakes.caches, events: recorder, now: () => now });
  return { fakes, api, events, reconciler };
}

/** A pod whose eviction was asked (the eviction webhook's mark), at NOW. */
const asked = (): Pod => pod({ labels: { app: 'web', [TO_EVICT_LABEL]: STAMP }, annotations: { [EVICTION_REQUESTED_ANNOTATION]: STAMP } });

describe('PodEvictionReconciler', () => {
  test('an asked eviction begins the pod-eviction lifecycle in one guarded write, and is looked at again when it would be abandoned', async () => {
    const { api, reconciler } = setup(NOW, asked());
    const result = await reconciler.reconcile(request, signal);
    assert.deepEqual(api.requests.map((r) => [r.verb, r.name, typeof (r.body as Pod).metadata.resourceVersion]), [['patch', 'pod-a', 'string']]);
    assert.ok(isDuringOps(podEvictionAdapter, api.stored('default', 'pod-a') as Pod));
    assert.equal(result?.requeueAfterMs, 60_001, 'a minute of silence abandons it');
  });

  test('a budget without room: nothing written, looked at again within 5 s', async () => {
    const { fakes, api, reconciler } = setup(NOW, asked());
    fakes.podDisruptionBudgets.put(budgetWithoutRoom('web'));
    assert.deepEqual(await reconciler.reconcile(request, signal), { requeueAfterMs: 5000 });
    assert.deepEqual(api.requests, []);
  });

  test('an eviction nobody retried for a minute is withdrawn: the pod returns to service, and says so', async () => {
    const { api, events, reconciler } = setup(NOW + 61n * NANOS_PER_SECOND, asked());
    await reconciler.reconcile(request, signal);
    const stored = api.stored('default', 'pod-a') as Pod;
    assert.equal(stored.metadata.labels?.[TO_EVICT_LABEL], undefined);
    assert.equal(stored.metadata.annotations?.[EVICTION_REQUESTED_ANNOTATION], undefined);
    assert.deepEqual(events, ['EvictionAbandoned']);
  });

  test('a pod gone meanwhile (in the cache, no longer in the API server): its write meets a NotFound, the reconcile ends quietly, no event', async () => {
    const abandoned = setup(NOW + 61n * NANOS_PER_SECOND);
    abandoned.fakes.pods.put(asked());
    assert.equal(await abandoned.reconciler.reconcile(request, signal), undefined);
    assert.deepEqual(abandoned.events, []);
    const beginning = setup(NOW);
    beginning.fakes.pods.put(asked());
    assert.equal((await beginning.reconciler.reconcile(request, signal))?.requeueAfterMs, 60_001);
    assert.deepEqual(beginning.api.requests.map((r) => [r.verb, r.name]), [['patch', 'pod-a']]);
  });
});
