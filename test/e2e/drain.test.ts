// `kubectl drain` made graceful: evictions of controlled pods wait for their pod-eviction lifecycle (traffic off,
// PodTransitionRules), so under a `maxUnavailableValue: 1` rule the pods of a drained node leave service one at a
// time, each deregistered from the load balancer before it is deleted, and the drain ends normally; with a
// PodDisruptionBudget as well, a pod leaves service only while the budget has room for it. A drain that gives up
// while a pod is out of service leaves it so only until the eviction counts as abandoned: the pod comes back. With
// podops stopped, nodes drain as without it. Each on the sandbox and on a real control plane (kube-apiserver's
// eviction subresource and PodDisruptionBudget checks, kube-controller-manager's disruption controller).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { CONTROL_LABEL, POD_EVICTION_LIFECYCLE_ID, PROTECTION_FINALIZER_PREFIX, TO_EVICT_LABEL, idLabelKey } from '../../src/api/protocol.ts';
import type { KubeObject } from '../../src/kube/client.ts';
import { DEPLOYMENTS, EVENTS, NAMESPACES, PODDISRUPTIONBUDGETS, PODS, PODTRANSITIONRULES, SERVICES } from '../../src/kube/resources.ts';
import { isPodReady } from '../../src/lifecycle/pod.ts';
import { kubectlPath, skipWithoutKubectl } from '../support/kubectl.ts';
import { until } from '../support/wait.ts';
import { backends } from '../support/backends.ts';
import { deploymentManifest, serviceNamespace, startClusterOn, type Cluster } from './harness.ts';
import { clusterWithOperatorProcess } from './operator-process.ts';

const run = promisify(execFile);

const HOLD_FINALIZER = `${PROTECTION_FINALIZER_PREFIX}/held-by-test`;

const deployment = (namespace: string, name: string, controlled: boolean, replicas = 3): KubeObject =>
  deploymentManifest(namespace, name, { replicas, controlled, labels: { tier: 'web' } });

/** The node holding the most pods of the namespace, and its pods; of the nodes holding pods of every app in `apps`. */
async function busiestNode(cluster: Cluster, namespace: string, apps: readonly string[] = []): Promise<{ node: string; pods: Pod[] }> {
  const pods = (await cluster.client.list<Pod>(PODS, { namespace })).items;
  const byNode = new Map<string, Pod[]>();
  for (const pod of pods) byNode.set(pod.spec?.nodeName as string, [...(byNode.get(pod.spec?.nodeName as string) ?? []), pod]);
  const holdingAll = [...byNode].filter(([, onIt]) => apps.every((app) => onIt.some((p) => p.metadata.labels?.app === app)));
  assert.ok(holdingAll.length > 0, `a node holds pods of ${apps.join(' and ')}`);
  const [node, onIt] = holdingAll.sort((a, b) => b[1].length - a[1].length)[0]!;
  return { node, pods: onIt };
}

/** The most pods of the namespace out of service at once during the records after `start` (leaving for an eviction, or terminating). */
async function maxOutOfService(cluster: Cluster, namespace: string, start: number): Promise<number> {
  const pods = new Map<string, Pod>();
  let maxOut = 0;
  for (const record of await cluster.history.records({ namespace, resource: 'pods' })) {
    if (record.type === 'DELETED') pods.delete(record.name);
    else pods.set(record.name, record.object as unknown as Pod);
    if (record.resourceVersion <= start) continue;
    const out = [...pods.values()].filter((p) => p.metadata.labels?.[idLabelKey('operation-type', POD_EVICTION_LIFECYCLE_ID)] !== undefined && (!isPodReady(p) || p.metadata.deletionTimestamp));
    maxOut = Math.max(maxOut, out.length);
  }
  return maxOut;
}

/** A PodTransitionRule letting at most `max` pods of the tier out of service at a time. */
const unavailableRule = (namespace: string, max: number): KubeObject => ({
  apiVersion: 'apps.kusionstack.io/v1alpha1',
  kind: 'PodTransitionRule',
  metadata: { name: 'budget', namespace },
  spec: { selector: { matchLabels: { tier: 'web' } }, rules: [{ name: 'budget', availablePolicy: { maxUnavailableValue: max } }] },
});

for (const backend of backends) describe(`kubectl drain with graceful evictions on the ${backend.name}`, { skip: backend.skip || skipWithoutKubectl }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startClusterOn(backend, { startDelayMs: 150, nodes: 3 });
  });
  after(() => cluster.stop());
  const kubectl = (...args: string[]) => run(kubectlPath!, ['--kubeconfig', cluster.kubeconfigPath, ...args], { timeout: 150_000 });

  test('under a maxUnavailableValue: 1 rule, the pods of two Deployments leave service one at a time, each deregistered before its deletion', async () => {
    const namespace = 'drain';
    await serviceNamespace(cluster, namespace);
    await cluster.client.create(SERVICES, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'api', namespace, labels: { [CONTROL_LABEL]: 'true' } },
      spec: { selector: { app: 'api' }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    await cluster.client.create(PODTRANSITIONRULES, unavailableRule(namespace, 1));
    for (const name of ['web', 'api']) await cluster.client.create(DEPLOYMENTS, deployment(namespace, name, true));
    await until(
      async () => (await cluster.client.list<Pod>(PODS, { namespace })).items,
      (pods) => pods.length === 6 && pods.every(isPodReady) && pods.every((p) => cluster.loadBalancer.isRegistered(`${namespace}/${p.metadata.labels!.app}`, p.metadata.name!)),
      'six pods in service and in the load balancer',
      30_000,
    );
    const { node, pods: drained } = await busiestNode(cluster, namespace, ['web', 'api']);
    const start = await cluster.history.resourceVersion();

    const { stdout } = await kubectl('drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=120s');
    for (const pod of drained) assert.match(stdout, new RegExp(`pod/${pod.metadata.name} evicted`));
    assert.match(stdout, new RegExp(`node/${node} drained`));

    // Replay the pods: never more than one of the rule's pods out of service at once (a pod in its eviction
    // lifecycle that left service, or one evicted and terminating).
    assert.equal(await maxOutOfService(cluster, namespace, start), 1, 'one pod out of service at a time');

    const podRecords = await cluster.history.records({ resource: 'pods', namespace });
    for (const pod of drained) {
      const name = pod.metadata.name!;
      const deletedAt = podRecords.find((r) => r.name === name && (r.type === 'DELETED' || (r.object as unknown as Pod).metadata.deletionTimestamp))!.time;
      const last = cluster.loadBalancer.history.filter((h) => h.pod === name && h.at <= deletedAt).at(-1);
      assert.equal(last?.change, 'deregister', `${name} was deregistered before it was deleted`);
    }
    await kubectl('uncordon', node);
  });

  test('with a PodDisruptionBudget stricter than the rule, a pod leaves service only while the budget has room for it', async () => {
    const namespace = 'drain-budget';
    await serviceNamespace(cluster, namespace);
    // The rule would let two pods out at once; the budget (five pods, at least four healthy) allows one: two out
    // of service would leave neither evictable. One at a time, and the next only once the last one's replacement
    // is Ready.
    await cluster.client.create(PODTRANSITIONRULES, unavailableRule(namespace, 2));
    await cluster.client.create(PODDISRUPTIONBUDGETS, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace },
      spec: { minAvailable: 4, selector: { matchLabels: { app: 'web' } } },
    });
    await cluster.client.create(DEPLOYMENTS, deployment(namespace, 'web', true, 5));
    await until(async () => (await cluster.client.list<Pod>(PODS, { namespace })).items, (pods) => pods.length === 5 && pods.every(isPodReady), 'five pods in service', 30_000);
    const { node, pods: drained } = await busiestNode(cluster, namespace);
    assert.ok(drained.length >= 2, `the drained node holds ${drained.length} pods: two or more take turns`);
    const start = await cluster.history.resourceVersion();

    const { stdout } = await kubectl('drain', node, '--ignore-daemonsets', '--timeout=120s');
    for (const pod of drained) assert.match(stdout, new RegExp(`pod/${pod.metadata.name} evicted`));
    assert.match(stdout, new RegExp(`node/${node} drained`));

    // Replay the pods: never fewer than the budget's four Ready (not terminating), never two out at once.
    const pods = new Map<string, Pod>();
    let minReady = Infinity;
    for (const record of await cluster.history.records({ namespace, resource: 'pods' })) {
      if (record.type === 'DELETED') pods.delete(record.name);
      else pods.set(record.name, record.object as unknown as Pod);
      if (record.resourceVersion > start) minReady = Math.min(minReady, [...pods.values()].filter((p) => isPodReady(p) && !p.metadata.deletionTimestamp).length);
    }
    assert.ok(minReady >= 4, `never fewer than 4 pods Ready: ${minReady}`);
    assert.equal(await maxOutOfService(cluster, namespace, start), 1, 'one pod out of service at a time');
    await kubectl('uncordon', node);
  });
});

for (const backend of backends) describe(`an interrupted kubectl drain on the ${backend.name}`, { skip: backend.skip || skipWithoutKubectl }, () => {
  let cluster: Cluster;
  before(async () => {
    // Evictions nobody retries for 3 s are abandoned (kubectl retries every 5 s: this is for a drain that gave up).
    cluster = await startClusterOn(backend, { startDelayMs: 150, nodes: 2, evictionAbandonedAfterMs: 3000 });
  });
  after(() => cluster.stop());

  test('a pod out of service when the drain gave up returns to service once its eviction is abandoned', async () => {
    const namespace = 'interrupted';
    await serviceNamespace(cluster, namespace);
    await cluster.client.create(DEPLOYMENTS, deployment(namespace, 'web', true, 1));
    const service = `${namespace}/web`;
    const [pod] = await until(
      async () => (await cluster.client.list<Pod>(PODS, { namespace })).items,
      (pods) => pods.length === 1 && cluster.loadBalancer.isRegistered(service, pods[0]!.metadata.name!),
      'the pod in the load balancer',
      30_000,
    );
    const name = pod!.metadata.name!;
    // A cooperation controller that never lets go: the pod leaves traffic but cannot be evicted.
    const finalizers = (await cluster.client.get<Pod>(PODS, namespace, name)).metadata.finalizers;
    await cluster.client.patch(PODS, namespace, name, 'json', finalizers ? [{ op: 'add', path: '/metadata/finalizers/-', value: HOLD_FINALIZER }] : [{ op: 'add', path: '/metadata/finalizers', value: [HOLD_FINALIZER] }]);
    const traffic = cluster.loadBalancer.history.length;

    await assert.rejects(
      run(kubectlPath!, ['--kubeconfig', cluster.kubeconfigPath, 'drain', pod!.spec!.nodeName!, '--ignore-daemonsets', '--timeout=3s']),
      (err: Error & { stderr?: string }) => /Cannot evict pod yet: podops takes it out of service first/.test(err.stderr ?? ''),
    );
    const abandoned = await until(
      async () => (await cluster.client.list<KubeObject & { reason?: string; involvedObject?: { name?: string }; message?: string }>(EVENTS, { namespace })).items,
      (events) => events.some((e) => e.reason === 'EvictionAbandoned' && e.involvedObject?.name === name),
      'the EvictionAbandoned event',
      30_000,
    );
    assert.equal(abandoned.find((e) => e.reason === 'EvictionAbandoned')?.message, 'nobody retried the eviction for 3 s: the pod returns to service');
    await until(() => cluster.loadBalancer.isRegistered(service, name), Boolean, 'the pod back in the load balancer', 30_000);
    assert.deepEqual(
      cluster.loadBalancer.history.slice(traffic).filter((change) => change.pod === name).map((change) => change.change),
      ['deregister', 'register'],
      'out of traffic for the eviction, then back',
    );
    const live = await cluster.client.get<Pod>(PODS, namespace, name);
    assert.equal(live.metadata.uid, pod!.metadata.uid, 'the same pod, never evicted');
    assert.equal(live.metadata.labels?.[TO_EVICT_LABEL], undefined);
    const at = live.metadata.finalizers?.indexOf(HOLD_FINALIZER) ?? -1;
    await cluster.client.patch(PODS, namespace, name, 'json', [{ op: 'test', path: `/metadata/finalizers/${at}`, value: HOLD_FINALIZER }, { op: 'remove', path: `/metadata/finalizers/${at}` }]);
  });
});

for (const backend of backends) describe(`kubectl drain with podops stopped on the ${backend.name}`, { skip: backend.skip || skipWithoutKubectl }, () => {
  const stack = clusterWithOperatorProcess({ nodes: 2 }, backend);

  test('a node without controlled pods drains normally: the eviction webhook fails open', async () => {
    const { cluster, operator } = stack;
    await cluster.client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'plain' } });
    await cluster.client.create(DEPLOYMENTS, deployment('plain', 'plain', false));
    await until(async () => (await cluster.client.list<Pod>(PODS, { namespace: 'plain' })).items, (pods) => pods.length === 3 && pods.every(isPodReady), 'three pods', 30_000);
    await operator.kill();
    const { node } = await busiestNode(cluster, 'plain');
    const { stdout } = await run(kubectlPath!, ['--kubeconfig', cluster.kubeconfigPath, 'drain', node, '--ignore-daemonsets', '--timeout=60s'], { timeout: 90_000 });
    assert.match(stdout, new RegExp(`node/${node} drained`));
  });
});
