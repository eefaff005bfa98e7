import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from '../../test/support/fake-clock.ts';
import { BucketRateLimiter, ExponentialFailureRateLimiter, MaxOfRateLimiter, defaultControllerRateLimiter } from './rate-limiter.ts';
import { WorkQueue } from './workqueue.ts';

const queue = (clock = new FakeClock()) => ({ clock, q: new WorkQueue({ clock, rateLimiter: new ExponentialFailureRateLimiter(5, 1000) }) });

describe('WorkQueue', () => {
  test('a key added while queued is queued once', async () => {
    const { q } = queue();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.len(), 2);
    assert.equal(await q.get(), 'a');
    assert.equal(await q.get(), 'b');
  });

  test('a key added while processing is not handed to a second worker; it comes back after done', async () => {
    const { q } = queue();
    q.add('a');
    const first = await q.get();
    q.add('a');
    q.add('a');
    assert.equal(q.len(), 0, 'not queued while a worker holds it');
    q.done(first!);
    assert.equal(q.len(), 1);
    assert.equal(await q.get(), 'a');
    q.done('a');
    assert.equal(q.len(), 0);
  });

  test('a waiting getter receives the next key', async () => {
    const { q } = queue();
    const pending = q.get();
    q.add('x');
    assert.equal(await pending, 'x');
  });

  test('addAfter waits, and a key delayed twice keeps the earlier time', async () => {
    const { clock, q } = queue();
    q.addAfter('a', 1000);
    q.addAfter('a', 500);
    q.addAfter('a', 2000);
    clock.advance(499);
    assert.equal(q.len(), 0);
    clock.advance(1);
    assert.equal(q.len(), 1);
    assert.equal(await q.get(), 'a');
    q.done('a');
    clock.advance(5000);
    assert.equal(q.len(), 0, 'the later duplicate was dropped');
  });

  test('delayed keys are released in time order', async () => {
    const { clock, q } = queue();
    q.addAfter('late', 300);
    q.addAfter('early', 100);
    q.addAfter('middle', 200);
    clock.advance(300);
    assert.deepEqual([await q.get(), await q.get(), await q.get()], ['early', 'middle', 'late']);
  });

  test('rate-limited adds back off exponentially per key until forgotten', async () => {
    const { clock, q } = queue();
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const before = clock.now();
      q.addRateLimited('a');
      for (let waited = 0; q.len() === 0 && waited < 10_000; waited++) clock.advance(1);
      delays.push(clock.now() - before);
      q.done((await q.get())!);
    }
    assert.deepEqual(delays, [5, 10, 20, 40]);
    assert.equal(q.numRequeues('a'), 4);
    q.forget('a');
    assert.equal(q.numRequeues('a'), 0);
  });

  test('shutdown wakes waiting getters with undefined; drain waits for work in progress', async () => {
    const { q } = queue();
    q.add('a');
    const held = await q.get();
    const idle = q.get();
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    assert.equal(await idle, undefined);
    q.add('b');
    assert.equal(q.len(), 0, 'no adds after shutdown');
    await Promise.resolve();
    assert.equal(drained, false);
    q.done(held!);
    await drain;
    assert.equal(drained, true);
  });
});

describe('rate limiters', () => {
  test('exponential failure: base * 2^n capped at max', () => {
    const l = new ExponentialFailureRateLimiter(5, 1_000_000);
    const delays = Array.from({ length: 20 }, () => l.when('k'));
    assert.deepEqual(delays.slice(0, 4), [5, 10, 20, 40]);
    assert.equal(delays.at(-1), 1_000_000);
    assert.equal(l.when('other'), 5, 'per key');
  });

  test('bucket: the burst passes, then one token per 1/qps', () => {
    const clock = new FakeClock();
    const l = new BucketRateLimiter(clock, 10, 3);
    assert.deepEqual([l.when(), l.when(), l.when()], [0, 0, 0]);
    assert.equal(Math.round(l.when()), 100);
    assert.equal(Math.round(l.when()), 200);
    clock.advance(1000);
    assert.equal(l.when(), 0);
  });

  test('the default controller limiter is the max of both', () => {
    const clock = new FakeClock();
    const l = defaultControllerRateLimiter(clock);
    assert.equal(l.when('a'), 5);
    assert.ok(l instanceof MaxOfRateLimiter);
    for (let i = 0; i < 200; i++) l.when(`k${i}`);
    assert.ok(l.when('fresh') > 5, 'the shared bucket throttles after its burst');
  });
});
