// The operator killed at random moments during 50 concurrent lifecycles, and two replicas with leader election.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { registerWebhooks } from '../../src/cli/local-stack.ts';
import { nowNanos } from '../../src/kube/clock.ts';
import { PODS } from '../../src/kube/resources.ts';
import { podWriterFor } from '../../src/sdk/kube-writer.ts';
import { OperationClient } from '../../src/sdk/operation-client.ts';
import { allowOps, begin, finish, isDuringOps, type LifecycleAdapter } from '../../src/sdk/operation.ts';
import { patchPodMetadata } from '../../src/controllers/metadata-patch.ts';
import { checkStoredState } from '../support/invariants.ts';
import { controlledPod, getPod, isServiceAvailable, serviceNamespace, startCluster, until, type Cluster } from './harness.ts';
import { startOperatorProcess, type OperatorProcess } from './operator-process.ts';

const adapter: LifecycleAdapter = { id: 'chaos', type: 'update', allowMultiType: false };
const random = (min: number, max: number): number => min + Math.random() * (max - min);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('operator killed with SIGKILL during 50 concurrent lifecycles', () => {
  let cluster: Cluster;
  let operator: OperatorProcess;
  before(async () => {
    cluster = await startCluster({ operator: 'external' });
    operator = await startOperatorProcess(cluster.kubeconfigPath);
    await operator.ready();
    await registerWebhooks(cluster.client, `127.0.0.1:${operator.webhookPort}`);
  });
  after(async () => {
    await operator.kill();
    await cluster.stop();
  });

  test('every lifecycle completes and no protocol invariant is broken in the sandbox history', async () => {
    const { client } = cluster;
    await serviceNamespace(cluster, 'chaos');
    const names = Array.from({ length: 50 }, (_, i) => `chaos-${i}`);
    for (const name of names) await client.create(PODS, controlledPod('chaos', name));
    const allPods = async (): Promise<Pod[]> => (await client.list<Pod>(PODS, { namespace: 'chaos' })).items;
    await until(allPods, (pods) => pods.length === 50 && pods.every(isServiceAvailable), '50 pods service-available', 60_000);

    // The operation controller of the test: begin everywhere, finish each pod as soon as it is allowed. Its
    // writes fail while the operator (and so its webhooks) is down; it simply tries again.
    const begun = new Set<string>();
    const finished = new Set<string>();
    let operating = true;
    const operate = (async () => {
      while (operating) {
        for (const pod of await allPods().catch(() => [])) {
          const name = pod.metadata.name ?? '';
          const now = nowNanos();
          try {
            if (!begun.has(name)) {
              await patchPodMetadata(client, pod, begin(adapter, pod, now).pod);
              begun.add(name);
            } else if (!finished.has(name) && isDuringOps(adapter, pod) && allowOps(adapter, 0, pod, now).allowed) {
              await patchPodMetadata(client, pod, finish(adapter, pod, now).pod);
              finished.add(name);
            }
          } catch {
            // the webhook is down or the pod moved on: next round
          }
        }
        await sleep(50);
      }
    })();

    for (let kill = 0; kill < 4; kill++) {
      await sleep(random(300, 1500));
      await operator.kill();
      await sleep(random(100, 800));
      operator = await startOperatorProcess(cluster.kubeconfigPath, { webhookPort: operator.webhookPort });
      await operator.ready();
    }
    await until(() => finished.size, (n) => n === 50, 'all 50 operations finished', 90_000);
    operating = false;
    await operate;
    await until(allPods, (pods) => pods.length === 50 && pods.every(isServiceAvailable), 'all 50 lifecycles to complete', 90_000);

    const byPod = new Map<string, Pod[]>();
    for (const record of cluster.sandbox.history!.records('pods')) {
      if (record.namespace !== 'chaos' || record.type === 'DELETED') continue;
      byPod.set(record.name, [...(byPod.get(record.name) ?? []), record.object as unknown as Pod]);
    }
    let states = 0;
    for (const [name, versions] of byPod) {
      versions.forEach((after, i) => {
        try {
          checkStoredState(versions[i - 1], after);
        } catch (err) {
          throw new Error(`pod ${name}, write ${i}: ${(err as Error).message}`, { cause: err });
        }
        states++;
      });
    }
    assert.ok(states > 50 * 8, `checked ${states} stored states`);
  });
});

describe('two replicas with leader election', () => {
  let cluster: Cluster;
  let first: OperatorProcess;
  let second: OperatorProcess;
  before(async () => {
    cluster = await startCluster({ operator: 'external' });
    await serviceNamespace(cluster, 'ha');
  });
  after(async () => {
    await Promise.all([first?.kill(), second?.kill()]);
    await cluster.stop();
  });

  test('one reconciles, the other takes over when the leader is killed, both serve webhooks', async () => {
    const leading = (replica: OperatorProcess) => replica.metric('leader_election_master_status{name="podops-leader"}');
    first = await startOperatorProcess(cluster.kubeconfigPath, { leaderElect: true });
    await first.ready();
    await until(() => leading(first), (v) => v === 1, 'the first replica to lead');
    second = await startOperatorProcess(cluster.kubeconfigPath, { leaderElect: true });
    await second.ready();
    await sleep(500);
    assert.equal(await leading(second), 0, 'the second replica stands by');
    // Both serve webhooks: the second's configuration works while the first leads.
    await registerWebhooks(cluster.client, `127.0.0.1:${second.webhookPort}`);
    await cluster.client.create(PODS, controlledPod('ha', 'before'));
    await until(() => getPod(cluster, 'ha', 'before'), isServiceAvailable, 'a pod reconciled by the first replica');

    await first.kill();
    await until(() => leading(second), (v) => v === 1, 'the second replica to take over', 10_000);
    await cluster.client.create(PODS, controlledPod('ha', 'after'));
    await until(() => getPod(cluster, 'ha', 'after'), isServiceAvailable, 'a pod reconciled by the new leader');
    const ops = new OperationClient(podWriterFor(cluster.client));
    await ops.begin(adapter, await getPod(cluster, 'ha', 'after'));
    const allowed = await until(() => getPod(cluster, 'ha', 'after'), (p) => allowOps(adapter, 0, p, nowNanos()).allowed, 'a lifecycle under the new leader');
    await ops.finish(adapter, allowed);
    await until(() => getPod(cluster, 'ha', 'after'), isServiceAvailable, 'the lifecycle to end');
  });
});
