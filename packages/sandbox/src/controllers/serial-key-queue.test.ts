import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SerialKeyQueue } from './serial-key-queue.ts';

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
