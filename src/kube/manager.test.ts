import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { untilAborted } from './clock.ts';
import { Manager, type Runnable, type Stage } from './manager.ts';

/** A runnable that records when it starts, becomes ready and stops. */
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
      if (options.ignoreStop) await new Promise(() => {});
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push(`stop ${name}`);
    },
    ready: (signal) => Promise.race([isReady, untilAborted(signal)]),
  };
}

const eventually = async (ok: () => boolean): Promise<void> => {
  const deadline = Date.now() + 3000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

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
    await eventually(() => log.includes('start controller'));
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
    assert.deepEqual(log.filter((l) => l.startsWith('stop')), ['stop controller', 'stop calls', 'stop informer', 'stop webhook', 'stop metrics']);
  });

  test('a stop is bounded: a part that does not stop is left behind after the grace period', async () => {
    const log: string[] = [];
    const manager = new Manager({ gracefulShutdownMs: 200 });
    manager.add(recorded(log, 'stuck', 'leader', { ignoreStop: true }));
    manager.add(recorded(log, 'metrics', 'servers'));
    const stop = new AbortController();
    const running = manager.run(stop.signal);
    await eventually(() => log.includes('start stuck'));
    const started = Date.now();
    stop.abort();
    await running;
    const took = Date.now() - started;
    assert.ok(took >= 190 && took < 1500, `returned after the grace period (${took} ms)`);
    assert.ok(!log.includes('stop metrics'), 'the stages after the stuck one are not waited for');
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
    await eventually(() => log.includes('start informer'));
    stop.abort();
    await running;
    assert.ok(!log.includes('start controller'));
  });
});
