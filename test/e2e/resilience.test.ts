// The operator killed at random moments during 50 concurrent lifecycles, two replicas with leader election,
// and a graceful shutdown that hands the lease over at once.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { SERVICE_READY_GATE } from '../../src/api/protocol.ts';
import { CERT_SECRET, OPERATOR_NAMESPACE, registerWebhooks } from '../../src/cli/local-stack.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../src/kube/client.ts';
import { nowNanos } from '../../src/kube/clock.ts';
import { LEASES, MUTATING_WEBHOOK_CONFIGURATIONS, PODS, SECRETS, VALIDATING_WEBHOOK_CONFIGURATIONS } from '../../src/kube/resources.ts';
import { WEBHOOK_NAMES } from '../../src/operator/webhook-configuration.ts';
import { podWriterFor } from '../../src/sdk/kube-writer.ts';
import { OperationClient } from '../../src/sdk/operation-client.ts';
import { allowOps, begin, finish, isDuringOps, type LifecycleAdapter } from '../../src/sdk/operation.ts';
import { writePod } from '../../src/sdk/write-pod.ts';
import { checkStoredState } from '../support/invariants.ts';
import { open, targetOf } from '../support/hostile-http.ts';
import { post } from '../support/tls.ts';
import { controlledPod, getPod, isServiceAvailable, serviceNamespace, startCluster, type Cluster } from './harness.ts';
import { sleep, until } from '../support/wait.ts';
import { clusterWithOperatorProcess, startOperatorProcess, type LeaseTimings, type OperatorProcess } from './operator-process.ts';

const adapter: LifecycleAdapter = { id: 'chaos', type: 'update', allowMultiType: false };
const random = (min: number, max: number): number => min + Math.random() * (max - min);

describe('operator killed with SIGKILL during 50 concurrent lifecycles', () => {
  const stack = clusterWithOperatorProcess();

  test('every lifecycle completes and no protocol invariant is broken in the sandbox history', async () => {
    const { cluster } = stack;
    const { client } = cluster;
    await serviceNamespace(cluster, 'chaos');
    const names = Array.from({ length: 50 }, (_, i) => `chaos-${i}`);
    for (const name of names) await client.create(PODS, controlledPod('chaos', name));
    const allPods = async (): Promise<Pod[]> => (await client.list<Pod>(PODS, { namespace: 'chaos' })).items;
    await until(allPods, (pods) => pods.length === 50 && pods.every(isServiceAvailable), '50 pods service-available', 180_000);

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
              await writePod(client, pod, begin(adapter, pod, now).pod);
              begun.add(name);
            } else if (!finished.has(name) && isDuringOps(adapter, pod) && allowOps(adapter, 0, pod, now).allowed) {
              await writePod(client, pod, finish(adapter, pod, now).pod);
              finished.add(name);
            }
          } catch {
            // the webhook is down or the pod moved on: next round
          }
        }
        await sleep(50);
      }
    })();

    try {
      for (let kill = 0; kill < 4; kill++) {
        await sleep(random(300, 1500));
        await stack.operator.kill();
        await sleep(random(100, 800));
        await stack.relaunch();
      }
      await until(() => finished.size, (n) => n === 50, 'all 50 operations finished', 180_000);
    } finally {
      // Also when the test fails: a loop left running would keep this file's process alive for ever.
      operating = false;
      await operate;
    }
    await until(allPods, (pods) => pods.length === 50 && pods.every(isServiceAvailable), 'all 50 lifecycles to complete', 180_000);

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
    first = await startOperatorProcess(cluster.kubeconfigPath, { leaderElect: true });
    await first.ready();
    await until(() => leading(first), (v) => v === 1, 'the first replica to lead');
    second = await startOperatorProcess(cluster.kubeconfigPath, { leaderElect: true });
    await second.ready();
    await sleep(500);
    assert.equal(await leading(second), 0, 'the second replica stands by');

    // Both serve webhooks: each answers an AdmissionReview itself, with the certificate both share.
    const ca = await webhookCA(cluster.client);
    for (const [role, replica] of [['leader', first], ['standby', second]] as const) {
      assert.deepEqual(await mutatePodCreate(replica, ca, controlledPod('ha', 'reviewed')), [{ op: 'add', path: '/spec/readinessGates', value: [{ conditionType: SERVICE_READY_GATE }] }], `the ${role} mutates a pod CREATE`);
    }
    // And a pod written through the sandbox goes through whichever replica the configurations name.
    for (const [name, replica] of [['via-leader', first], ['via-standby', second]] as const) {
      await pointWebhooksAt(cluster.client, replica);
      const answered = await mutations(replica);
      await cluster.client.create(PODS, controlledPod('ha', name));
      assert.ok((await mutations(replica)) > answered, `${name}: the registered replica answered the pod's CREATE`);
      const created = await until(() => getPod(cluster, 'ha', name), isServiceAvailable, `${name} reconciled by the first replica`);
      assert.deepEqual(created.spec?.readinessGates, [{ conditionType: SERVICE_READY_GATE }]);
    }

    await first.kill();
    await until(() => leading(second), (v) => v === 1, 'the second replica to take over');
    await cluster.client.create(PODS, controlledPod('ha', 'after'));
    await until(() => getPod(cluster, 'ha', 'after'), isServiceAvailable, 'a pod reconciled by the new leader');
    const ops = new OperationClient(podWriterFor(cluster.client));
    await ops.begin(adapter, await getPod(cluster, 'ha', 'after'));
    const allowed = await until(() => getPod(cluster, 'ha', 'after'), (p) => allowOps(adapter, 0, p, nowNanos()).allowed, 'a lifecycle under the new leader');
    await ops.finish(adapter, allowed);
    await until(() => getPod(cluster, 'ha', 'after'), isServiceAvailable, 'the lifecycle to end');
  });
});

describe('graceful shutdown on SIGTERM', () => {
  let cluster: Cluster;
  let leader: OperatorProcess | undefined;
  let standby: OperatorProcess | undefined;
  before(async () => {
    cluster = await startCluster({ operator: 'external' });
  });
  after(async () => {
    await Promise.all([leader?.kill(), standby?.kill()]);
    await cluster.stop();
  });

  test('the leader exits 0 at once and releases its Lease, so the standby leads without waiting for it to expire', async () => {
    // A lease far longer than this test waits: the standby can only lead in time if the lease is released.
    const slow: LeaseTimings = { leaseDuration: '60s', renewDeadline: '40s', retryPeriod: '200ms' };
    const current = leader = await startOperatorProcess(cluster.kubeconfigPath, { leaderElect: slow });
    await until(() => leading(current), (v) => v === 1, 'the first replica to lead');
    const leaderId = (await cluster.client.get<Lease>(LEASES, OPERATOR_NAMESPACE, LEASE_NAME)).spec?.holderIdentity;
    assert.ok(leaderId, 'the leader holds the Lease');
    const next = standby = await startOperatorProcess(cluster.kubeconfigPath, { leaderElect: slow });
    await next.ready();
    await sleep(600);
    assert.equal(await leading(next), 0, 'the standby waits while the lease is held');

    const sigterm = Date.now();
    // Well under the 25 s the operator gives its graceful shutdown: it exits, not its deadline.
    const exit = await within(current.stop(), 15_000, 'the leader to exit after SIGTERM');
    const exitedAt = Date.now();
    assert.deepEqual(exit, { code: 0, signal: null }, 'a clean exit, not a crash or a kill');
    // Well within the 60 s lease: the standby did not wait for it to expire.
    await until(() => leading(next), (v) => v === 1, 'the standby to lead', 30_000);

    const records = cluster.sandbox.history!.records('leases.coordination.k8s.io').filter((r) => r.name === LEASE_NAME);
    const specs = records.map((r) => (r.object as Lease).spec ?? {});
    const release = specs.findIndex((spec) => !spec.holderIdentity);
    assert.ok(release > 0, `the leader released the lease: ${JSON.stringify(specs.slice(-3))}`);
    assert.equal(specs[release - 1]!.holderIdentity, leaderId, 'the release replaced the leader\'s own record');
    assert.equal(specs[release]!.leaseDurationSeconds, 1);
    assert.ok(records[release]!.time >= sigterm && records[release]!.time <= exitedAt, 'released between SIGTERM and exit');
    const takeover = specs[release + 1];
    assert.ok(takeover?.holderIdentity && takeover.holderIdentity !== leaderId, 'the next write is the standby taking the lease');
    assert.equal(takeover.leaseTransitions, (specs[release]!.leaseTransitions ?? 0) + 1);
    assert.equal((await cluster.client.get<Lease>(LEASES, OPERATOR_NAMESPACE, LEASE_NAME)).spec?.holderIdentity, takeover.holderIdentity);
  });
});

describe('SIGTERM while the API server keeps its webhook connections open', () => {
  let cluster: Cluster;
  let operator: OperatorProcess | undefined;
  before(async () => {
    cluster = await startCluster({ operator: 'external' });
    await serviceNamespace(cluster, 'term');
  });
  after(async () => {
    await operator?.kill();
    await cluster.stop();
  });

  test('the operator exits within a few seconds (the server answers reviews in flight: see the webhook server tests)', async () => {
    const current = (operator = await startOperatorProcess(cluster.kubeconfigPath));
    await current.ready();
    await registerWebhooks(cluster.client, `127.0.0.1:${current.webhookPort}`);
    // The sandbox's webhook client keeps its connections alive between calls, as kube-apiserver's does.
    await cluster.client.create(PODS, controlledPod('term', 'web-0'));
    await until(() => getPod(cluster, 'term', 'web-0'), isServiceAvailable, 'web-0 reconciled');
    const ca = await webhookCA(cluster.client);
    const idle = await Promise.all(Array.from({ length: 5 }, () => open(targetOf(`127.0.0.1:${current.webhookPort}`, { ca }))));
    const exit = await within(current.stop(), 15_000, 'the operator to exit after SIGTERM');
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.ok(idle.every((socket) => socket.closed || socket.readableEnded), 'the kept-alive connections were closed by the server');
    for (const socket of idle) socket.destroy();
  });
});

const LEASE_NAME = 'podops-leader';

interface Lease extends KubeObject {
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; leaseTransitions?: number };
}

const leading = (replica: OperatorProcess) => replica.metric(`leader_election_master_status{name="${LEASE_NAME}"}`);

/** Mutating-webhook requests the replica answered with 200. */
const mutations = async (replica: OperatorProcess): Promise<number> =>
  (await replica.metric('controller_runtime_webhook_requests_total{webhook="/mutating-generic",code="200"}')) ?? 0;

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function webhookCA(client: KubeClient): Promise<string> {
  const secret = await client.get<{ data: Record<string, string> }>(SECRETS, OPERATOR_NAMESPACE, CERT_SECRET);
  return Buffer.from(secret.data['ca.crt'] ?? '', 'base64').toString('utf8');
}

/** POSTs a pod CREATE review to the replica's mutating webhook over HTTPS; returns the decoded JSON patch. */
async function mutatePodCreate(replica: OperatorProcess, ca: string, pod: KubeObject): Promise<unknown> {
  const review = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: pod.metadata.namespace,
      operation: 'CREATE',
      object: pod,
    },
  };
  const answer = await post(`127.0.0.1:${replica.webhookPort}`, '/mutating-generic', JSON.stringify(review), ca);
  assert.equal(answer.status, 200);
  const { response } = JSON.parse(answer.text) as { response: { uid: string; allowed: boolean; patch?: string } };
  assert.equal(response.uid, review.request.uid);
  assert.equal(response.allowed, true);
  return JSON.parse(Buffer.from(response.patch ?? '', 'base64').toString('utf8'));
}

/** Re-registers podops' webhook configurations so the API server calls this replica. */
async function pointWebhooksAt(client: KubeClient, replica: OperatorProcess): Promise<void> {
  await client.delete(MUTATING_WEBHOOK_CONFIGURATIONS, undefined, WEBHOOK_NAMES.mutatingConfiguration).catch(ignoreNotFound);
  await client.delete(VALIDATING_WEBHOOK_CONFIGURATIONS, undefined, WEBHOOK_NAMES.validatingConfiguration).catch(ignoreNotFound);
  await registerWebhooks(client, `127.0.0.1:${replica.webhookPort}`);
}

const ignoreNotFound = (err: unknown): void => {
  if (!isNotFound(err)) throw err;
};
