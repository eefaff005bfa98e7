// The manager's leader stage with leader election, against the sandbox API server, with short Lease timings.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { untilAborted } from '../../src/kube/clock.ts';
import { LeadershipLostError, Manager } from '../../src/kube/manager.ts';
import { LEASES } from '../../src/kube/resources.ts';
import { takeOverLease } from '../support/lease.ts';
import { useSandboxClient } from '../support/sandbox-client.ts';
import { sleep, until, waitFor } from '../support/wait.ts';

const timings = { leaseDurationMs: 900, renewDeadlineMs: 600, retryPeriodMs: 100 };

interface Replica {
  manager: Manager;
  /** Who held the Lease each time the leader part started, and each time it was told to stop. */
  startedUnder: string[];
  stoppingUnder: string[];
  running: Promise<void>;
  stop(): Promise<void>;
}

describe('Manager with leader election', () => {
  const kube = useSandboxClient();
  const holder = async (lease: string): Promise<string> =>
    (await kube.client.get<{ spec?: { holderIdentity?: string } }>(LEASES, 'default', lease)).spec?.holderIdentity ?? '';

  /** A replica whose one leader part records the Lease's holder when it starts and when told to stop; `stopping` runs before it returns. */
  function replica(lease: string, identity: string, stopping: () => Promise<unknown> = async () => {}): Replica {
    const manager = new Manager({ leaderElection: { client: kube.client, namespace: 'default', name: lease, identity, ...timings } });
    const startedUnder: string[] = [];
    const stoppingUnder: string[] = [];
    manager.add({
      name: 'controller',
      stage: 'leader',
      async start(signal) {
        startedUnder.push(await holder(lease));
        await untilAborted(signal);
        stoppingUnder.push(await holder(lease));
        await stopping();
      },
    });
    const abort = new AbortController();
    const running = manager.run(abort.signal);
    return { manager, startedUnder, stoppingUnder, running, stop: () => (abort.abort(), running) };
  }

  test('leader parts start once the Lease is acquired, and stop before it is released', async () => {
    const a = replica('handover', 'a');
    await waitFor(() => a.startedUnder.length === 1, "a's controller to start");
    assert.deepEqual(a.startedUnder, ['a']);
    assert.equal(a.manager.isLeader(), true);
    const b = replica('handover', 'b');
    // The standby's controller stays stopped for as long as a leads: nothing is to happen in this time.
    await sleep(3 * timings.retryPeriodMs);
    assert.deepEqual(b.startedUnder, []);
    assert.equal(b.manager.isLeader(), false);
    await a.stop();
    assert.deepEqual(a.stoppingUnder, ['a'], "a's controller stopped while a still held the Lease");
    await waitFor(() => b.startedUnder.length === 1, "b's controller to start");
    assert.deepEqual(b.startedUnder, ['b'], 'b took over once a released the Lease');
    await b.stop();
  });

  test('a lost lease stops every part and run() rejects with LeadershipLostError; winning it back meanwhile starts nothing', async () => {
    // The controller is slow to stop: it returns only once the elector, still campaigning, has won the Lease back.
    const a = replica('lost', 'a', () => until(() => holder('lost'), (identity) => identity === 'a', 'a to win the Lease back', 5000));
    await waitFor(() => a.startedUnder.length === 1, "a's controller to start");
    // Held for one second by another: a cannot renew and steps down, then takes the expired Lease again.
    await takeOverLease(kube.client, 'lost', 'intruder', 1);
    await assert.rejects(a.running, LeadershipLostError);
    assert.deepEqual(a.startedUnder, ['a'], 'the controller started once: not again when the Lease was won back during the stop');
    assert.deepEqual(a.stoppingUnder, ['intruder']);
    assert.equal(await holder('lost'), '', 'the Lease won back was released on the way out');
  });
});
