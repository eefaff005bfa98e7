import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from '../../test/support/fake-clock.ts';
import { FakeInformer } from '../../test/support/fake-informer.ts';
import { ApiError, type KubeObject } from './client.ts';
import { Controller, TerminalError, keyOf, objectKey, requestOf, watch, type Reconciler, type Request, type Result } from './controller.ts';
import { RuntimeMetrics } from './metrics.ts';
import { ExponentialFailureRateLimiter } from './rate-limiter.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

function harness(reconcile: (req: Request) => Promise<Result | void>, workers = 1) {
  const clock = new FakeClock();
  const metrics = new RuntimeMetrics(undefined, { processMetrics: false });
  const reconciler: Reconciler = { reconcile };
  const controller = new Controller({ name: 'test', reconciler, workers, clock, metrics, rateLimiter: new ExponentialFailureRateLimiter(5, 1000) });
  const abort = new AbortController();
  const running = controller.run(abort.signal);
  return { clock, metrics, controller, stop: async () => (abort.abort(), await running) };
}

const metricValue = async (metrics: RuntimeMetrics, name: string, labels: Record<string, string>): Promise<number | undefined> => {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return metric?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value;
};

describe('Controller', () => {
  test('keys and requests round-trip', () => {
    assert.deepEqual(requestOf(keyOf('ns', 'pod')), { namespace: 'ns', name: 'pod' });
    assert.deepEqual(requestOf(keyOf(undefined, 'node-1')), { namespace: '', name: 'node-1' });
  });

  test('several workers never reconcile the same key at once; a key added meanwhile runs once more', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const calls: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { controller, stop } = harness(async (req) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      calls.push(req.name);
      if (calls.length === 1) await gate;
      inFlight--;
    }, 4);
    controller.enqueue('ns/a');
    await tick();
    controller.enqueue('ns/a');
    controller.enqueue('ns/a');
    await tick();
    assert.equal(maxInFlight, 1);
    release();
    for (let i = 0; i < 5; i++) await tick();
    assert.deepEqual(calls, ['a', 'a']);
    await stop();
  });

  test('errors are retried with per-key backoff, then forgotten on success', async () => {
    let attempts = 0;
    const { clock, metrics, controller, stop } = harness(async () => {
      attempts++;
      if (attempts <= 2) throw new Error('apiserver unavailable');
    });
    controller.enqueue('ns/x');
    await tick();
    assert.equal(attempts, 1);
    clock.advance(4);
    await tick();
    assert.equal(attempts, 1, 'first retry after 5 ms');
    clock.advance(1);
    await tick();
    assert.equal(attempts, 2);
    clock.advance(10);
    await tick();
    assert.equal(attempts, 3);
    assert.equal(controller.queue.numRequeues('ns/x'), 0);
    assert.equal(await metricValue(metrics, 'controller_runtime_reconcile_total', { controller: 'test', result: 'error' }), 2);
    assert.equal(await metricValue(metrics, 'controller_runtime_reconcile_total', { controller: 'test', result: 'success' }), 1);
    assert.equal(await metricValue(metrics, 'controller_runtime_reconcile_errors_total', { controller: 'test' }), 2);
    await stop();
  });

  test('requeueAfter schedules the key again; terminal errors are not retried; programming errors count as panics', async () => {
    const seen: string[] = [];
    const { clock, metrics, controller, stop } = harness(async (req) => {
      seen.push(req.name);
      if (req.name === 'later' && seen.filter((n) => n === 'later').length === 1) return { requeueAfterMs: 1000 };
      if (req.name === 'terminal') throw new TerminalError('bad spec');
      if (req.name === 'bug') (undefined as unknown as { run(): void }).run();
      return undefined;
    });
    controller.enqueue('ns/later');
    controller.enqueue('ns/terminal');
    await tick();
    clock.advance(999);
    await tick();
    assert.deepEqual(seen, ['later', 'terminal']);
    clock.advance(1);
    await tick();
    assert.deepEqual(seen, ['later', 'terminal', 'later']);
    clock.advance(60_000);
    await tick();
    assert.equal(seen.filter((n) => n === 'terminal').length, 1);
    controller.enqueue('ns/bug');
    await tick();
    assert.equal(await metricValue(metrics, 'controller_runtime_reconcile_panics_total', { controller: 'test' }), 1);
    assert.equal(await metricValue(metrics, 'controller_runtime_terminal_reconcile_errors_total', { controller: 'test' }), 1);
    assert.equal(await metricValue(metrics, 'controller_runtime_reconcile_total', { controller: 'test', result: 'requeue_after' }), 1);
    await stop();
  });

  test("a NotFound is an error like any other (the reconciler expects it where it may come); a Conflict, wrapped or not, waits for the newer version's event, and is no error", async () => {
    const seen: string[] = [];
    const { clock, metrics, controller, stop } = harness(async (req) => {
      seen.push(req.name);
      if (req.name === 'unserved') throw new ApiError(404, { status: 'Failure', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' }, 'GET');
      if (req.name === 'raced' && seen.filter((n) => n === 'raced').length === 1) {
        const conflict = new ApiError(409, { status: 'Failure', code: 409, reason: 'Conflict', message: 'the object has been modified' }, 'PATCH');
        throw new Error('patch the pod (begin its lifecycle)', { cause: conflict });
      }
    });
    controller.enqueue('ns/unserved');
    controller.enqueue('ns/raced');
    await tick();
    assert.deepEqual(seen, ['unserved', 'raced']);
    assert.equal(controller.queue.numRequeues('ns/unserved'), 1, 'retried with backoff');
    clock.advance(60_000);
    await tick();
    assert.deepEqual(seen, ['unserved', 'raced', 'unserved'], 'the Conflict is not retried on its own');
    // The write that won the race reaches the informer: its event enqueues the key.
    controller.enqueue('ns/raced');
    await tick();
    assert.deepEqual(seen, ['unserved', 'raced', 'unserved', 'raced']);
    assert.equal(controller.queue.numRequeues('ns/raced'), 0, 'no backoff was spent');
    assert.equal(await metricValue(metrics, 'controller_runtime_reconcile_errors_total', { controller: 'test' }), 2);
    assert.equal(await metricValue(metrics, 'controller_runtime_reconcile_total', { controller: 'test', result: 'requeue' }), 1);
    await stop();
  });

  test('triggers: the cached objects arrive as adds when the controller starts, later events by their mapped keys', async () => {
    const objects = new FakeInformer<KubeObject>();
    objects.put({ metadata: { namespace: 'ns', name: 'a', resourceVersion: '1' } });
    const seen: string[] = [];
    const clock = new FakeClock();
    const controller = new Controller({
      name: 'triggered',
      clock,
      reconciler: { reconcile: async (req) => void seen.push(keyOf(req.namespace, req.name)) },
      triggers: [watch(objects.informer, (current, previous) => [objectKey(current), ...(previous ? [`ns/was-${previous.metadata.resourceVersion}`] : [])])],
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    await tick();
    assert.deepEqual(seen, ['ns/a']);
    objects.put({ metadata: { namespace: 'ns', name: 'a', resourceVersion: '2' } });
    await tick();
    assert.deepEqual(seen, ['ns/a', 'ns/a', 'ns/was-1']);
    abort.abort();
    await running;
    assert.equal(objects.handlerCount, 0, 'unsubscribed on stop');
  });

  test('stopping waits for the reconcile in flight and takes no more keys', async () => {
    let finished = false;
    let release: () => void = () => {};
    const { controller, stop } = harness(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      finished = true;
    });
    controller.enqueue('ns/a');
    await tick();
    const stopped = stop();
    controller.enqueue('ns/b');
    await tick();
    assert.equal(finished, false);
    release();
    await stopped;
    assert.equal(finished, true);
  });

  test('workqueue metrics carry the controller name', async () => {
    const { metrics, controller, stop } = harness(async () => {});
    controller.enqueue('ns/a');
    await tick();
    assert.equal(await metricValue(metrics, 'workqueue_adds_total', { name: 'test' }), 1);
    const text = await metrics.registry.metrics();
    assert.match(text, /workqueue_unfinished_work_seconds\{name="test",controller="test"\} 0/);
    await stop();
  });
});
