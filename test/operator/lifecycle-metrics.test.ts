// The operation type of podops_lifecycle_* metrics comes from a pod label anyone who writes pods sets: the
// built-in types and a few others get series of their own, the rest are counted as `other`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { LifecycleMetrics, OTHER_OPERATION_TYPES } from '../../src/operator/lifecycle-metrics.ts';
import { L, NOW, STAMP, pod } from '../support/pods.ts';

const operating = (type: string) => pod({ name: `p-${type}`, labels: { [L('operating', 'op')]: STAMP, [L('operation-type', 'op')]: type } });

test('1,000 distinct operation types make at most the built-in types, 16 others and other', async () => {
  const registry = new Registry();
  const metrics = new LifecycleMetrics(registry);
  const types = ['update', 'delete', ...Array.from({ length: 1000 }, (_, i) => `forged-type-${i}`)];
  for (const type of types) metrics.observe(pod({ name: `p-${type}` }), operating(type), NOW);
  const values = (await registry.getSingleMetric('podops_lifecycle_transitions_total')!.get()).values;
  const byType = new Map(values.map((v) => [String(v.labels.type), v.value]));
  assert.equal(byType.get('update'), 1);
  assert.equal(byType.get('delete'), 1);
  assert.deepEqual([...byType.keys()].filter((t) => t.startsWith('forged-type-')), Array.from({ length: OTHER_OPERATION_TYPES }, (_, i) => `forged-type-${i}`));
  assert.equal(byType.get('other'), 1000 - OTHER_OPERATION_TYPES);
  // A type seen before keeps its series.
  metrics.observe(pod({ name: 'again' }), operating('forged-type-3'), NOW);
  assert.equal((await registry.getSingleMetric('podops_lifecycle_transitions_total')!.get()).values.find((v) => v.labels.type === 'forged-type-3')?.value, 2);
});
