// What podops asks of the API server during a controlled rollout (GraceDelete on, a budget rule): its reads come
// from its informer caches, so no LIST whatever the number of pods it operates on, and a GET only where the cache
// cannot know yet. Counted from podops' own podops_api_requests_total. The figures per pod and the comparison with
// Kubernetes alone are `npm run bench -- scale`'s; this test holds the rule that makes them flat.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEPLOYMENTS, PODTRANSITIONRULES } from '../../src/kube/resources.ts';
import { until } from '../support/wait.ts';
import { deploymentManifest, serviceNamespace, startCluster, type Cluster } from './harness.ts';

type Deployment = { metadata: { generation?: number }; spec: { replicas: number }; status?: Record<string, number | undefined> };
const rolledOut = (d: Deployment): boolean =>
  (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
  d.status?.updatedReplicas === d.spec.replicas &&
  d.status?.replicas === d.spec.replicas &&
  d.status?.availableReplicas === d.spec.replicas;

/**
 * The sandbox, the operator and the load balancer share this process's thread: 50 pods replaced through their
 * lifecycles: this file takes about 20 s of CPU, which a loaded machine running files side by side stretches several times.
 */
const ROLLOUT_DEADLINE_MS = 300_000;

describe("podops' requests during a controlled rollout", () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster({ nodes: 2 });
  });
  after(() => cluster.stop());

  /** podops' requests so far by `verb resource`, from its own counter. */
  const requests = async (): Promise<Map<string, number>> => {
    const metric = (await cluster.operatorMetrics!.getMetricsAsJSON()).find((m) => m.name === 'podops_api_requests_total');
    const counts = new Map<string, number>();
    for (const { labels, value } of metric?.values ?? []) {
      const key = `${labels.verb} ${labels.resource}`;
      counts.set(key, (counts.get(key) ?? 0) + value);
    }
    return counts;
  };

  /** A rollout of `pods` controlled pods; podops' requests during it, by `verb resource`. */
  async function rollout(namespace: string, pods: number): Promise<Map<string, number>> {
    const { client } = cluster;
    await serviceNamespace(cluster, namespace);
    await client.create(PODTRANSITIONRULES, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'budget', namespace },
      spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'quarter', availablePolicy: { maxUnavailableValue: '25%' } }] },
    });
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } };
    await client.create(DEPLOYMENTS, deploymentManifest(namespace, 'web', { replicas: pods, strategy }));
    await until(() => client.get<Deployment>(DEPLOYMENTS, namespace, 'web'), rolledOut, `${namespace}: ${pods} pods rolled out`, ROLLOUT_DEADLINE_MS, 50);
    const before = await requests();
    await client.patch(DEPLOYMENTS, namespace, 'web', 'merge', { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } });
    await until(() => client.get<Deployment>(DEPLOYMENTS, namespace, 'web'), rolledOut, `${namespace}: the rollout of ${pods} pods`, ROLLOUT_DEADLINE_MS, 50);
    const after = await requests();
    return new Map([...after].map(([key, n]) => [key, n - (before.get(key) ?? 0)] as [string, number]).filter(([, n]) => n > 0));
  }

  test('no LIST during a rollout of 10 pods or of 50; a GET only now and then, not one per pod', { timeout: 4 * ROLLOUT_DEADLINE_MS }, async () => {
    for (const [namespace, pods] of [['cost-10', 10], ['cost-50', 50]] as const) {
      const during = await rollout(namespace, pods);
      const described = JSON.stringify(Object.fromEntries(during));
      assert.equal([...during].filter(([key]) => key.startsWith('list ')).length, 0, `${pods} pods: no LIST (${described})`);
      const gets = [...during].filter(([key]) => key.startsWith('get ')).reduce((sum, [, n]) => sum + n, 0);
      assert.ok(gets < pods / 2, `${pods} pods: ${gets} GETs, fewer than one per two pods replaced (${described})`);
    }
  });
});
