// GraceDelete's surge bound behind podops' webhook configurations on the sandbox API server: the ReplicaSet
// controller's creates of a controlled Deployment's pods are refused while its pods not terminating (one held
// by GraceDelete included) are at replicas + maxSurge; creates reviewed at once never both take the last room;
// anyone else's creates, and a Recreate Deployment's, are not held.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Deployment, Pod, ReplicaSet } from '../../src/api/kube.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE, TO_DELETE_LABEL } from '../../src/api/protocol.ts';
import { nowNanos } from '../../src/kube/clock.ts';
import { DEPLOYMENTS, PODS, REPLICASETS } from '../../src/kube/resources.ts';
import { DeploymentSurgeAdmission } from '../../src/webhook/deployment-surge.ts';
import { validatePodLifecycle } from '../../src/webhook/pod-lifecycle.ts';
import { pod } from '../support/pods.ts';
import { usePodWebhooks } from '../support/pod-webhooks.ts';
import { useSandboxClient } from '../support/sandbox-client.ts';
import { useClusterCaches } from '../support/cluster-caches.ts';
import { waitFor } from '../support/wait.ts';

const RS_CONTROLLER = 'system:serviceaccount:kube-system:replicaset-controller';
const podsRef = { group: '', version: 'v1', resource: 'pods' };

describe('the surge bound of a Deployment with GraceDelete', () => {
  const env = useSandboxClient();
  const running = useClusterCaches(env);
  usePodWebhooks(env, () => {
    const surge = new DeploymentSurgeAdmission({ workloads: running.workloads, now: nowNanos });
    return { Pod: [validatePodLifecycle, (r) => surge.admit(r)] };
  });

  /** A Deployment `name` of `replicas` (maxSurge 1) with a ReplicaSet `<name>-new`, as the controllers make them. */
  async function deploymentWithReplicaSet(name: string, replicas: number, strategy: Record<string, unknown> = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }) {
    // As a Deployment of controlled pods has it: the pods' labels are the template's.
    const template = { metadata: { labels: { app: name, [CONTROL_LABEL]: CONTROL_LABEL_VALUE } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } };
    const deployment = await env.client.create<Deployment>(DEPLOYMENTS, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'default' },
      spec: { replicas, strategy, selector: { matchLabels: { app: name } }, template },
    } as never);
    const replicaSet = await env.client.create<ReplicaSet>(REPLICASETS, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: `${name}-new`, namespace: 'default', labels: { app: name }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: deployment.metadata.uid ?? '', controller: true }] },
      spec: { replicas, selector: { matchLabels: { app: name } }, template },
    } as never);
    const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${name}-new`, uid: replicaSet.metadata.uid ?? '', controller: true };
    return { owner };
  }

  const podOf = (owner: { name: string }, app: string, labels: Record<string, string> = {}): Pod => {
    const { status: _status, ...created } = pod({ name: `${owner.name}-${Math.random().toString(36).slice(2, 7)}`, gate: false, labels: { app, ...labels } });
    return { ...created, metadata: { ...created.metadata, ownerReferences: [owner as never] } };
  };

  /** Creates as the ReplicaSet controller; the refusal's message, or undefined when created. */
  async function createAsController(object: Pod, dryRun = false): Promise<string | undefined> {
    try {
      await env.sandbox.client({ username: RS_CONTROLLER }).create(podsRef, object as never, { namespace: 'default', ...(dryRun && { query: { dryRun: 'All' } }) });
      return undefined;
    } catch (err) {
      return (err as { status?: { message?: string } }).status?.message ?? String(err);
    }
  }

  test('a pod held by GraceDelete keeps its place: the replacement waits until the held pod is terminating', async () => {
    const { owner } = await deploymentWithReplicaSet('web', 2);
    assert.equal(await createAsController(podOf(owner, 'web')), undefined);
    assert.equal(await createAsController(podOf(owner, 'web', { [TO_DELETE_LABEL]: '1' })), undefined);
    assert.equal(await createAsController(podOf(owner, 'web')), undefined, 'replicas 2 + maxSurge 1: room for a third');
    const refusal = await createAsController(podOf(owner, 'web'));
    assert.match(refusal ?? '', /denied the request: failed to validate GraceDeleteWebhook, Deployment web has 3 pods not terminating, 1 of them leaving through PodOpsLifecycle; replicas 2 \+ maxSurge 1 allow 3: the pod is created once one is gone/);
    assert.match((await createAsController(podOf(owner, 'web'), true)) ?? '', /allow 3/, 'a dry run gets the same answer');

    const held = (await env.client.list<Pod>(PODS, { namespace: 'default', labelSelector: `app=web,${TO_DELETE_LABEL}` })).items[0]!;
    await env.client.delete(PODS, 'default', held.metadata.name ?? '');
    // The bound counts from the operator's cache: once it has seen the held pod go, there is room.
    await waitFor(() => running.caches.pods.get('default', held.metadata.name ?? '') === undefined, 'the cache to see the held pod gone');
    assert.equal(await createAsController(podOf(owner, 'web')), undefined, 'the held pod is gone: its replacement is created');
  });

  test('creates reviewed at once never both take the last room', async () => {
    const { owner } = await deploymentWithReplicaSet('batch', 3);
    for (let i = 0; i < 3; i++) assert.equal(await createAsController(podOf(owner, 'batch')), undefined);
    const answers = await Promise.all([createAsController(podOf(owner, 'batch')), createAsController(podOf(owner, 'batch')), createAsController(podOf(owner, 'batch'))]);
    assert.equal(answers.filter((a) => a === undefined).length, 1, `one of three admitted: ${JSON.stringify(answers)}`);
    assert.equal((await env.client.list<Pod>(PODS, { namespace: 'default', labelSelector: 'app=batch' })).items.length, 4);
  });

  test("others' creates, uncontrolled pods and Recreate Deployments are not held", async () => {
    const { owner } = await deploymentWithReplicaSet('full', 1);
    for (let i = 0; i < 2; i++) assert.equal(await createAsController(podOf(owner, 'full')), undefined);
    assert.match((await createAsController(podOf(owner, 'full'))) ?? '', /allow 2/);
    await env.client.create<Pod>(PODS, podOf(owner, 'full'));
    const { status: _status, ...plain } = pod({ name: 'plain', controlled: false, gate: false, labels: { app: 'full' } });
    assert.equal(await createAsController({ ...plain, metadata: { ...plain.metadata, ownerReferences: [owner as never] } }), undefined);

    const recreate = await deploymentWithReplicaSet('recreate', 1, { type: 'Recreate' });
    for (let i = 0; i < 3; i++) assert.equal(await createAsController(podOf(recreate.owner, 'recreate')), undefined);
  });
});
