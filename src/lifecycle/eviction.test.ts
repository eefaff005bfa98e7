// When a pod may leave service for an eviction (its disruption budgets' room), and when an eviction is abandoned.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Node, Pod } from '../api/kube.ts';
import { EVICTION_PAUSED_UNTIL_ANNOTATION, EVICTION_REQUESTED_ANNOTATION, POD_DELETE_LIFECYCLE_ID, POD_EVICTION_LIFECYCLE_ID, TO_EVICT_LABEL, idLabelKey } from '../api/protocol.ts';
import { budgetRoom, evictionAbandonment, evictionPaused, evictionVouchedFor, markEvictionRequest, nodeBeingEmptied, untilEvictionAbandoned, type PodDisruptionBudget } from './eviction.ts';
import { NANOS_PER_SECOND } from './time.ts';

const pod = (name: string, ready = true, lifecycle?: string, terminating = false): Pod => ({
  metadata: {
    name,
    uid: `uid-${name}`,
    labels: { app: 'web', ...(lifecycle && { [idLabelKey('operation-type', lifecycle)]: 'x' }) },
    ...(terminating && { deletionTimestamp: '2025-03-01T10:00:00Z' }),
  },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const budget = (desiredHealthy: number, extra: Partial<PodDisruptionBudget['metadata']> = {}, observedGeneration = 1, currentHealthy?: number): PodDisruptionBudget => ({
  metadata: { name: 'web', generation: 1, ...extra },
  spec: { selector: { matchLabels: { app: 'web' } } },
  status: { observedGeneration, desiredHealthy, ...(currentHealthy !== undefined && { currentHealthy }) },
});

describe('budgetRoom', () => {
  test('room while the healthy pods staying, the candidate aside, still number desiredHealthy', () => {
    const pods = [pod('a'), pod('b'), pod('c')];
    assert.equal(budgetRoom(budget(2), pods[0]!, pods).room, true);
    const full = budgetRoom(budget(3), pods[0]!, pods);
    assert.equal(full.room, false);
    assert.equal(full.why, 'PodDisruptionBudget web needs 3 healthy pods and would have 2');
  });

  test('pods leaving for an eviction or a deletion, terminating or not Ready do not count as staying', () => {
    const candidate = pod('a');
    for (const other of [pod('b', true, POD_EVICTION_LIFECYCLE_ID), pod('b', true, POD_DELETE_LIFECYCLE_ID), pod('b', true, undefined, true), pod('b', false)]) {
      assert.equal(budgetRoom(budget(2), candidate, [candidate, other, pod('c')]).room, false, JSON.stringify(other.metadata));
    }
  });

  test("pods the budget selects that podops does not cache (uncontrolled ones) count by its status's healthy pods", () => {
    const controlled = [pod('a'), pod('b')];
    // Two uncontrolled healthy pods beyond the two controlled ones: 1 + 2 stay when a leaves.
    assert.equal(budgetRoom(budget(3, {}, 1, 4), controlled[0]!, controlled).room, true);
    assert.equal(budgetRoom(budget(4, {}, 1, 4), controlled[0]!, controlled).why, 'PodDisruptionBudget web needs 4 healthy pods and would have 3');
    // A controlled pod taken out of service a moment ago may still be counted healthy by the status: it is not an uncontrolled one.
    const out = [pod('a'), pod('b', false, POD_EVICTION_LIFECYCLE_ID), pod('c')];
    assert.equal(budgetRoom(budget(2, {}, 1, 3), out[0]!, out).room, false);
    // A status behind a pod that became Ready since never makes room out of nothing.
    assert.equal(budgetRoom(budget(2, {}, 1, 1), controlled[0]!, controlled).room, false);
  });

  test('a budget the disruption controller has not processed has no known room', () => {
    const pods = [pod('a'), pod('b')];
    assert.equal(budgetRoom(budget(0, { generation: 2 }), pods[0]!, pods).room, false);
    assert.match(budgetRoom({ metadata: { name: 'new' } }, pods[0]!, pods).why, /not been processed/);
  });
});

describe('evictionAbandonment', () => {
  const marked = (requestedAt: bigint, allowedAt?: bigint): Pod => ({
    metadata: {
      labels: { [TO_EVICT_LABEL]: '1', ...(allowedAt !== undefined && { [idLabelKey('operate', POD_EVICTION_LIFECYCLE_ID)]: allowedAt.toString() }) },
      annotations: { [EVICTION_REQUESTED_ANNOTATION]: requestedAt.toString() },
    },
  });
  const minute = 60n * NANOS_PER_SECOND;
  const now = 1_000n * NANOS_PER_SECOND;
  test('unretried: once the last request is older than the limit', () => {
    assert.equal(evictionAbandonment(marked(now - minute), now, minute), undefined);
    assert.equal(evictionAbandonment(marked(now - minute - 1n), now, minute), 'unretried');
    assert.equal(evictionAbandonment({ metadata: {} }, now, minute), undefined);
  });

  test('not carried out: the lifecycle allowed the eviction longer ago than the limit, however recent the requests (a forger resending)', () => {
    assert.equal(evictionAbandonment(marked(now - NANOS_PER_SECOND, now - minute), now, minute), undefined);
    assert.equal(evictionAbandonment(marked(now - NANOS_PER_SECOND, now - minute - 1n), now, minute), 'not-carried-out');
  });

  test('the time left counts from the last request (the first one when no later one is recorded), or from the permission if sooner', () => {
    assert.equal(untilEvictionAbandoned(marked(now - 20n * NANOS_PER_SECOND), now, minute), 40n * NANOS_PER_SECOND);
    const firstOnly: Pod = { metadata: { labels: { [TO_EVICT_LABEL]: (now - 50n * NANOS_PER_SECOND).toString() } } };
    assert.equal(untilEvictionAbandoned(firstOnly, now, minute), 10n * NANOS_PER_SECOND);
    assert.equal(untilEvictionAbandoned(marked(now - NANOS_PER_SECOND, now - 45n * NANOS_PER_SECOND), now, minute), 15n * NANOS_PER_SECOND);
  });

  test('a pause of further deferrals, until the time its annotation records', () => {
    const paused = (until: bigint): Pod => ({ metadata: { annotations: { [EVICTION_PAUSED_UNTIL_ANNOTATION]: until.toString() } } });
    assert.equal(evictionPaused(paused(now + minute), now), minute);
    assert.equal(evictionPaused(paused(now), now), undefined);
    assert.equal(evictionPaused({ metadata: {} }, now), undefined);
    const marking = markEvictionRequest(paused(now - 1n), now, minute)!;
    assert.equal(marking.metadata.annotations?.[EVICTION_PAUSED_UNTIL_ANNOTATION], undefined, 'a new eviction lifecycle clears an expired pause');
  });
});

describe('markEvictionRequest', () => {
  const at = 1_000n * NANOS_PER_SECOND;
  const refresh = 5n * NANOS_PER_SECOND;
  test('the first request sets the label and the annotation; a retry refreshes only the annotation, at most every refresh', () => {
    const first = markEvictionRequest({ metadata: { name: 'p' } }, at, refresh)!;
    assert.deepEqual([first.metadata.labels?.[TO_EVICT_LABEL], first.metadata.annotations?.[EVICTION_REQUESTED_ANNOTATION]], [at.toString(), at.toString()]);
    assert.equal(markEvictionRequest(first, at + refresh - 1n, refresh), undefined);
    const later = markEvictionRequest(first, at + refresh, refresh)!;
    assert.deepEqual([later.metadata.labels?.[TO_EVICT_LABEL], later.metadata.annotations?.[EVICTION_REQUESTED_ANNOTATION]], [at.toString(), (at + refresh).toString()]);
  });
});

describe('a node being emptied, which vouches for an eviction of its pods', () => {
  const node = (spec: NonNullable<Node['spec']>): Node => ({ metadata: { name: 'n1' }, spec });
  test('cordoned, or tainted by a tool that removes nodes', () => {
    assert.equal(nodeBeingEmptied(node({ unschedulable: true })), 'node n1 is cordoned');
    assert.equal(nodeBeingEmptied(node({ taints: [{ key: 'ToBeDeletedByClusterAutoscaler', value: '1', effect: 'NoSchedule' }] })), 'node n1 has the taint ToBeDeletedByClusterAutoscaler:NoSchedule');
    assert.equal(nodeBeingEmptied(node({ taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] })), 'node n1 has the taint karpenter.sh/disrupted:NoSchedule');
    assert.equal(nodeBeingEmptied(node({ taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }] })), 'node n1 has the taint node.kubernetes.io/out-of-service:NoExecute');
  });
  test('a schedulable node, a soft candidate taint, or other taints vouch for nothing', () => {
    assert.equal(nodeBeingEmptied(node({})), undefined);
    assert.equal(nodeBeingEmptied(node({ unschedulable: false, taints: [{ key: 'DeletionCandidateOfClusterAutoscaler', value: '1', effect: 'PreferNoSchedule' }] })), undefined);
    assert.equal(nodeBeingEmptied(node({ taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'PreferNoSchedule' }, { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] })), undefined);
  });
});

test('an eviction is vouched for by an authenticated API server, or by its node being emptied', () => {
  const node = (unschedulable: boolean): Node => ({ metadata: { name: 'n1' }, spec: { unschedulable } });
  assert.equal(evictionVouchedFor(true, undefined), 'the API server is authenticated');
  assert.equal(evictionVouchedFor(false, node(true)), 'node n1 is cordoned');
  assert.equal(evictionVouchedFor(false, node(false)), undefined);
  assert.equal(evictionVouchedFor(false, undefined), undefined, 'no node: nothing vouches');
});
