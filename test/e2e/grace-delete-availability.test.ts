// GraceDelete changes how a pod leaves, never how many: rolling updates and scale-ins of controlled
// Deployments through kubectl, each strategy without and with a PodTransitionRule (the two side by side, in
// namespaces of their own), on the sandbox and on a real control plane (kube-controller-manager's Deployment and
// ReplicaSet controllers), replayed write by write from the watches' history (every state the pods and
// ReplicaSets went through, not samples): the pods in service never fall below `replicas - maxUnavailable`, the
// pods not terminating never exceed `replicas + maxSurge`, no ReplicaSet ever has more pods leaving than its
// scale-down asks (pods beyond its replicas), and exactly the expected pods are created and deleted. A user's
// `kubectl delete pod` still goes through, gracefully; and a scale-in or a StatefulSet's scale-in undone while
// its pod is held brings the pod back.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { POD_DELETE_LIFECYCLE_ID, SERVICE_READY_GATE, TO_DELETE_LABEL, idLabelKey } from '../../src/api/protocol.ts';
import type { KubeObject } from '../../src/kube/client.ts';
import { DEPLOYMENTS, PODS, PODTRANSITIONRULES, STATEFULSETS } from '../../src/kube/resources.ts';
import { isPodReady } from '../../src/lifecycle/pod.ts';
import { resolveIntOrPercent } from '../../src/api/kube.ts';
import { kubectlPath, skipWithoutKubectl } from '../support/kubectl.ts';
import { until } from '../support/wait.ts';
import { backends } from '../support/backends.ts';
import { deploymentManifest, isServiceAvailable, lifecycleLabels, serviceNamespace, startClusterOn, type Cluster } from './harness.ts';

const run = promisify(execFile);

interface Strategy {
  replicas: number;
  maxSurge: number | string;
  maxUnavailable: number | string;
}

interface Setup extends Strategy {
  /** A PodTransitionRule letting at most one pod out of service at a time. */
  budget?: boolean;
}

const image = (pod: Pod): string | undefined => (pod.spec?.containers as { image?: string }[] | undefined)?.[0]?.image;
const inService = (pod: Pod): boolean => !pod.metadata.deletionTimestamp && isPodReady(pod);
const active = (pod: Pod): boolean => !pod.metadata.deletionTimestamp && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';
/** Leaving: its pod-delete lifecycle has begun (a mark alone leaves the pod in service). */
const leaving = (pod: Pod): boolean => active(pod) && pod.metadata.labels?.[idLabelKey('operation-type', POD_DELETE_LIFECYCLE_ID)] !== undefined;
const ownerOf = (pod: Pod): string => pod.metadata.ownerReferences?.[0]?.name ?? '';

/** Pods leaving beyond what their ReplicaSets' scale-downs ask (active pods beyond replicas). */
function leavingBeyondScaleDown(pods: Iterable<Pod>, replicas: ReadonlyMap<string, number>): number {
  const byOwner = new Map<string, Pod[]>();
  for (const pod of pods) byOwner.set(ownerOf(pod), [...(byOwner.get(ownerOf(pod)) ?? []), pod]);
  let beyond = 0;
  for (const [owner, owned] of byOwner) {
    const asked = Math.max(0, owned.filter(active).length - (replicas.get(owner) ?? 0));
    beyond += Math.max(0, owned.filter(leaving).length - asked);
  }
  return beyond;
}

for (const backend of backends) describe(`GraceDelete never costs extra availability on the ${backend.name}`, { skip: backend.skip || skipWithoutKubectl }, () => {
  let cluster: Cluster;
  let namespaces = 0;
  before(async () => {
    // Containers take a moment to start, as on a real node, so refused deletes and new pods interleave.
    cluster = await startClusterOn(backend, { startDelayMs: 150, nodes: 4 });
  });
  after(() => cluster.stop());

  const kubectl = (...args: string[]) => run(kubectlPath!, ['--kubeconfig', cluster.kubeconfigPath, ...args]);

  async function deployment({ replicas, maxSurge, maxUnavailable, budget }: Setup): Promise<string> {
    const namespace = `grace-${++namespaces}`;
    await serviceNamespace(cluster, namespace);
    if (budget) {
      await cluster.client.create(PODTRANSITIONRULES, {
        apiVersion: 'apps.kusionstack.io/v1alpha1',
        kind: 'PodTransitionRule',
        metadata: { name: 'budget', namespace },
        spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'one-at-a-time', availablePolicy: { maxUnavailableValue: 1 } }] },
      } as KubeObject);
    }
    await cluster.client.create(DEPLOYMENTS, deploymentManifest(namespace, 'web', { replicas, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } } }));
    await settled(namespace, replicas, 'nginx:1.27');
    return namespace;
  }

  /** Exactly `count` pods, all running `tag`, in service, and nothing else left (not even terminating). */
  async function settled(namespace: string, count: number, tag: string): Promise<void> {
    await until(
      async () => (await cluster.client.list<Pod>(PODS, { namespace })).items,
      (pods) => pods.length === count && pods.every((p) => inService(p) && image(p) === tag && p.metadata.labels?.[TO_DELETE_LABEL] === undefined),
      `${count} pods of ${tag} in service in ${namespace}`,
      60_000,
    );
  }

  /** Runs `change` and replays every pod and ReplicaSet write of the namespace during it. */
  async function observe(namespace: string, change: () => Promise<void>) {
    const start = await cluster.history.resourceVersion();
    await change();
    const pods = new Map<string, Pod>();
    const replicas = new Map<string, number>();
    let minInService = Infinity;
    let maxLeavingBeyond = 0;
    let maxActive = 0;
    let created = 0;
    let deleted = 0;
    for (const record of await cluster.history.records({ namespace })) {
      if (record.resource === 'replicasets.apps') replicas.set(record.name, (record.object.spec as { replicas?: number }).replicas ?? 0);
      if (record.resource !== 'pods') continue;
      if (record.type === 'DELETED') pods.delete(record.name);
      else pods.set(record.name, record.object as unknown as Pod);
      if (record.resourceVersion <= start) continue;
      if (record.type === 'ADDED') created++;
      if (record.type === 'DELETED') deleted++;
      minInService = Math.min(minInService, [...pods.values()].filter(inService).length);
      maxActive = Math.max(maxActive, [...pods.values()].filter(active).length);
      maxLeavingBeyond = Math.max(maxLeavingBeyond, leavingBeyondScaleDown(pods.values(), replicas));
    }
    return { minInService, maxActive, maxLeavingBeyond, created, deleted };
  }

  const strategies: Strategy[] = [
    { replicas: 3, maxSurge: 1, maxUnavailable: 0 },
    { replicas: 4, maxSurge: 0, maxUnavailable: 1 },
    { replicas: 5, maxSurge: '25%', maxUnavailable: '25%' },
    { replicas: 4, maxSurge: 1, maxUnavailable: 1 },
  ];
  for (const strategy of strategies) {
    const { replicas } = strategy;
    const unavailable = resolveIntOrPercent(strategy.maxUnavailable, replicas, false, '25%');
    const surge = resolveIntOrPercent(strategy.maxSurge, replicas, true, '25%');
    describe(`replicas ${replicas}, maxSurge ${strategy.maxSurge}, maxUnavailable ${strategy.maxUnavailable}`, { concurrency: true }, () => {
      for (const setup of [strategy, { ...strategy, budget: true }] as Setup[]) {
        const how = setup.budget ? 'a PodTransitionRule budget of 1' : 'no PodTransitionRule';
        test(`${how}: kubectl set image, then kubectl scale in by 2`, async () => {
          const namespace = await deployment(setup);

          const update = await observe(namespace, async () => {
            await kubectl('set', 'image', 'deployment/web', 'web=nginx:1.28', '-n', namespace);
            await settled(namespace, replicas, 'nginx:1.28');
          });
          assert.ok(update.minInService >= replicas - unavailable, `in service never below ${replicas - unavailable}: ${JSON.stringify(update)}`);
          assert.ok(update.maxActive <= replicas + surge, `never more than ${replicas + surge} pods: ${JSON.stringify(update)}`);
          assert.equal(update.maxLeavingBeyond, 0, `never more pods leaving than a scale-down asks: ${JSON.stringify(update)}`);
          assert.equal(update.created, replicas, `exactly ${replicas} new pods: ${JSON.stringify(update)}`);
          assert.equal(update.deleted, replicas, `exactly the ${replicas} old pods deleted: ${JSON.stringify(update)}`);

          const scaleIn = await observe(namespace, async () => {
            await kubectl('scale', 'deployment/web', `--replicas=${replicas - 2}`, '-n', namespace);
            await settled(namespace, replicas - 2, 'nginx:1.28');
          });
          assert.ok(scaleIn.minInService >= replicas - 2, `in service never below ${replicas - 2}: ${JSON.stringify(scaleIn)}`);
          assert.deepEqual([scaleIn.created, scaleIn.deleted, scaleIn.maxLeavingBeyond], [0, 2, 0], `a scale-in by 2 removes exactly 2 pods: ${JSON.stringify(scaleIn)}`);
        });
      }
    });
  }

  test("a user's kubectl delete pod: the pod leaves through its pod-delete lifecycle and is replaced, one for one", async () => {
    const namespace = await deployment({ replicas: 3, maxSurge: 1, maxUnavailable: 0 });
    const [victim] = (await cluster.client.list<Pod>(PODS, { namespace })).items;
    const name = victim!.metadata.name!;
    await until(() => cluster.loadBalancer.isRegistered(`${namespace}/web`, name), Boolean, `${name} in the load balancer`);
    let refusal = '';
    const result = await observe(namespace, async () => {
      await kubectl('delete', 'pod', name, '-n', namespace).catch((err: { stderr?: string }) => (refusal = err.stderr ?? ''));
      await until(async () => (await cluster.client.list<Pod>(PODS, { namespace })).items, (pods) => !pods.some((p) => p.metadata.name === name), `${name} gone`, 30_000);
      await settled(namespace, 3, 'nginx:1.27');
    });
    assert.match(refusal, /admission webhook "validating-pod\.apps\.kusionstack\.io" denied the request: failed to validate GraceDeleteWebhook, pod deletion process is underway and being managed by PodOpsLifecycle/);
    assert.deepEqual([result.created, result.deleted], [1, 1], `one pod deleted, one created: ${JSON.stringify(result)}`);
    assert.ok(result.maxActive <= 3, `never more than the 3 replicas: ${JSON.stringify(result)}`);
    assert.ok(result.minInService >= 2, `only the deleted pod left service: ${JSON.stringify(result)}`);
    const writes = await cluster.history.records({ namespace, resource: 'pods', name });
    assert.ok(writes.some((r) => r.object.metadata.labels?.[idLabelKey('operation-type', POD_DELETE_LIFECYCLE_ID)] === 'delete'), 'it went through the pod-delete lifecycle');
    const deletedAt = writes.find((r) => r.type === 'DELETED' || r.object.metadata.deletionTimestamp)!.time;
    assert.equal(cluster.loadBalancer.history.filter((h) => h.pod === name && h.at <= deletedAt).at(-1)?.change, 'deregister', 'out of traffic before it was deleted');
  });

  /** A rule that keeps a leaving pod in its PreCheck until it is labelled may-leave=yes. */
  async function holdPreCheck(namespace: string): Promise<void> {
    await cluster.client.create(PODTRANSITIONRULES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'hold', namespace },
      spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'hold', stage: 'PreCheck', labelCheck: { requires: { matchLabels: { 'may-leave': 'yes' } } } }] },
    } as KubeObject);
  }

  test('a scale-in undone before its pods are deleted brings them back instead of replacing them', async () => {
    const namespace = await deployment({ replicas: 3, maxSurge: 1, maxUnavailable: 0 });
    // Keeps the leaving pod in its checks long enough for the scale-up to arrive.
    await holdPreCheck(namespace);
    const result = await observe(namespace, async () => {
      await kubectl('scale', 'deployment/web', '--replicas=2', '-n', namespace);
      await until(async () => (await cluster.client.list<Pod>(PODS, { namespace })).items, (pods) => pods.some((p) => p.metadata.labels?.[TO_DELETE_LABEL] !== undefined), 'a pod marked for the scale-in');
      await kubectl('scale', 'deployment/web', '--replicas=3', '-n', namespace);
      await settled(namespace, 3, 'nginx:1.27');
    });
    assert.deepEqual([result.created, result.deleted], [0, 0], `the marked pod came back: ${JSON.stringify(result)}`);
    assert.ok(result.minInService >= 2);
  });

  test('a StatefulSet scaled back up before its pod leaves keeps the pod: it never leaves traffic and is not deleted', async () => {
    const namespace = `grace-${++namespaces}`;
    await serviceNamespace(cluster, namespace);
    await holdPreCheck(namespace);
    await cluster.client.create(STATEFULSETS, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace },
      spec: {
        replicas: 3,
        serviceName: 'web',
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web', 'kusionstack.io/control': 'true' } }, spec: { containers: [{ name: 'db', image: 'nginx:1.27' }] } },
      },
    });
    await settled(namespace, 3, 'nginx:1.27');
    const service = `${namespace}/web`;
    await until(() => cluster.loadBalancer.isRegistered(service, 'db-2'), Boolean, 'db-2 in the load balancer');
    const start = await cluster.history.resourceVersion();
    const traffic = cluster.loadBalancer.history.length;
    const db2 = () => cluster.client.get<Pod>(PODS, namespace, 'db-2');

    await kubectl('scale', 'statefulset/db', '--replicas=2', '-n', namespace);
    await until(db2, (p) => p.metadata.labels?.[idLabelKey('operating', POD_DELETE_LIFECYCLE_ID)] !== undefined, 'db-2 held in the PreCheck of its pod-delete lifecycle');
    await kubectl('scale', 'statefulset/db', '--replicas=3', '-n', namespace);
    await until(db2, (p) => p.metadata.labels?.[TO_DELETE_LABEL] === undefined && lifecycleLabels(p).length === 0, 'db-2 kept by its StatefulSet');
    // Releasing the hold lets nothing go: nothing asks for db-2's deletion any more.
    await kubectl('label', 'pod', 'db-2', 'may-leave=yes', '-n', namespace);
    await until(db2, isServiceAvailable, 'db-2 in service');

    const writes = await cluster.history.records({ namespace, resource: 'pods', name: 'db-2', after: start });
    assert.ok(
      writes.every((r) => r.type !== 'DELETED' && !r.object.metadata.deletionTimestamp),
      'db-2 was never deleted',
    );
    assert.ok(
      writes.every((r) => (r.object as unknown as Pod).status?.conditions?.find((c) => c.type === SERVICE_READY_GATE)?.status !== 'False'),
      'db-2 never had its traffic turned off',
    );
    assert.deepEqual(cluster.loadBalancer.history.slice(traffic).filter((change) => change.pod === 'db-2'), [], 'the load balancer never deregistered db-2');
  });
});
