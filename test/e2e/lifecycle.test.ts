// A full PodOpsLifecycle over HTTP only, on the sandbox and on a real control plane: the operator, its webhooks,
// the simulated kubelet and the example load balancer. (The protocol's own scenarios, several lifecycles on a pod among them, are
// the conformance suite's: test/e2e/conformance.test.ts.)

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { SERVICE_AVAILABLE_LABEL, parseIdLabelKey, type IdLabelWord } from '../../src/api/protocol.ts';
import { PODS } from '../../src/kube/resources.ts';
import { protectionFinalizer } from '../../src/sdk/cooperation.ts';
import { podWriterFor } from '../../src/sdk/kube-writer.ts';
import { OperationClient } from '../../src/sdk/operation-client.ts';
import { allowOps, type LifecycleAdapter } from '../../src/sdk/operation.ts';
import { nowNanos } from '../../src/kube/clock.ts';
import { controlledPod, getPod, isServiceAvailable, lifecycleLabels, serviceNamespace, startClusterOn, type Cluster } from './harness.ts';
import { backends } from '../support/backends.ts';
import { until } from '../support/wait.ts';

for (const backend of backends) describe(`a full lifecycle on the ${backend.name}`, { skip: backend.skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startClusterOn(backend);
    await serviceNamespace(cluster, 'e2e');
  });
  after(() => cluster.stop());

  test('traffic off before operate, service-available back with the load balancer\'s finalizer, with the reference label sequence', async () => {
    const { client } = cluster;
    await client.create(PODS, controlledPod('e2e', 'web-0'));
    await until(() => getPod(cluster, 'e2e', 'web-0'), isServiceAvailable, 'web-0 service-available');
    await until(() => cluster.loadBalancer.isRegistered('e2e/web', 'web-0'), Boolean, 'web-0 in the load balancer');

    const adapter: LifecycleAdapter = { id: 'upgrade', type: 'update', allowMultiType: false };
    const ops = new OperationClient(podWriterFor(client));
    const begun = await ops.begin(adapter, await getPod(cluster, 'e2e', 'web-0'));
    assert.ok(begun.pod.metadata.labels?.['pre-check.podopslifecycle.kusionstack.io/upgrade'], 'the webhook added pre-check in the begin write');

    const operable = await until(() => getPod(cluster, 'e2e', 'web-0'), (p) => allowOps(adapter, 0, p, nowNanos()).allowed, 'AllowOps');
    assert.equal(cluster.loadBalancer.isRegistered('e2e/web', 'web-0'), false, 'out of the load balancer before operate');
    const finished = await ops.finish(adapter, operable);
    assert.ok(finished.pod.metadata.labels?.['operated.podopslifecycle.kusionstack.io/upgrade']);

    const done = await until(() => getPod(cluster, 'e2e', 'web-0'), isServiceAvailable, 'the lifecycle to end');
    await until(() => cluster.loadBalancer.isRegistered('e2e/web', 'web-0'), Boolean, 'web-0 back in the load balancer');
    assert.deepEqual(lifecycleLabels(done), []);

    const seen = (await cluster.history.records({ resource: 'pods', namespace: 'e2e', name: 'web-0' })).map((r) => r.object as unknown as Pod);
    // service-available comes back only with the load balancer's finalizer (its word that it routes to the pod),
    // in the very write that puts the finalizer back: no write of its own.
    const since = seen.findIndex((p) => p.metadata.labels?.['operating.podopslifecycle.kusionstack.io/upgrade'] !== undefined);
    const back = seen.findIndex((p, i) => i > since && p.metadata.labels?.[SERVICE_AVAILABLE_LABEL] !== undefined);
    assert.ok(since >= 0 && back > since, 'service-available again after the lifecycle');
    const finalizer = protectionFinalizer('web');
    assert.ok(seen[back]!.metadata.finalizers?.includes(finalizer), 'with the protection finalizer');
    assert.ok(!seen[back - 1]!.metadata.finalizers?.includes(finalizer), 'added in the same write');
    const order: IdLabelWord[] = ['operating', 'pre-check', 'pre-checked', 'preparing', 'operate', 'operated', 'post-check', 'post-checked', 'completing'];
    const firstSeen = order.map((word) => seen.findIndex((p) => Object.keys(p.metadata.labels ?? {}).some((k) => parseIdLabelKey(k)?.word === word)));
    assert.ok(firstSeen.every((i) => i >= 0), `every family appeared: ${JSON.stringify(Object.fromEntries(order.map((w, i) => [w, firstSeen[i]])))}`);
    for (let i = 1; i < firstSeen.length; i++) assert.ok(firstSeen[i]! >= firstSeen[i - 1]!, `${order[i]} not before ${order[i - 1]}`);
    // podops writes only its gate: the kubelet's conditions are kept (conditions merge by type).
    const types = (done.status?.conditions ?? []).map((c) => c.type).sort();
    assert.deepEqual(types, ['ContainersReady', 'Initialized', 'PodReadyToStartContainers', 'PodScheduled', 'Ready', 'pod.kusionstack.io/service-ready'].sort());

    // The operator's metrics tell the same story: each phase entered once, and how long each one took. They are
    // read off the operator's informer, which may see the last change a moment after this test's read.
    const expectedMoves = ['->PreCheck=1', 'Completing>Done=1', 'Operating>PostCheck=1', 'PostCheck>Completing=1', 'PreCheck>Preparing=1', 'Preparing>Operating=1'].sort();
    const movesNow = async () =>
      ((await cluster.operatorMetrics!.getMetricsAsJSON()).find((m) => m.name === 'podops_lifecycle_transitions_total')?.values ?? [])
        .filter((v) => v.labels.type === 'update')
        .map((v) => `${v.labels.from || '-'}>${v.labels.to}=${v.value}`)
        .sort();
    const moves = await until(movesNow, (m) => m.length >= expectedMoves.length, 'every phase change counted');
    assert.deepEqual(moves, expectedMoves);
    const metrics = await cluster.operatorMetrics!.getMetricsAsJSON();
    const values = (name: string) => metrics.find((m) => m.name === name)?.values ?? [];
    /** A histogram's observation counts. */
    const counts = (name: string) => values(name).filter((v) => (v as { metricName?: string }).metricName === `${name}_count`);
    const timed = counts('podops_lifecycle_phase_duration_seconds').filter((v) => v.labels.type === 'update');
    assert.deepEqual(timed.map((v) => `${v.labels.phase}=${v.value}`).sort(), ['Completing=1', 'Operating=1', 'PostCheck=1', 'PreCheck=1', 'Preparing=1']);
    const reviews = counts('podops_admission_review_duration_seconds').filter((v) => v.labels.kind === 'Pod/status' && v.labels.verdict === 'patched');
    assert.ok(reviews.some((v) => v.value > 0), 'the mutating webhook patched pods/status updates, and their latency was recorded');
  });
});
