import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { waitFor } from '../../test/support/wait.ts';
import { untilAborted } from './clock.ts';
import { Manager, type Runnable, type Stage } from './manager.ts';

/** A runnable that records when it starts, becomes ready, is told to stop and has stopped. */
function recorded(log: string[], name: string, stage: Stage, options: { readyAfterMs?: number; ignoreStop?: boolean } = {}): Runnable {
  let ready: () => void = () => {};
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  return {
    name,
    stage,
    async start(signal) {
      log.push(`start ${name}`);
      setTimeout(() => {
        log.push(`ready ${name}`);
        ready();
      }, options.readyAfterMs ?? 0).unref();
      await untilAborted(signal);
      log.push(`stopping ${name}`);
      if (options.ignoreStop) await new Promise(() => {});
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push(`stop ${name}`);
    },
    ready: (signal) => Promise.race([isReady, untilAborted(signal)]),
  };
}

describe('Manager', () => {
  test('starts stage after stage once the one before is ready, and stops them in reverse', async () => {
    const log: string[] = [];
    const manager = new Manager();
    // Added out of order: the stage decides.
    manager.add(recorded(log, 'controller', 'leader'));
    manager.add(recorded(log, 'informer', 'caches', { readyAfterMs: 30 }));
    manager.add(recorded(log, 'webhook', 'webhooks', { readyAfterMs: 30 }));
    manager.add(recorded(log, 'metrics', 'servers', { readyAfterMs: 30 }));
    manager.add(recorded(log, 'calls', 'others'));
    const stop = new AbortController();
    const running = manager.run(stop.signal);
    await waitFor(() => log.includes('start controller'), 'controller to start');
    assert.deepEqual(log.filter((l) => l.startsWith('start') || l === 'ready metrics' || l === 'ready webhook' || l === 'ready informer'), [
      'start metrics',
      'ready metrics',
      'start webhook',
      'ready webhook',
      'start informer',
      'ready informer',
      'start calls',
      'start controller',
    ]);
    assert.equal(manager.isLeader(), true, 'without leader election this replica leads');
    stop.abort();
    await running;
    assert.deepEqual(log.filter((l) => l.startsWith('stop ')), ['stop controller', 'stop calls', 'stop informer', 'stop webhook', 'stop metrics']);
  });

  test('a stop is bounded: once the grace period is over, the parts still running are told to stop and left behind', async () => {
    const log: string[] = [];
    const manager = new Manager({ gracefulShutdownMs: 200 });
    manager.add(recorded(log, 'stuck', 'leader', { ignoreStop: true }));
    manager.add(recorded(log, 'metrics', 'servers', { ignoreStop: true }));
    const stop = new AbortController();
    const running = manager.run(stop.signal);
    await waitFor(() => log.includes('start stuck'), 'stuck to start');
    const started = Date.now();
    stop.abort();
    await running;
    const took = Date.now() - started;
    assert.ok(took >= 190 && took < 1500, `returned after the grace period (${took} ms)`);
    assert.ok(log.includes('stopping metrics'), 'an earlier stage is told to stop, though no longer waited for');
  });

  test('a part that fails stops the others and run() rejects with its error', async () => {
    const log: string[] = [];
    const manager = new Manager();
    manager.add(recorded(log, 'metrics', 'servers'));
    manager.add({ name: 'broken', stage: 'others', start: () => Promise.reject(new Error('cannot list pods')) });
    await assert.rejects(manager.run(new AbortController().signal), /cannot list pods/);
    assert.ok(log.includes('stop metrics'));
  });

  test('a stop before a stage is ready starts nothing after it', async () => {
    const log: string[] = [];
    const manager = new Manager();
    manager.add(recorded(log, 'informer', 'caches', { readyAfterMs: 10_000 }));
    manager.add(recorded(log, 'controller', 'leader'));
    const stop = new AbortController();
    const running = manager.run(stop.signal);
    await waitFor(() => log.includes('start informer'), 'informer to start');
    stop.abort();
    await running;
    assert.ok(!log.includes('start controller'));
  });
});
