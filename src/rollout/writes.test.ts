// The requests of a reconcile: in the controller's order, each guarded or not as it says, with the answers it
// tolerates; a release made again from a fresh read only while the rollout is the same; a deleted
// RolloutLifecycle's hooks cancelled as their retention says, its workload released and unlabelled, its
// finalizer last.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonPatchOperation } from '../api/kube.ts';
import { RL_FINALIZER, RL_RETRY_ANNOTATION, RL_ROLLOUT_ANNOTATION, RL_USER_SETTINGS_ANNOTATION, RL_WORKLOAD_LABEL, type HookRecord, type LifecycleHook, type RolloutLifecycle } from '../api/rolloutlifecycle.ts';
import { applyPatch, NAME, NAMESPACE, template, UID, workload } from './fixtures.test-support.ts';
import { observeRollout } from './observe.ts';
import { planRollout, rolloutPlanInput, type Plan } from './plan.ts';
import { stashAnnotations } from './stash.ts';
import { templateHash, type JsonObject, type Workload } from './workload.ts';
import { claimRefused, finalizeWrites, released, rolloutWrites, statusWritten, type PatchRequest, type RolloutRequest } from './writes.ts';

const NOW = '2025-03-01T10:00:00Z';
const v2 = template('app:v2');
const user = { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } };
const stamp = { id: 'r1', templateHash: templateHash(v2), type: 'ROLLOUT' as const, changedAt: NOW };

const hook = (name: string, retainPolicy: LifecycleHook['retainPolicy'] = 'Always'): LifecycleHook => ({
  name,
  trigger: { type: 'ProgressAvailable', progressAvailableParams: { progressPoint: 0 } },
  retainPolicy,
  jobSpec: { template: { spec: { restartPolicy: 'Never', containers: [{ name, image: 'hook:1' }] } } },
});

const rolloutLifecycle = (extra: Partial<RolloutLifecycle> = {}): RolloutLifecycle => ({
  metadata: { name: 'hooks', namespace: NAMESPACE, generation: 2, resourceVersion: '7', finalizers: ['other', RL_FINALIZER] },
  spec: { targetRef: { kind: 'Deployment', name: NAME }, hooks: [hook('smoke')] },
  ...extra,
});

/** A Deployment held by podops: paused and Recreate, the user's rolling update stashed. */
function heldDeployment(resourceVersion = '41'): Workload {
  const w = workload('Deployment', { replicas: 2, template: v2, paused: true, strategy: { type: 'Recreate' } }, stashAnnotations(user, stamp));
  w.metadata.resourceVersion = resourceVersion;
  w.metadata.labels = { [RL_WORKLOAD_LABEL]: 'hooks' };
  return w;
}

const guardOf = (request: PatchRequest): JsonPatchOperation | undefined => (request.body as JsonPatchOperation[]).find((op) => op.path === '/metadata/resourceVersion');
const shape = (requests: RolloutRequest[]) => requests.map((r) => `${r.verb} ${r.kind}${r.verb === 'patch' && r.subresource ? '/status' : ''}`);

describe('rolloutWrites', () => {
  const rsWith = (name: string, t: JsonObject, replicas: number, available: number) => ({
    metadata: { name, uid: `uid-${name}`, ownerReferences: [{ uid: UID }] },
    spec: { replicas, template: t },
    status: { replicas, availableReplicas: available },
  });

  function step(rl: RolloutLifecycle, w: Workload, replicaSets: ReturnType<typeof rsWith>[]): { plan: Plan; requests: RolloutRequest[] } {
    const observed = observeRollout({ kind: 'Deployment', workload: w, replicaSets, jobs: [], now: Date.parse(NOW) });
    const plan = planRollout(rolloutPlanInput(rl, NAME, observed, NOW));
    return { plan, requests: rolloutWrites({ rl, kind: 'Deployment', workload: w, observed, plan, now: NOW }).requests };
  }

  test('a point reached: its Job created (owned by the new ReplicaSet), then the status, then the hold; the retry request answered last', () => {
    const rl = rolloutLifecycle({ metadata: { ...rolloutLifecycle().metadata, annotations: { [RL_RETRY_ANNOTATION]: '*' } } });
    const { requests } = step(rl, heldDeployment(), [rsWith('web-v1', template('app:v1'), 2, 2), rsWith('web-v2', v2, 0, 0)]);
    assert.deepEqual(shape(requests), ['create Job', 'patch RolloutLifecycle/status', 'patch RolloutLifecycle']);
    const [create, status, retry] = requests as [Extract<RolloutRequest, { verb: 'create' }>, PatchRequest, PatchRequest];
    assert.deepEqual(create.body.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-v2', uid: 'uid-web-v2' }]);
    assert.deepEqual(create.tolerate, ['AlreadyExists']);
    assert.equal(status.guarded, false);
    // Removed only while it is the request acted on: a newer one fails the test.
    const path = '/metadata/annotations/rolloutlifecycle.kusionstack.io~1retry';
    assert.deepEqual(retry.body, [
      { op: 'test', path, value: '*' },
      { op: 'remove', path },
    ]);
  });

  test("a release restores the user's settings under a guard, with podops' annotations gone", () => {
    const rl = rolloutLifecycle({ spec: { targetRef: { kind: 'Deployment', name: NAME }, hooks: [] } });
    const w = heldDeployment();
    const { requests } = step(rl, w, [rsWith('web-v2', v2, 2, 2)]);
    const release = requests.find((r): r is PatchRequest => r.kind === 'Deployment') as PatchRequest;
    assert.equal(release.guarded, true);
    assert.deepEqual(guardOf(release), { op: 'replace', path: '/metadata/resourceVersion', value: '41' });
    const stored = applyPatch(w, release.body as JsonPatchOperation[]);
    assert.deepEqual(stored.metadata.annotations, {});
    assert.deepEqual([stored.spec?.paused, stored.spec?.strategy], [undefined, user.strategy]);
  });

  test('a step is unguarded: only podops sets the hold fields while the workload is held', () => {
    const rl = rolloutLifecycle({ spec: { targetRef: { kind: 'Deployment', name: NAME }, hooks: [{ ...hook('smoke'), trigger: { type: 'ProgressAvailable', progressAvailableParams: { progressPoint: 1 } } }] } });
    const { requests } = step(rl, heldDeployment(), [rsWith('web-v1', template('app:v1'), 2, 2)]);
    const hold = requests.find((r): r is PatchRequest => r.kind === 'Deployment') as PatchRequest;
    assert.equal(hold.guarded, false);
    assert.equal(guardOf(hold), undefined);
    assert.equal(hold.fieldManager, 'podops-rollout');
  });
});

describe('released', () => {
  test('a conflict is made again from the fresh read, which may have taken a change of the stash', () => {
    const request = released('Deployment', heldDeployment('41'), true) as PatchRequest;
    const fresh = heldDeployment('42');
    fresh.metadata.annotations = { ...fresh.metadata.annotations, [RL_USER_SETTINGS_ANNOTATION]: JSON.stringify({ paused: true }) };
    const again = request.again?.(fresh) as PatchRequest;
    assert.deepEqual(guardOf(again), { op: 'replace', path: '/metadata/resourceVersion', value: '42' });
    assert.deepEqual(applyPatch(fresh, again.body as JsonPatchOperation[]).spec?.paused, true);
  });

  test('not once a new template came meanwhile: the webhook froze it for its own rollout', () => {
    const request = released('Deployment', heldDeployment('41'), true) as PatchRequest;
    const fresh = heldDeployment('42');
    fresh.metadata.annotations = { ...fresh.metadata.annotations, [RL_ROLLOUT_ANNOTATION]: JSON.stringify({ ...stamp, id: 'r2' }) };
    assert.equal(request.again?.(fresh), undefined);
    // A RolloutLifecycle being deleted gives the workload back whatever it holds.
    assert.ok(released('Deployment', heldDeployment('41'), false)?.again?.(fresh));
  });

  test('a workload not held: nothing to release', () => {
    assert.equal(released('Deployment', workload('Deployment', {}), true), undefined);
  });
});

describe('finalizeWrites', () => {
  const records: HookRecord[] = [
    { name: 'kept', point: 0, rollout: 'r1', templateHash: 'abc', job: 'web-kept-r1', attempt: 1, phase: 'Running' },
    { name: 'gone', point: 0, rollout: 'r1', templateHash: 'abc', job: 'web-gone-r1', attempt: 1, phase: 'Running' },
    { name: 'done', point: 0, rollout: 'r1', templateHash: 'abc', job: 'web-done-r1', attempt: 1, phase: 'Succeeded' },
  ];
  const deleted = rolloutLifecycle({ spec: { targetRef: { kind: 'Deployment', name: NAME }, hooks: [hook('kept', 'Always'), hook('gone', 'Never'), hook('done', 'Never')] }, status: { hooks: records } });

  test('running hooks cancelled as their retention says, the workload released and unlabelled, the finalizer removed last (guarded)', () => {
    const { requests, events } = finalizeWrites(deleted, 'Deployment', heldDeployment());
    assert.deepEqual(shape(requests), ['patch Job', 'delete Job', 'patch Deployment', 'patch Deployment', 'patch RolloutLifecycle']);
    assert.deepEqual(requests.slice(0, 2).map((r) => (r.verb === 'create' ? '' : r.name)), ['web-kept-r1', 'web-gone-r1']);
    assert.deepEqual(requests[3]?.verb === 'patch' && requests[3].body, { metadata: { labels: { [RL_WORKLOAD_LABEL]: null } } });
    const finalizer = requests[4] as PatchRequest;
    assert.deepEqual(finalizer.body, { metadata: { resourceVersion: '7', finalizers: ['other'] } });
    assert.equal(finalizer.guarded, true);
    assert.deepEqual(events.map((e) => [e.on, e.reason, e.message]), [[['workload'], 'RolloutReleased', 'RolloutLifecycle hooks deleted: the workload is released, hooks cancelled: kept, gone']]);
  });

  test("a workload another RolloutLifecycle claimed is not touched: only the hooks and the finalizer", () => {
    assert.deepEqual(shape(finalizeWrites(deleted, 'Deployment', undefined).requests), ['patch Job', 'delete Job', 'patch RolloutLifecycle']);
  });
});

describe('statusWritten and claimRefused', () => {
  test("a change of the new available count alone is not written", () => {
    const rollout = { id: 'r1', type: 'ROLLOUT' as const, templateHash: 'abc', startTime: NOW, phase: 'Progressing' as const, replicas: 4, newAvailable: 1, points: [], pointReached: '0/0' };
    const rl = rolloutLifecycle({ status: { observedGeneration: 2, target: 'Deployment/web', conditions: [], rollout, hooks: [] } });
    assert.equal(statusWritten(rl, { target: 'Deployment/web', conditions: [], rollout: { ...rollout, newAvailable: 3 }, hooks: [] }, NOW), undefined);
    assert.ok(statusWritten(rl, { target: 'Deployment/web', conditions: [], rollout: { ...rollout, phase: 'Held' }, hooks: [] }, NOW));
  });

  test('a claimed target: the condition keeps its time while the problem lasts, and the Warning is said once', () => {
    const first = claimRefused(rolloutLifecycle(), 'Deployment/web', 'older', NOW);
    const [written] = (first.requests[0] as PatchRequest).body as unknown as [{ value: RolloutLifecycle['status'] }];
    assert.equal(first.events.length, 1);
    const again = claimRefused(rolloutLifecycle({ status: written.value }), 'Deployment/web', 'older', '2025-03-01T11:00:00Z');
    assert.deepEqual(again, { requests: [], events: [] });
  });
});
