import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeySerializer } from './key-serializer.ts';

test('works of one key run one after the other, in order, through failures; other keys run alongside', async () => {
  const serializer = new KeySerializer();
  const log: string[] = [];
  const step = (name: string, ms: number, fail = false) => async () => {
    log.push(`start ${name}`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    log.push(`end ${name}`);
    if (fail) throw new Error(name);
    return name;
  };
  const results = await Promise.allSettled([serializer.run('a', step('a1', 30, true)), serializer.run('a', step('a2', 1)), serializer.run('b', step('b1', 5))]);
  assert.deepEqual(results.map((r) => r.status), ['rejected', 'fulfilled', 'fulfilled']);
  assert.deepEqual(log, ['start a1', 'start b1', 'end b1', 'end a1', 'start a2', 'end a2']);
});
