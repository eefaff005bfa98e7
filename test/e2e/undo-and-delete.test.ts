// Undo in each phase, GraceDelete through kubectl, and workload rollouts that never remove a pod while the
// load balancer still sends it traffic.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { Pod } from '../../src/api/kube.ts';
import { OPERATION_TYPE_DELETE, POD_DELETE_LIFECYCLE_ID, TO_DELETE_LABEL, idLabelKey } from '../../src/api/protocol.ts';
import { nowNanos } from '../../src/kube/clock.ts';
import { DEPLOYMENTS, PODS, PODTRANSITIONRULES } from '../../src/kube/resources.ts';
import { LIFECYCLE_PHASES, lifecyclePhase, type LifecyclePhase } from '../../src/lifecycle/phase.ts';
import { parseLifecycles } from '../../src/lifecycle/parse.ts';
import { podWriterFor } from '../../src/sdk/kube-writer.ts';
import { OperationClient } from '../../src/sdk/operation-client.ts';
import { allowOps, type LifecycleAdapter } from '../../src/sdk/operation.ts';
import { removeExpectedFinalizers, setExpectedFinalizers } from '../../src/sdk/cooperation.ts';
import { updateWithRetry } from '../../src/sdk/writer.ts';
import { kubectlPath, skipWithoutKubectl } from '../support/kubectl.ts';
import { controlledPod, getPod, isServiceAvailable, lifecycleLabels, serviceNamespace, startCluster, type Cluster } from './harness.ts';
import { until } from '../support/wait.ts';

const adapter: LifecycleAdapter = { id: 'upgrade', type: 'update', allowMultiType: false };
// Not a Service, so the lifecycle controller never drops it as a dirty entry.
const HOLD_ENTRY = { 'Gateway/e2e/hold': 'example.com/never-added' };
const phaseOf = (pod: Pod): LifecyclePhase | undefined => {
  const lifecycle = parseLifecycles(pod.metadata.labels).byId.get(adapter.id);
  return lifecycle && lifecyclePhase(lifecycle);
};

describe('undo, GraceDelete and rollouts on the sandbox', () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster();
    await serviceNamespace(cluster, 'e2e');
  });
  after(() => cluster.stop());

  /**
   * Keeps the pod in `phase` until undo: a blocking rule, a protection finalizer, an unfinished operation, or
   * (Completing) an expected finalizer nobody adds.
   */
  async function holdIn(phase: LifecyclePhase, name: string): Promise<void> {
    const { client } = cluster;
    if (phase === 'PreCheck' || phase === 'PostCheck') {
      await client.create(PODTRANSITIONRULES, {
        apiVersion: 'apps.kusionstack.io/v1alpha1',
        kind: 'PodTransitionRule',
        metadata: { name, namespace: 'e2e' },
        spec: { selector: { matchLabels: { hold: name } }, rules: [{ name: 'hold', stage: phase, labelCheck: { requires: { matchLabels: { release: 'go' } } } }] },
      });
    }
    if (phase === 'Preparing') await client.patch(PODS, 'e2e', name, 'merge', { metadata: { finalizers: ['prot.podopslifecycle.kusionstack.io/test-hold'] } });
    if (phase === 'Completing') await updateWithRetry(podWriterFor(client), await getPod(cluster, 'e2e', name), (p) => setExpectedFinalizers(p, HOLD_ENTRY));
  }

  /** Lets the pod back into service once the lifecycle is undone. */
  async function release(phase: LifecyclePhase, name: string): Promise<void> {
    const { client } = cluster;
    if (phase === 'Preparing') await client.patch(PODS, 'e2e', name, 'merge', { metadata: { finalizers: null } });
    if (phase === 'Completing') await updateWithRetry(podWriterFor(client), await getPod(cluster, 'e2e', name), (p) => removeExpectedFinalizers(p, Object.keys(HOLD_ENTRY)));
  }

  // The protocol allows undo in every phase, Completing included (Kuperator's behaviour, docs/protocol.md): the ID still has
  // `operated` there, so the webhook strips its labels.
  for (const phase of LIFECYCLE_PHASES) {
    test(`undo in ${phase} removes every label of the lifecycle in that write, and the pod returns to service`, async () => {
      const name = `undo-${phase.toLowerCase()}`;
      const { client } = cluster;
      await client.create(PODS, { ...controlledPod('e2e', name), metadata: { ...controlledPod('e2e', name).metadata, labels: { app: 'web', 'kusionstack.io/control': 'true', hold: name } } });
      await until(() => getPod(cluster, 'e2e', name), isServiceAvailable, `${name} service-available`);
      await holdIn(phase, name);
      const ops = new OperationClient(podWriterFor(client));
      await ops.begin(adapter, await getPod(cluster, 'e2e', name));
      if (phase === 'PostCheck' || phase === 'Completing') {
        const operable = await until(() => getPod(cluster, 'e2e', name), (p) => allowOps(adapter, 0, p, nowNanos()).allowed, 'AllowOps');
        await ops.finish(adapter, operable);
      }
      const held = await until(() => getPod(cluster, 'e2e', name), (p) => phaseOf(p) === phase, `${name} in ${phase}`);
      // Stays there: the hold works.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(phaseOf(await getPod(cluster, 'e2e', name)), phase);
      const undone = await ops.undo(adapter, held);
      assert.deepEqual(lifecycleLabels(undone.pod), [], 'every label of the ID went in the undo write');
      await release(phase, name);
      await until(() => getPod(cluster, 'e2e', name), isServiceAvailable, `${name} back in service`);
    });
  }

  test('kubectl delete pod: denied with the upstream message, then deleted once out of traffic', { skip: skipWithoutKubectl }, async () => {
    const { client } = cluster;
    await client.create(PODS, controlledPod('e2e', 'doomed'));
    await until(() => getPod(cluster, 'e2e', 'doomed'), isServiceAvailable, 'doomed service-available');
    await until(() => cluster.loadBalancer.isRegistered('e2e/web', 'doomed'), Boolean, 'doomed registered');
    const result = await promisify(execFile)(kubectlPath!, ['--kubeconfig', cluster.kubeconfigPath, 'delete', 'pod', '-n', 'e2e', 'doomed', '--wait=false'], { encoding: 'utf8' }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    assert.notEqual(result.code, 0);
    assert.match(
      result.stderr,
      /admission webhook "validating-pod\.apps\.kusionstack\.io" denied the request: failed to validate GraceDeleteWebhook, pod deletion process is underway and being managed by PodOpsLifecycle with finalizers: \[prot\.podopslifecycle\.kusionstack\.io\/[0-9a-f]{16}\]/,
    );
    await until(() => client.get(PODS, 'e2e', 'doomed').then(() => false, () => true), Boolean, 'the pod to be deleted');
    const changes = cluster.loadBalancer.history.filter((h) => h.pod === 'doomed');
    assert.equal(changes.at(-1)?.change, 'deregister', 'deregistered before it went away');
    const deletedAt = cluster.sandbox.history!.records('pods').find((r) => r.name === 'doomed' && r.type === 'DELETED')!.time;
    assert.ok(changes.at(-1)!.at <= deletedAt);
  });

  test('a Deployment scale-in and a rolling update never remove a pod the load balancer still routes to', async () => {
    const { client } = cluster;
    await serviceNamespace(cluster, 'rollout');
    await client.create(DEPLOYMENTS, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'rollout' },
      spec: {
        replicas: 4,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web', 'kusionstack.io/control': 'true' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
      },
    });
    // Settled: exactly `count` pods, all on `image` and in service, and no old pod still terminating.
    const allAvailable = async (count: number, image: string): Promise<boolean> => {
      const pods = (await client.list<Pod>(PODS, { namespace: 'rollout' })).items;
      return pods.length === count && pods.every((p) => p.metadata.deletionTimestamp == null && isServiceAvailable(p) && JSON.stringify(p.spec).includes(image));
    };
    await until(() => allAvailable(4, 'nginx:1.27'), Boolean, '4 pods available', 30_000);
    await client.patch(DEPLOYMENTS, 'rollout', 'web', 'merge', { spec: { replicas: 2 } });
    await until(() => allAvailable(2, 'nginx:1.27'), Boolean, 'scaled in to 2', 30_000);
    await client.patch(DEPLOYMENTS, 'rollout', 'web', 'strategic', { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } });
    await until(() => allAvailable(2, 'nginx:1.28'), Boolean, 'rolled out', 60_000);

    // Over everything that happened: every removed pod left through GraceDelete's pod-delete lifecycle, and
    // the load balancer no longer routed to it when it was marked for deletion (the first write with a
    // deletionTimestamp, or the deletion itself when there was none).
    const records = cluster.sandbox.history!.records('pods').filter((r) => r.namespace === 'rollout');
    const removed = [...new Set(records.filter((r) => r.type === 'DELETED').map((r) => r.name))];
    assert.ok(removed.length >= 4, `pods were removed (${removed.length})`);
    for (const name of removed) {
      const deletion = records.find((r) => r.name === name && (r.type === 'DELETED' || (r.object as unknown as Pod).metadata.deletionTimestamp != null))!;
      const labels = (deletion.object as unknown as Pod).metadata.labels ?? {};
      assert.ok(labels[TO_DELETE_LABEL] !== undefined, `${name} was labelled ${TO_DELETE_LABEL} by GraceDelete`);
      assert.equal(labels[idLabelKey('operation-type', POD_DELETE_LIFECYCLE_ID)], OPERATION_TYPE_DELETE, `${name} was in a pod-delete lifecycle of type delete`);
      assert.ok(labels[idLabelKey('operate', POD_DELETE_LIFECYCLE_ID)] !== undefined, `${name} was deleted only once its pod-delete lifecycle allowed it`);
      const last = cluster.loadBalancer.history.filter((h) => h.pod === name && h.at <= deletion.time).at(-1);
      assert.notEqual(last?.change, 'register', `${name} was registered in the load balancer when it was marked for deletion`);
    }
  });
});
