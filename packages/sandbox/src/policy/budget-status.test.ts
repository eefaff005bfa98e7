import { test } from 'node:test';
import assert from 'node:assert/strict';
import { conditionsAreUpToDate, readBudgetStatus, renderBudgetStatus, updateDisruptionAllowedCondition } from './budget-status.ts';

const at = Date.parse('2026-01-01T00:00:00Z');
const later = at + 60_000;

test('the status renders in the Go field order, leaving out what omitempty leaves out', () => {
  const status = readBudgetStatus({ metadata: {}, status: { expectedPods: 2, disruptedPods: { b: 't1', a: 't0' }, currentHealthy: 2 } });
  assert.deepEqual(Object.keys(renderBudgetStatus(status)), ['disruptedPods', 'disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']);
  assert.deepEqual(Object.keys(renderBudgetStatus(status).disruptedPods as object), ['a', 'b']);
});

test('DisruptionAllowed follows disruptionsAllowed; its transition time moves only with its status', () => {
  const base = readBudgetStatus({ metadata: {}, status: { observedGeneration: 3, disruptionsAllowed: 1 } });
  const [allowed] = updateDisruptionAllowedCondition(base, at);
  assert.deepEqual(allowed, { type: 'DisruptionAllowed', status: 'True', observedGeneration: 3, lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'SufficientPods', message: '' });
  const same = updateDisruptionAllowedCondition({ ...base, conditions: [allowed ?? {}] }, later);
  assert.equal(same[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
  const [refused] = updateDisruptionAllowedCondition({ ...base, disruptionsAllowed: 0, conditions: [allowed ?? {}] }, later);
  assert.deepEqual([refused?.status, refused?.reason, refused?.lastTransitionTime], ['False', 'InsufficientPods', '2026-01-01T00:01:00Z']);
  const pdb = { metadata: { generation: 3 }, status: { observedGeneration: 3, disruptionsAllowed: 0, conditions: [refused] } };
  assert.equal(conditionsAreUpToDate(pdb), true);
  assert.equal(conditionsAreUpToDate({ ...pdb, metadata: { generation: 4 } }), false);
});
