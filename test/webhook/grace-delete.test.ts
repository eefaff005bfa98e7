// GraceDelete behind podops' webhook configurations on the sandbox API server: `kubectl delete pod` of a
// controlled pod is denied with upstream's message and turned into the to-delete label, and the same delete
// with --dry-run=server gets the same answer but changes nothing. A ReplicaSet controller's deletes mark no more
// pods than its scale-down asks; a user's delete always marks, and takes over a mark the controller made. It
// decides on the live pod (the operator's cache, or a live read when the cache lacks it), never on the review's
// copy.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE, GRACE_DELETE_REQUESTED_BY_ANNOTATION, GRACE_DELETE_TIMESTAMP_ANNOTATION, POD_DELETE_LIFECYCLE_ID, SERVICE_READY_GATE, TO_DELETE_LABEL, idLabelKey } from '../../src/api/protocol.ts';
import { nowNanos } from '../../src/kube/clock.ts';
import { PODDISRUPTIONBUDGETS, PODS, REPLICASETS } from '../../src/kube/resources.ts';
import type { NamedPodDisruptionBudget } from '../../src/cache/cluster-cache.ts';
import { graceDelete, type GraceDeleteOptions } from '../../src/webhook/grace-delete.ts';
import type { AdmissionRequest } from '../../src/webhook/admission.ts';
import { OTHER_CONTROLLER_REQUESTER, SHARED_CONTROLLER_MANAGER_USER } from '../../src/lifecycle/scale-down.ts';
import { validatePodLifecycle } from '../../src/webhook/pod-lifecycle.ts';
import { pod } from '../support/pods.ts';
import { usePodWebhooks } from '../support/pod-webhooks.ts';
import { useSandboxClient } from '../support/sandbox-client.ts';
import { useClusterCaches } from '../support/cluster-caches.ts';
import { LeavingDecisions } from '../../src/cache/leaving.ts';
import { FakeInformer } from '../support/fake-informer.ts';
import { waitFor } from '../support/wait.ts';

const DENIAL =
  'admission webhook "validating-pod.apps.kusionstack.io" denied the request: failed to validate GraceDeleteWebhook, pod deletion process is underway and being managed by PodOpsLifecycle';

describe('GraceDelete', () => {
  const env = useSandboxClient();
  const running = useClusterCaches(env);
  const options = (): GraceDeleteOptions => ({ client: env.client, caches: running.caches, workloads: running.workloads, leaving: new LeavingDecisions(running.workloads), now: nowNanos });
  // Wired as the operator wires it with --feature-gates=GraceDeleteWebhook=true.
  usePodWebhooks(env, () => ({ Pod: [validatePodLifecycle, (r) => graceDelete(r, options())] }));

  /** Created, and in the operator's cache (what the webhook decides on). */
  const createPod = async (object: Pod): Promise<Pod> => {
    const stored = await env.client.create<Pod>(PODS, object);
    await waitFor(() => running.caches.pods.get('default', object.metadata.name ?? '') !== undefined, `${object.metadata.name} in the cache`);
    return stored;
  };
  const controlledPod = async (name: string): Promise<Pod> => {
    const { status: _status, ...created } = pod({ name, gate: false });
    const stored = await createPod(created);
    assert.ok(stored.spec?.readinessGates?.length, 'the mutating webhook added the service-ready gate');
    return stored;
  };

  test('a dry-run delete gets the same denial and writes nothing', async () => {
    await controlledPod('dry');
    const resourceVersion = env.sandbox.resourceVersion;
    await assert.rejects(env.client.delete(PODS, 'default', 'dry', { dryRun: true }), (err: Error) => err.message.includes(DENIAL));
    assert.equal(env.sandbox.resourceVersion, resourceVersion, 'no object of the cluster was written');
    const live = await env.client.get<Pod>(PODS, 'default', 'dry');
    assert.equal(live.metadata.labels?.[TO_DELETE_LABEL], undefined);
    assert.equal(live.metadata.annotations?.[GRACE_DELETE_TIMESTAMP_ANNOTATION], undefined);
  });

  test('a real delete gets that denial and labels the pod to-delete instead', async () => {
    await controlledPod('real');
    await assert.rejects(env.client.delete(PODS, 'default', 'real'), (err: Error) => err.message.includes(DENIAL));
    const live = await env.client.get<Pod>(PODS, 'default', 'real');
    assert.match(live.metadata.labels?.[TO_DELETE_LABEL] ?? '', /^\d+$/);
    assert.equal(live.metadata.annotations?.[GRACE_DELETE_TIMESTAMP_ANNOTATION], live.metadata.labels?.[TO_DELETE_LABEL]);
    assert.equal(live.metadata.deletionTimestamp, undefined, 'the pod is still there');
    assert.equal(live.metadata.labels?.[idLabelKey('operation-type', POD_DELETE_LIFECYCLE_ID)], 'delete', 'its pod-delete lifecycle began in the same write');
  });

  // Every write of a pod wakes its ReplicaSet's controller, which repeats its refused deletes: a repeated delete
  // that wrote would feed that loop for as long as the pod is held.
  test('a repeated delete of a marked pod by the same requester writes nothing, however late it comes', async () => {
    await controlledPod('repeated');
    await assert.rejects(env.client.delete(PODS, 'default', 'repeated'), (err: Error) => err.message.includes(DENIAL));
    const marked = await env.client.get<Pod>(PODS, 'default', 'repeated');
    await waitFor(() => running.caches.pods.get('default', 'repeated')?.metadata.resourceVersion === marked.metadata.resourceVersion, 'the mark in the cache');
    const later = (): GraceDeleteOptions => ({ ...options(), now: () => nowNanos() + 60n * 1_000_000_000n });
    const verdict = await graceDelete({ ...deleteReview(marked), userInfo: { username: marked.metadata.annotations?.[GRACE_DELETE_REQUESTED_BY_ANNOTATION] ?? '' } }, later());
    assert.equal(verdict.allowed, false, 'still refused');
    assert.equal((await env.client.get<Pod>(PODS, 'default', 'repeated')).metadata.resourceVersion, marked.metadata.resourceVersion, 'a minute later, the same requester: nothing written');
  });

  test("a user's delete begins the pod's lifecycle only while its PodDisruptionBudgets have room; until then it is marked", async () => {
    const { status: _status, ...created } = pod({ name: 'budgeted', gate: false, labels: { app: 'budgeted' } });
    await createPod(created);
    const budget = await env.client.create<NamedPodDisruptionBudget>(PODDISRUPTIONBUDGETS, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'budgeted', namespace: 'default' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'budgeted' } } },
    } as never);
    // As the disruption controller would report it: the pod (never Ready here, with no kubelet) is not healthy; one is needed.
    await env.client.patch(PODDISRUPTIONBUDGETS, 'default', 'budgeted', 'merge', { status: { observedGeneration: budget.metadata.generation, desiredHealthy: 1, currentHealthy: 0, expectedPods: 1, disruptionsAllowed: 0 } }, { subresource: 'status' });
    await waitFor(() => running.caches.podDisruptionBudgets.get('default', 'budgeted')?.status?.desiredHealthy === 1, 'the budget in the cache');
    await assert.rejects(env.client.delete(PODS, 'default', 'budgeted'), (err: Error) => err.message.includes(`${DENIAL}; it leaves once PodDisruptionBudget budgeted has room: it needs 1 healthy pods and would have 0`));
    const live = await env.client.get<Pod>(PODS, 'default', 'budgeted');
    assert.match(live.metadata.labels?.[TO_DELETE_LABEL] ?? '', /^\d+$/);
    assert.equal(live.metadata.labels?.[idLabelKey('operation-type', POD_DELETE_LIFECYCLE_ID)], undefined, 'not begun: the pod-deletion controller begins it once the budget has room');
  });

  test("the ReplicaSet controller's deletes mark no more pods than its scale-down asks; a user's delete always marks", async () => {
    const replicaSet = await env.client.create<{ metadata: { uid?: string } }>(REPLICASETS, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'rs', namespace: 'default' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'rs' } }, template: { metadata: { labels: { app: 'rs' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
    } as never);
    const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: replicaSet.metadata.uid ?? '', controller: true };
    for (const name of ['rs-a', 'rs-b', 'rs-c']) {
      const { status: _status, ...created } = pod({ name, gate: false, labels: { app: 'rs' } });
      await createPod({ ...created, metadata: { ...created.metadata, ownerReferences: [owner] } });
    }
    const rsController = 'system:serviceaccount:kube-system:replicaset-controller';
    const asController = env.sandbox.client({ username: rsController });
    const podsRef = { group: '', version: 'v1', resource: 'pods' };
    const live = (name: string) => env.client.get<Pod>(PODS, 'default', name);
    // Told NotFound, the answer the ReplicaSet controller takes for a pod already on its way out: a Forbidden
    // would fail its sync, and it would retry every pod it deletes with a backoff that starts at 5 ms.
    const refusal = async (name: string): Promise<string> => {
      try {
        await asController.delete(podsRef, name, { namespace: 'default' });
      } catch (err) {
        const status = (err as { status?: { message?: string; code?: number; reason?: string } }).status;
        assert.deepEqual([status?.code, status?.reason], [404, 'NotFound'], `the refusal of ${name}`);
        return status?.message ?? String(err);
      }
      throw new Error(`the delete of ${name} was let through`);
    };

    // Three pods for one replica: the scale-down asks for two.
    assert.match(await refusal('rs-a'), /pod deletion process is underway/);
    assert.match(await refusal('rs-b'), /pod deletion process is underway/);
    for (const name of ['rs-a', 'rs-b']) {
      assert.equal((await live(name)).metadata.annotations?.[GRACE_DELETE_REQUESTED_BY_ANNOTATION], rsController);
      assert.equal((await live(name)).metadata.labels?.[idLabelKey('operation-type', POD_DELETE_LIFECYCLE_ID)], 'delete', `${name} began leaving with its mark`);
    }
    // Its retry on a third pod: covered by the two leaving, so refused without a mark.
    assert.match(await refusal('rs-c'), /ReplicaSet rs has 2 pod\(s\) beyond its 1 replicas and rs-a, rs-b already leaving: rs-c stays/);
    assert.equal((await live('rs-c')).metadata.labels?.[TO_DELETE_LABEL], undefined);

    // A user's delete marks it all the same, and takes over the controller's mark of another; a user is told Forbidden.
    await assert.rejects(env.client.delete(PODS, 'default', 'rs-c'), (err: Error & { code?: number }) => err.message.includes(DENIAL) && err.code === 403);
    assert.equal((await live('rs-c')).metadata.annotations?.[GRACE_DELETE_REQUESTED_BY_ANNOTATION], 'admin');
    await assert.rejects(env.client.delete(PODS, 'default', 'rs-a'), (err: Error) => err.message.includes(DENIAL));
    assert.equal((await live('rs-a')).metadata.annotations?.[GRACE_DELETE_REQUESTED_BY_ANNOTATION], 'admin');
  });

  test("kube-controller-manager's shared identity stands for the ReplicaSet controller only while the ReplicaSet has pods beyond its replicas", async () => {
    const replicaSetWith = async (name: string, replicas: number, pods: number) => {
      const created = await env.client.create<{ metadata: { uid?: string } }>(REPLICASETS, {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name, namespace: 'default' },
        spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
      } as never);
      const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name, uid: created.metadata.uid ?? '', controller: true };
      for (let i = 0; i < pods; i++) {
        const { status: _status, ...made } = pod({ name: `${name}-${i}`, gate: false, labels: { app: name } });
        await createPod({ ...made, metadata: { ...made.metadata, ownerReferences: [owner] } });
      }
    };
    const shared = env.sandbox.client({ username: SHARED_CONTROLLER_MANAGER_USER });
    const podsRef = { group: '', version: 'v1', resource: 'pods' };
    const requester = async (name: string): Promise<string | undefined> => {
      await assert.rejects(shared.delete(podsRef, name, { namespace: 'default' }), /pod deletion process is underway/);
      return (await env.client.get<Pod>(PODS, 'default', name)).metadata.annotations?.[GRACE_DELETE_REQUESTED_BY_ANNOTATION];
    };
    // No pod beyond the replicas: not a scale-down but, say, a taint eviction or a garbage collection. It is marked
    // and leaves as a user's delete does (it used to be refused for ever, as a scale-down already covered).
    await replicaSetWith('steady', 2, 2);
    assert.equal(await requester('steady-0'), OTHER_CONTROLLER_REQUESTER);
    // A pod beyond the replicas: the ReplicaSet controller's scale-down, held to its count.
    await replicaSetWith('shrinking', 1, 2);
    assert.equal(await requester('shrinking-0'), SHARED_CONTROLLER_MANAGER_USER);
  });

  /** A DELETE review as the API server would send it (or a forger could), for `oldObject`. */
  const deleteReview = (oldObject: Pod): AdmissionRequest => ({
    uid: 'review',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    name: oldObject.metadata.name ?? '',
    namespace: 'default',
    operation: 'DELETE',
    userInfo: { username: 'admin' },
    oldObject,
  });

  test("a forged review claiming an uncontrolled pod is controlled writes nothing: the decision is on the live pod", async () => {
    const { status: _status, ...created } = pod({ name: 'plain-one', gate: false, controlled: false });
    const stored = await env.client.create<Pod>(PODS, created);
    const forged: Pod = { ...stored, metadata: { ...stored.metadata, labels: { ...stored.metadata.labels, [CONTROL_LABEL]: CONTROL_LABEL_VALUE } }, spec: { ...stored.spec, readinessGates: [{ conditionType: SERVICE_READY_GATE }] } };
    const resourceVersion = env.sandbox.resourceVersion;
    assert.equal((await graceDelete(deleteReview(forged), options())).allowed, true, 'let be: it is not a controlled pod');
    assert.equal(env.sandbox.resourceVersion, resourceVersion, 'nothing was written');
    assert.equal((await env.client.get<Pod>(PODS, 'default', 'plain-one')).metadata.labels?.[TO_DELETE_LABEL], undefined);
  });

  test('a controlled pod the cache does not hold yet (created a moment ago) is read live and marked', async () => {
    const { status: _status, ...created } = pod({ name: 'brand-new', gate: false });
    const stored = await env.client.create<Pod>(PODS, created);
    const behind = new FakeInformer<Pod>();
    const verdict = await graceDelete(deleteReview(stored), { ...options(), caches: { ...running.caches, pods: behind.informer } });
    assert.equal(verdict.allowed, false);
    assert.match((await env.client.get<Pod>(PODS, 'default', 'brand-new')).metadata.labels?.[TO_DELETE_LABEL] ?? '', /^\d+$/);
  });
});
