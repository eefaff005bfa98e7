import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controllerManagerRetry, SerialKeyQueue } from './serial-key-queue.ts';

test('a key queued several times before processing is processed once; failures are retried', async () => {
  const seen: string[] = [];
  let failOnce = true;
  const queue = new SerialKeyQueue(async (key) => {
    seen.push(key);
    if (key === 'flaky' && failOnce) {
      failOnce = false;
      throw new Error('try again');
    }
  });
  queue.add('a');
  queue.add('a');
  queue.add('flaky');
  await queue.idle();
  assert.deepEqual(seen, ['a', 'flaky']);
  await new Promise((r) => setTimeout(r, 50));
  await queue.idle();
  assert.deepEqual(seen, ['a', 'flaky', 'flaky']);
  queue.stop();
});

test("kube-controller-manager's retry delays: 5 ms doubling per failure, at most 1000 s", () => {
  assert.deepEqual([1, 2, 3, 10].map(controllerManagerRetry), [5, 10, 20, 2560]);
  assert.equal(controllerManagerRetry(30), 1_000_000);
});

test('a key failing again and again waits longer each time; an add runs it at once, and a success resets the count', async () => {
  const attempts: number[] = [];
  let failing = true;
  const queue = new SerialKeyQueue(
    async () => {
      attempts.push(performance.now());
      if (failing) throw new Error('denied');
    },
    // The third failure waits a minute: only an add can bring the key back within the test.
    { retryDelay: (failures) => (failures <= 2 ? 20 * failures : 60_000) },
  );
  const attempted = async (count: number): Promise<void> => {
    while (attempts.length < count) await new Promise((r) => setTimeout(r, 5));
  };
  queue.add('rs');
  await attempted(3);
  assert.ok(attempts[1]! - attempts[0]! >= 19 && attempts[2]! - attempts[1]! >= 39, `growing delays: ${attempts.join(', ')}`);
  failing = false;
  queue.add('rs');
  await attempted(4);
  failing = true;
  queue.add('rs');
  // Failing once more after the success: the first delay again, not the minute of a fourth failure.
  await attempted(6);
  queue.stop();
});
