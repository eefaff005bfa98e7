// The shuffled order of a run: every scenario once, the same order for the same seed (so a failing order can be
// run again with --seed), and different orders for different seeds.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shuffled } from './runner.ts';

const items = Array.from({ length: 21 }, (_, i) => `scenario-${i}`);

test('a seed shuffles the scenarios into an order of its own, the same each time', () => {
  const orders = new Set<string>();
  for (let seed = 0; seed < 50; seed++) {
    const order = shuffled(items, seed);
    assert.deepEqual([...order].sort(), [...items].sort(), `seed ${seed}: every scenario once`);
    assert.deepEqual(shuffled(items, seed), order, `seed ${seed}: the same order again`);
    orders.add(order.join());
  }
  assert.equal(orders.size, 50, 'fifty seeds, fifty orders');
  assert.ok(![...orders].includes(items.join()), 'none is the listed order');
  assert.deepEqual([...shuffled(items, 2 ** 32 - 1)].sort(), [...items].sort(), 'the largest seed');
  assert.deepEqual(items, Array.from({ length: 21 }, (_, i) => `scenario-${i}`), 'the list given is left as it was');
});
