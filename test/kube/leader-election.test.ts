// Lease leader election against the sandbox API server, with short timings.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { LeaderElector } from '../../src/kube/leader-election.ts';
import { LEASES } from '../../src/kube/resources.ts';

const timings = { leaseDurationMs: 900, renewDeadlineMs: 600, retryPeriodMs: 100 };

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<number> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - start;
}

interface Candidate {
  elector: LeaderElector;
  leading: boolean;
  stopped: number;
  stop(): Promise<void>;
}

describe('LeaderElector', () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  const candidates: Candidate[] = [];
  before(async () => {
    sandbox = await startSandbox();
    client = KubeClient.fromKubeconfigText(sandbox.kubeconfig);
  });
  after(async () => {
    await Promise.all(candidates.map((c) => c.stop()));
    client.close();
    await sandbox.stop();
  });

  function campaign(lease: string, identity: string, releaseOnCancel = true): Candidate {
    const elector = new LeaderElector({ client, namespace: 'default', name: lease, identity, releaseOnCancel, ...timings });
    const abort = new AbortController();
    const candidate: Candidate = { elector, leading: false, stopped: 0, stop: async () => (abort.abort(), await running) };
    const running = elector.run(abort.signal, {
      onStartedLeading: () => (candidate.leading = true),
      onStoppedLeading: () => {
        candidate.leading = false;
        candidate.stopped++;
      },
    });
    candidates.push(candidate);
    return candidate;
  }

  test('defaults are client-go\'s and controller-runtime\'s: a 15 s lease, renewed every 2 s', async () => {
    const elector = new LeaderElector({ client, namespace: 'default', name: 'defaults', identity: 'solo' });
    const abort = new AbortController();
    let leading = false;
    const running = elector.run(abort.signal, { onStartedLeading: () => (leading = true), onStoppedLeading: () => (leading = false) });
    await until(() => leading, 'solo to lead');
    const lease = await client.get<{ spec: { holderIdentity: string; leaseDurationSeconds: number; renewTime: string } }>(LEASES, 'default', 'defaults');
    assert.deepEqual([lease.spec.holderIdentity, lease.spec.leaseDurationSeconds], ['solo', 15]);
    // Renewals are a retry period (2 s) apart, by the lease's own clock.
    const renewed = async (): Promise<string> => (await client.get<{ spec: { renewTime: string } }>(LEASES, 'default', 'defaults')).spec.renewTime;
    const first = await renewed();
    let next = first;
    while (next === first) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      next = await renewed();
    }
    const gap = Date.parse(next) - Date.parse(first);
    assert.ok(gap >= 1900, `renewed ${gap} ms after the previous renewal`);
    abort.abort();
    await running;
  });

  test('exactly one of two candidates leads; releasing on shutdown hands over at once', async () => {
    const a = campaign('release', 'a');
    await until(() => a.leading, 'a to lead');
    const b = campaign('release', 'b');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(b.leading, false);
    const lease = await client.get<{ spec: { holderIdentity: string; leaseDurationSeconds: number } }>(LEASES, 'default', 'release');
    assert.equal(lease.spec.holderIdentity, 'a');
    await a.stop();
    const takeover = await until(() => b.leading, 'b to take over');
    assert.ok(takeover < timings.leaseDurationMs, `took over in ${takeover} ms, before the lease would have expired`);
    const released = await client.get<{ spec: { holderIdentity: string; leaseTransitions: number } }>(LEASES, 'default', 'release');
    assert.equal(released.spec.holderIdentity, 'b');
    assert.equal(released.spec.leaseTransitions, 1);
    await b.stop();
  });

  test('a leader that dies without releasing is replaced only once its lease expires', async () => {
    const a = campaign('crash', 'a', false);
    await until(() => a.leading, 'a to lead');
    const b = campaign('crash', 'b');
    await a.stop();
    const started = Date.now();
    await until(() => b.leading, 'b to take over');
    assert.ok(Date.now() - started >= timings.leaseDurationMs - 150, 'waited for the lease to expire');
    await b.stop();
  });

  test('a leader that can no longer renew steps down', async () => {
    const a = campaign('stolen', 'a');
    await until(() => a.leading, 'a to lead');
    // Another holder takes the lease with a long duration, as a partitioned peer would after expiry.
    const lease = await client.get<{ metadata: { resourceVersion: string }; spec: object }>(LEASES, 'default', 'stolen');
    await client.replace(LEASES, { ...lease, apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { ...lease.metadata, name: 'stolen', namespace: 'default' }, spec: { ...lease.spec, holderIdentity: 'intruder', leaseDurationSeconds: 3600 } });
    await until(() => a.stopped === 1, 'a to step down');
    assert.equal(a.elector.isLeader(), false);
    await a.stop();
  });

  test('timings are checked as client-go checks them', () => {
    assert.throws(() => new LeaderElector({ client, namespace: 'default', name: 'x', identity: 'x', leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }), /leaseDuration must be greater than renewDeadline/);
  });
});
