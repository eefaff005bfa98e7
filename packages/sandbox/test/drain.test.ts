// `kubectl drain` and `kubectl uncordon` end to end, kubectl as the client of the simulated cluster:
// the cordon patch, the pod list by node, DaemonSet pods left alone, evictions retried on 429 until
// the disruption controller's budget allows them (never more than one pod of the Deployment
// unavailable, checked over the write log), replacements on the other nodes; then the deleting path
// (`--disable-eviction`, `--force`, `--delete-emptydir-data`) and a `--timeout` that runs out.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';
import type { Json } from './workloads.ts';

let h: Harness;
const ns = 'drain';

before(async () => {
  h = await startHarness({ recordWrites: true, simulation: { nodes: 3, kubelet: { startDelayMs: 100, gracePeriodCapMs: 200, leaseRenewIntervalMs: 0 } } });
  await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
});
after(() => h.stop());

const apply = async (manifest: Json): Promise<void> => {
  const res = await h.kubectl(['apply', '-f', '-'], JSON.stringify(manifest));
  assert.equal(res.code, 0, res.stderr);
};
const workload = (kind: 'Deployment' | 'DaemonSet', name: string, spec: Json = {}, podSpec: Json = {}): Json => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name, namespace: ns },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...podSpec } },
    ...spec,
  },
});
const pods = async (selector: string): Promise<Json[]> => (await h.http('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`)).json.items;
const isReady = (pod: Json): boolean => !pod.metadata.deletionTimestamp && Boolean(pod.status?.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True'));
const readyOn = (all: Json[]): Record<string, number> => {
  const count: Record<string, number> = {};
  for (const pod of all.filter(isReady)) count[pod.spec.nodeName] = (count[pod.spec.nodeName] ?? 0) + 1;
  return count;
};
const getNode = async (name: string): Promise<Json> => (await h.http('GET', `/api/v1/nodes/${name}`)).json;

describe('kubectl drain and uncordon', { skip: skipWithoutKubectl }, () => {
  test('a node with pods of a Deployment under maxUnavailable 1 drains one pod at a time; uncordon schedules again', async () => {
    await apply(workload('DaemonSet', 'agent'));
    // The agents run everywhere before the Deployment spreads its pods evenly (two per node).
    await eventually(async () => ((await pods('app=agent')).filter(isReady).length === 3 ? true : undefined), 10_000);
    await apply(workload('Deployment', 'web', { replicas: 6 }));
    await apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: ns }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } } });
    await eventually(async () => {
      const pdb = (await h.http('GET', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`)).json;
      return pdb.status?.currentHealthy === 6 && pdb.status.disruptionsAllowed === 1 ? pdb : undefined;
    }, 10_000);
    const before = await pods('app=web');
    const onNode = before.filter((p) => p.spec.nodeName === 'node-1').map((p) => p.metadata.name as string);
    assert.equal(onNode.length, 2, JSON.stringify(readyOn(before)));
    const [agentOnNode] = (await pods('app=agent')).filter((p) => p.spec.nodeName === 'node-1');
    const startRv = h.sandbox.resourceVersion;

    const drain = await h.kubectl(['drain', 'node-1', '--ignore-daemonsets', '--timeout=60s', '-v=6'], undefined, 60_000);
    assert.equal(drain.code, 0, drain.stderr);
    assert.match(drain.stdout, /^node\/node-1 cordoned$/m);
    assert.match(drain.stdout, /^node\/node-1 drained$/m);
    for (const name of onNode) assert.match(drain.stdout, new RegExp(`^pod/${name} evicted$`, 'm'));
    assert.match(drain.stderr, new RegExp(`Warning: ignoring DaemonSet-managed Pods: ${ns}/${agentOnNode.metadata.name}`));
    // Both evictions start together: the budget lets one through and the other is retried.
    assert.match(drain.stderr, new RegExp(`error when evicting pods/"web-[^"]+" -n "${ns}" \\(will retry after 5s\\): Cannot evict pod as it would violate the pod's disruption budget\\.`));
    // The requests kubectl made, and the answers it got (-v=6 logs each).
    const requests = [...drain.stderr.matchAll(/round_trippers\.go:\d+\] (\w+ \S+) (\d{3})/g)].map((m) => `${m[1]?.replace(/^(\w+) https?:\/\/[^/]+/, '$1 ')} ${m[2]}`);
    for (const expected of [
      'GET /api/v1/nodes/node-1 200',
      'PATCH /api/v1/nodes/node-1 200',
      'GET /api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1&limit=500 200',
      `GET /apis/apps/v1/namespaces/${ns}/daemonsets/agent 200`,
      'GET /api/v1 200',
      `POST /api/v1/namespaces/${ns}/pods/${onNode[0]}/eviction 201`,
      `POST /api/v1/namespaces/${ns}/pods/${onNode[1]}/eviction 201`,
      `GET /api/v1/namespaces/${ns}/pods/${onNode[0]} 404`,
      `GET /api/v1/namespaces/${ns}/pods/${onNode[1]} 404`,
    ]) {
      assert.ok(requests.includes(expected), `${expected} in\n${requests.join('\n')}`);
    }
    assert.ok(requests.some((r) => /\/eviction 429$/.test(r)));

    // Over every write since the drain began: never more than one pod of the Deployment unavailable,
    // and no pod bound to the cordoned node.
    const state = new Map<string, Json>(before.map((p) => [p.metadata.name, p]));
    let worst = 0;
    for (const record of h.sandbox.history?.records('pods') ?? []) {
      if (record.resourceVersion <= startRv || record.namespace !== ns || (record.object.metadata.labels as Json)?.app !== 'web') continue;
      if (record.type === 'DELETED') state.delete(record.name);
      else state.set(record.name, record.object);
      const pod = record.object as Json;
      if (!before.some((p) => p.metadata.name === record.name)) assert.notEqual(pod.spec.nodeName, 'node-1', `${record.name} was bound to the cordoned node`);
      worst = Math.max(worst, 6 - [...state.values()].filter(isReady).length);
    }
    assert.equal(worst, 1);
    for (const name of onNode) {
      const evicted = h.sandbox.history?.records('pods').find((r) => r.name === name && (r.object.status as Json).conditions?.some((c: Json) => c.type === 'DisruptionTarget'));
      assert.equal((evicted?.object.status as Json).conditions.find((c: Json) => c.type === 'DisruptionTarget').reason, 'EvictionByEvictionAPI');
    }
    const after = await eventually(async () => {
      const all = await pods('app=web');
      return all.filter(isReady).length === 6 ? all : undefined;
    }, 10_000);
    assert.equal(readyOn(after)['node-1'], undefined);
    assert.equal((await getNode('node-1')).spec.unschedulable, true);
    assert.ok((await pods('app=agent')).some((p) => p.metadata.name === agentOnNode.metadata.name), 'the DaemonSet pod stays');

    const uncordon = await h.kubectl(['uncordon', 'node-1']);
    assert.equal(uncordon.code, 0, uncordon.stderr);
    assert.equal(uncordon.stdout, 'node/node-1 uncordoned\n');
    assert.equal((await getNode('node-1')).spec.unschedulable, undefined);
    const scaled = await h.kubectl(['scale', 'deployment/web', '--replicas=9', '-n', ns]);
    assert.equal(scaled.code, 0, scaled.stderr);
    await eventually(async () => ((readyOn(await pods('app=web'))['node-1'] ?? 0) > 0 ? true : undefined), 10_000);
  });

  test('--disable-eviction deletes; --force and --delete-emptydir-data admit unmanaged and emptyDir pods; --timeout ends a blocked drain', async () => {
    await apply(workload('Deployment', 'cache', { replicas: 1 }, { nodeSelector: { 'kubernetes.io/hostname': 'node-2' }, volumes: [{ name: 'scratch', emptyDir: {} }] }));
    await apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'loner', namespace: ns }, spec: { nodeName: 'node-2', containers: [{ name: 'c', image: 'nginx' }] } });
    await eventually(async () => ((await pods('app=cache')).some(isReady) ? true : undefined), 10_000);

    const refused = await h.kubectl(['drain', 'node-2', '--ignore-daemonsets']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /cannot delete Pods with local storage \(use --delete-emptydir-data to override\): drain\/cache-/);
    assert.match(refused.stderr, /cannot delete Pods that declare no controller \(use --force to override\): drain\/loner/);

    const deleted = await h.kubectl(['drain', 'node-2', '--ignore-daemonsets', '--force', '--delete-emptydir-data', '--disable-eviction', '--grace-period=1', '-v=6'], undefined, 60_000);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /^pod\/loner deleted$/m);
    assert.match(deleted.stderr, /DELETE \S+\/api\/v1\/namespaces\/drain\/pods\/loner 200/);
    assert.doesNotMatch(deleted.stderr, /\/eviction /);
    const loner = h.sandbox.history?.records('pods').find((r) => r.name === 'loner' && r.object.metadata.deletionTimestamp);
    assert.equal(loner?.object.metadata.deletionGracePeriodSeconds, 1);

    await apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: ns }, spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'web' } } } });
    await eventually(async () => ((await h.http('GET', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`)).json.status?.observedGeneration === 2 ? true : undefined));
    const blocked = await h.kubectl(['drain', 'node-3', '--ignore-daemonsets', '--timeout=3s'], undefined, 30_000);
    assert.equal(blocked.code, 1);
    assert.match(blocked.stderr, /error when evicting pods\/"web-[^"]+" -n "drain": global timeout reached: 3s/);
  });
});
