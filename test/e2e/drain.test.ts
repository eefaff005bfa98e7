// `kubectl drain` made graceful: evictions of controlled pods wait for their pod-eviction lifecycle (traffic off,
// PodTransitionRules), so under a `maxUnavailableValue: 1` rule the pods of a drained node leave service one at a
// time, each deregistered from the load balancer before it is deleted, and the drain ends normally. With
// podops stopped, nodes drain as without it.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { CONTROL_LABEL, POD_EVICTION_LIFECYCLE_ID, idLabelKey } from '../../src/api/protocol.ts';
import type { KubeObject } from '../../src/kube/client.ts';
import { DEPLOYMENTS, NAMESPACES, PODS, PODTRANSITIONRULES, SERVICES } from '../../src/kube/resources.ts';
import { isPodReady } from '../../src/lifecycle/pod.ts';
import { kubectlPath, skipWithoutKubectl } from '../support/kubectl.ts';
import { until } from '../support/wait.ts';
import { serviceNamespace, startCluster, type Cluster } from './harness.ts';
import { clusterWithOperatorProcess } from './operator-process.ts';

const run = promisify(execFile);

const deployment = (namespace: string, name: string, controlled: boolean): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name, tier: 'web', ...(controlled && { 'kusionstack.io/control': 'true' }) } }, spec: { containers: [{ name, image: 'nginx:1.27' }] } },
  },
});

/** The node holding the most pods of the namespace, and its pods. */
async function busiestNode(cluster: Cluster, namespace: string): Promise<{ node: string; pods: Pod[] }> {
  const pods = (await cluster.client.list<Pod>(PODS, { namespace })).items;
  const byNode = new Map<string, Pod[]>();
  for (const pod of pods) byNode.set(pod.spec?.nodeName as string, [...(byNode.get(pod.spec?.nodeName as string) ?? []), pod]);
  const [node, onIt] = [...byNode].sort((a, b) => b[1].length - a[1].length)[0]!;
  return { node, pods: onIt };
}

describe('kubectl drain with graceful evictions', { skip: skipWithoutKubectl }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster({ startDelayMs: 150, nodes: 3 });
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
    await cluster.client.create(PODTRANSITIONRULES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'one-at-a-time', namespace },
      spec: { selector: { matchLabels: { tier: 'web' } }, rules: [{ name: 'budget', availablePolicy: { maxUnavailableValue: 1 } }] },
    } as KubeObject);
    for (const name of ['web', 'api']) await cluster.client.create(DEPLOYMENTS, deployment(namespace, name, true));
    await until(
      async () => (await cluster.client.list<Pod>(PODS, { namespace })).items,
      (pods) => pods.length === 6 && pods.every(isPodReady) && pods.every((p) => cluster.loadBalancer.isRegistered(`${namespace}/${p.metadata.labels!.app}`, p.metadata.name!)),
      'six pods in service and in the load balancer',
      30_000,
    );
    const { node, pods: drained } = await busiestNode(cluster, namespace);
    const log = cluster.sandbox.history!;
    const start = log.records().length;

    const { stdout } = await kubectl('drain', node, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=120s');
    for (const pod of drained) assert.match(stdout, new RegExp(`pod/${pod.metadata.name} evicted`));
    assert.match(stdout, new RegExp(`node/${node} drained`));

    // Replay the pods: never more than one of the rule's pods out of service at once (a pod in its eviction
    // lifecycle that left service, or one evicted and terminating).
    const pods = new Map<string, Pod>();
    let maxOut = 0;
    for (const [index, record] of log.records().entries()) {
      if (record.resource !== 'pods' || record.namespace !== namespace) continue;
      if (record.type === 'DELETED') pods.delete(record.name);
      else pods.set(record.name, record.object as unknown as Pod);
      if (index < start) continue;
      const out = [...pods.values()].filter((p) => p.metadata.labels?.[idLabelKey('operation-type', POD_EVICTION_LIFECYCLE_ID)] !== undefined && (!isPodReady(p) || p.metadata.deletionTimestamp));
      maxOut = Math.max(maxOut, out.length);
    }
    assert.equal(maxOut, 1, 'one pod out of service at a time');

    for (const pod of drained) {
      const name = pod.metadata.name!;
      const deletedAt = log.records('pods').find((r) => r.name === name && (r.type === 'DELETED' || (r.object as unknown as Pod).metadata.deletionTimestamp))!.time;
      const last = cluster.loadBalancer.history.filter((h) => h.pod === name && h.at <= deletedAt).at(-1);
      assert.equal(last?.change, 'deregister', `${name} was deregistered before it was deleted`);
    }
    await kubectl('uncordon', node);
  });
});

describe('kubectl drain with podops stopped', { skip: skipWithoutKubectl }, () => {
  const stack = clusterWithOperatorProcess({ nodes: 2 });

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
