import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findUntoleratedTaint, podMatchesNodeAffinity, toleratesTaint } from './node-affinity.ts';

const node = { metadata: { name: 'node-1', labels: { zone: 'a', cpus: '8' } } };
const required = (...terms: object[]): object => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });

test('nodeSelector and required node affinity: terms ORed, requirements ANDed, matchFields on metadata.name', () => {
  assert.equal(podMatchesNodeAffinity({}, node), true);
  assert.equal(podMatchesNodeAffinity({ nodeSelector: { zone: 'a' } }, node), true);
  assert.equal(podMatchesNodeAffinity({ nodeSelector: { zone: 'b' } }, node), false);
  const expr = (key: string, operator: string, values?: string[]): object => ({ matchExpressions: [{ key, operator, ...(values ? { values } : {}) }] });
  assert.equal(podMatchesNodeAffinity(required(expr('zone', 'In', ['a', 'b'])), node), true);
  assert.equal(podMatchesNodeAffinity(required(expr('zone', 'NotIn', ['a'])), node), false);
  assert.equal(podMatchesNodeAffinity(required(expr('disk', 'NotIn', ['ssd'])), node), true, 'NotIn matches a missing label');
  assert.equal(podMatchesNodeAffinity(required(expr('zone', 'Exists')), node), true);
  assert.equal(podMatchesNodeAffinity(required(expr('zone', 'DoesNotExist')), node), false);
  assert.equal(podMatchesNodeAffinity(required(expr('cpus', 'Gt', ['4'])), node), true);
  assert.equal(podMatchesNodeAffinity(required(expr('cpus', 'Lt', ['4'])), node), false);
  assert.equal(podMatchesNodeAffinity(required(expr('zone', 'In', [])), node), false, 'a malformed term matches nothing');
  assert.equal(podMatchesNodeAffinity(required({}), node), false, 'an empty term matches nothing');
  assert.equal(podMatchesNodeAffinity(required(expr('zone', 'In', ['b']), { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] }), node), true);
  assert.equal(podMatchesNodeAffinity(required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-2'] }] }), node), false);
});

test('taints and tolerations', () => {
  const taint = { key: 'dedicated', value: 'db', effect: 'NoSchedule' };
  assert.equal(toleratesTaint({ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }, taint), true);
  assert.equal(toleratesTaint({ key: 'dedicated', value: 'web' }, taint), false);
  assert.equal(toleratesTaint({ operator: 'Exists' }, taint), true, 'an empty key with Exists tolerates everything');
  assert.equal(toleratesTaint({ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, taint), false);
  const evict = { key: 'gone', effect: 'NoExecute' };
  assert.deepEqual(findUntoleratedTaint([taint, evict], [{ key: 'dedicated', operator: 'Exists' }], (t) => t.effect === 'NoExecute'), evict);
  assert.equal(findUntoleratedTaint([taint], [], (t) => t.effect === 'NoExecute'), undefined);
});
