// Lease leader election against the sandbox API server, with short timings.

import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, test, type TestContext } from 'node:test';
import { renderKubeconfig, startSandbox, type Sandbox } from '@podops/sandbox';
import { KubeClient } from '../../src/kube/client.ts';
import { LeaderElector, type LeaderElectionOptions } from '../../src/kube/leader-election.ts';
import { LEASES, resourcePath } from '../../src/kube/resources.ts';
import { startHoldingProxy, type HoldingProxy } from '../support/holding-proxy.ts';
import { takeOverLease } from '../support/lease.ts';
import { waitFor } from '../support/wait.ts';

const timings = { leaseDurationMs: 900, renewDeadlineMs: 600, retryPeriodMs: 100 };
/** For a hung API server: the leader steps down by retry period + renew deadline, well before the lease expires. */
const hangTimings = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 };

interface Candidate {
  elector: LeaderElector;
  leading: boolean;
  stopped: number;
  /** When (performance.now()) leadership last began, and last ended: its `leading` signal aborted. */
  startedAt: number;
  endedAt: number;
  stop(): Promise<void>;
}

describe('LeaderElector', () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  const candidates: Candidate[] = [];
  /** `lease/identity leads` and `lease/identity ends`, in the order they happened. */
  const history: string[] = [];
  before(async () => {
    sandbox = await startSandbox();
    client = KubeClient.fromKubeconfigText(sandbox.kubeconfig);
  });
  after(async () => {
    await Promise.all(candidates.map((c) => c.stop()));
    client.close();
    await sandbox.stop();
  });

  function campaign(lease: string, identity: string, options: Partial<LeaderElectionOptions> = {}): Candidate {
    const elector = new LeaderElector({ client, namespace: 'default', name: lease, identity, ...timings, ...options });
    const abort = new AbortController();
    const candidate: Candidate = { elector, leading: false, stopped: 0, startedAt: NaN, endedAt: NaN, stop: async () => (abort.abort(), await running) };
    const running = elector.run(abort.signal, {
      onStartedLeading: (leading) => {
        candidate.leading = true;
        candidate.startedAt = performance.now();
        history.push(`${lease}/${identity} leads`);
        leading.addEventListener('abort', () => {
          candidate.endedAt = performance.now();
          history.push(`${lease}/${identity} ends`);
        });
      },
      onStoppedLeading: () => {
        candidate.leading = false;
        candidate.stopped++;
      },
    });
    candidates.push(candidate);
    return candidate;
  }

  /** A client whose requests pass a proxy that can hang them, both closed when the test ends. */
  async function hangable(t: TestContext): Promise<{ proxy: HoldingProxy; client: KubeClient }> {
    const proxy = await startHoldingProxy(sandbox.url);
    const proxied = KubeClient.fromKubeconfigText(renderKubeconfig({ server: proxy.url }));
    t.after(async () => {
      proxied.close();
      await proxy.close();
    });
    return { proxy, client: proxied };
  }

  /** Holds every request to the Lease `name` (its GET and PUT), as an API server that stopped answering. */
  const holdLease = (proxy: HoldingProxy, name: string): void => proxy.hold((req) => req.url?.split('?')[0] === resourcePath(LEASES, 'default', name));

  test('defaults are client-go\'s and controller-runtime\'s: a 15 s lease, renewed every 2 s', async () => {
    const elector = new LeaderElector({ client, namespace: 'default', name: 'defaults', identity: 'solo' });
    const abort = new AbortController();
    let leading = false;
    const running = elector.run(abort.signal, { onStartedLeading: () => (leading = true), onStoppedLeading: () => (leading = false) });
    await waitFor(() => leading, 'solo to lead');
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
    await waitFor(() => a.leading, 'a to lead');
    const b = campaign('release', 'b');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(b.leading, false);
    const lease = await client.get<{ spec: { holderIdentity: string; leaseDurationSeconds: number } }>(LEASES, 'default', 'release');
    assert.equal(lease.spec.holderIdentity, 'a');
    await a.stop();
    const takeover = await waitFor(() => b.leading, 'b to take over');
    assert.ok(takeover < timings.leaseDurationMs, `took over in ${takeover} ms, before the lease would have expired`);
    const released = await client.get<{ spec: { holderIdentity: string; leaseTransitions: number } }>(LEASES, 'default', 'release');
    assert.equal(released.spec.holderIdentity, 'b');
    assert.equal(released.spec.leaseTransitions, 1);
    await b.stop();
  });

  test('a leader that dies without releasing is replaced only once its lease expires', async () => {
    const a = campaign('crash', 'a', { releaseOnCancel: false });
    await waitFor(() => a.leading, 'a to lead');
    const b = campaign('crash', 'b');
    await a.stop();
    const started = Date.now();
    await waitFor(() => b.leading, 'b to take over');
    assert.ok(Date.now() - started >= timings.leaseDurationMs - 150, 'waited for the lease to expire');
    await b.stop();
  });

  test('a leader that can no longer renew steps down', async () => {
    const a = campaign('stolen', 'a');
    await waitFor(() => a.leading, 'a to lead');
    await takeOverLease(client, 'stolen', 'intruder', 3600);
    await waitFor(() => a.stopped === 1, 'a to step down');
    assert.equal(a.elector.isLeader(), false);
    await a.stop();
  });

  test('a leader whose API server hangs steps down by its renew deadline, before a standby takes over', async (t) => {
    const { proxy, client: hung } = await hangable(t);
    const a = campaign('hung', 'a', { client: hung, ...hangTimings });
    await waitFor(() => a.leading, 'a to lead');
    holdLease(proxy, 'hung');
    const hungAt = performance.now();
    const b = campaign('hung', 'b', hangTimings);
    await waitFor(() => b.leading, 'b to take over');
    const steppedDown = Math.round(a.endedAt - hungAt);
    const tookOver = Math.round(b.startedAt - hungAt);
    t.diagnostic(`a stepped down ${steppedDown} ms after its API server hung, b took over after ${tookOver} ms`);
    assert.deepEqual(history.filter((event) => event.startsWith('hung/')), ['hung/a leads', 'hung/a ends', 'hung/b leads']);
    assert.ok(proxy.held > 0, "a's Lease requests were held");
    assert.equal(a.elector.isLeader(), false);
    // The round under way when the server hung began at most a retry period before.
    const { renewDeadlineMs, retryPeriodMs } = hangTimings;
    assert.ok(steppedDown <= renewDeadlineMs + retryPeriodMs + 300, `stepped down ${steppedDown} ms after the hang`);
    await Promise.all([a.stop(), b.stop()]);
  });

  test('a renewal answered late, then a hung API server: the leader steps down a renew deadline after sending it', async (t) => {
    // Whole seconds, as the Lease records them: a standby takes over 3 s after it saw the last renewal.
    const slow = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 400 };
    const { proxy, client: hung } = await hangable(t);
    const a = campaign('late', 'a', { client: hung, ...slow });
    await waitFor(() => a.leading, 'a to lead');
    const b = campaign('late', 'b', slow);
    // The next renewal reaches the server at once, but its answer comes only 1.85 s later; then nothing more.
    const leaseWrite = (req: IncomingMessage): boolean => req.method === 'PUT' && req.url?.split('?')[0] === resourcePath(LEASES, 'default', 'late');
    proxy.delay(1850, leaseWrite);
    await waitFor(() => proxy.delayed === 1, 'a renewal to be delayed');
    const sentAt = performance.now();
    holdLease(proxy, 'late');
    await waitFor(() => b.leading, 'b to take over');
    const steppedDown = Math.round(a.endedAt - sentAt);
    t.diagnostic(`a stepped down ${steppedDown} ms after sending its last renewal, b took over after ${Math.round(b.startedAt - sentAt)} ms`);
    assert.deepEqual(history.filter((event) => event.startsWith('late/')), ['late/a leads', 'late/a ends', 'late/b leads']);
    // Counted from the answer and the next round, it would have led until about 1.85 + 0.4 + 2 s.
    assert.ok(steppedDown <= slow.renewDeadlineMs + slow.retryPeriodMs, `stepped down ${steppedDown} ms after sending its renewal`);
    await Promise.all([a.stop(), b.stop()]);
  });

  test('stopping a leader whose API server hangs is not held up by the release', async (t) => {
    const { proxy, client: hung } = await hangable(t);
    const a = campaign('hung-stop', 'a', { client: hung, ...hangTimings });
    await waitFor(() => a.leading, 'a to lead');
    holdLease(proxy, 'hung-stop');
    await waitFor(() => proxy.open > 0, 'a renewal to hang');
    const stopping = performance.now();
    await a.stop();
    const took = performance.now() - stopping;
    assert.equal(a.stopped, 1);
    assert.ok(proxy.held >= 2, 'the release hung too');
    assert.ok(took < hangTimings.renewDeadlineMs + 300, `stopped in ${Math.round(took)} ms`);
  });

  test('a Lease call aborted through its signal rejects at once and closes its connection', async (t) => {
    const { proxy, client: hung } = await hangable(t);
    proxy.hold(() => true);
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'aborted', namespace: 'default' } };
    const calls: [string, (signal: AbortSignal) => Promise<unknown>][] = [
      ['get', (signal) => hung.get(LEASES, 'default', 'aborted', signal)],
      ['create', (signal) => hung.create(LEASES, lease, { signal })],
      ['replace', (signal) => hung.replace(LEASES, lease, { signal })],
      ['patch', (signal) => hung.patch(LEASES, 'default', 'aborted', 'merge', { spec: {} }, { signal })],
      ['delete', (signal) => hung.delete(LEASES, 'default', 'aborted', { signal })],
      ['evict', (signal) => hung.evict('default', 'aborted', { signal })],
    ];
    for (const [verb, call] of calls) {
      const abort = new AbortController();
      const pending = call(abort.signal);
      await waitFor(() => proxy.open === 1, `the ${verb} to hang`);
      const abortedAt = performance.now();
      abort.abort();
      await assert.rejects(pending, { name: 'AbortError' }, verb);
      const took = performance.now() - abortedAt;
      assert.ok(took < 100, `${verb} rejected ${Math.round(took)} ms after the abort`);
      await waitFor(() => proxy.open === 0, `the ${verb}'s connection to close`);
    }
  });

  test('timings are checked as client-go checks them', () => {
    assert.throws(() => new LeaderElector({ client, namespace: 'default', name: 'x', identity: 'x', leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }), /leaseDuration must be greater than renewDeadline/);
  });
});
