// Which RolloutLifecycle claims a workload that several target: the oldest, then the first by name.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RolloutLifecycle } from '../api/rolloutlifecycle.ts';
import { claimantOf } from './claim.ts';

const rl = (name: string, created: string, target = 'web', extra: Partial<RolloutLifecycle['metadata']> = {}): RolloutLifecycle => ({
  metadata: { name, namespace: 'shop', creationTimestamp: created, ...extra },
  spec: { targetRef: { kind: 'Deployment', name: target } },
});

test('the oldest claims the workload, whichever asks', () => {
  const [older, newer] = [rl('b', '2025-03-01T10:00:00Z'), rl('a', '2025-03-01T10:00:05Z')];
  assert.equal(claimantOf(newer, [older, newer]), older);
  assert.equal(claimantOf(older, [older, newer]), older);
});

test('created in the same second: the first by name', () => {
  const [a, b] = [rl('a', '2025-03-01T10:00:00Z'), rl('b', '2025-03-01T10:00:00Z')];
  assert.equal(claimantOf(b, [b, a]), a);
});

test('one being deleted claims nothing; another workload, kind or namespace is no rival', () => {
  const mine = rl('b', '2025-03-01T10:00:05Z');
  const going = rl('a', '2025-03-01T10:00:00Z', 'web', { deletionTimestamp: '2025-03-01T10:01:00Z' });
  const elsewhere = { ...rl('c', '2025-03-01T09:00:00Z'), metadata: { ...rl('c', '2025-03-01T09:00:00Z').metadata, namespace: 'other' } };
  const otherKind: RolloutLifecycle = { ...rl('d', '2025-03-01T09:00:00Z'), spec: { targetRef: { kind: 'StatefulSet', name: 'web' } } };
  assert.equal(claimantOf(mine, [going, elsewhere, otherKind, rl('e', '2025-03-01T09:00:00Z', 'api'), mine]), mine);
});
