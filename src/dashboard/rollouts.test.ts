// A RolloutLifecycle on the dashboard: the rollout's points and the one reached, each hook's Job and phase.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RolloutLifecycle } from '../api/rolloutlifecycle.ts';
import { rolloutView } from './rollouts.ts';

const held: RolloutLifecycle = {
  metadata: { name: 'web', namespace: 'demo' },
  spec: { targetRef: { kind: 'Deployment', name: 'web' } },
  status: {
    target: 'Deployment/web',
    rollout: {
      id: 'r1',
      type: 'ROLLOUT',
      templateHash: 'abc',
      fromRevision: 'web-111',
      toRevision: 'web-222',
      startTime: '2026-01-01T10:00:00Z',
      phase: 'Failed',
      replicas: 4,
      newAvailable: 2,
      pointReached: '2/3',
      message: 'hook smoke failed',
      points: [
        { progressPoint: '0', count: 0, hooks: ['migrate'], reached: true, reachedTime: '2026-01-01T10:00:01Z' },
        { progressPoint: '50%', count: 2, hooks: ['smoke'], reached: true, reachedTime: '2026-01-01T10:00:30Z' },
        { progressPoint: '100%', count: 4, hooks: ['notify'], reached: false },
      ],
    },
    hooks: [
      { name: 'migrate', point: 0, rollout: 'r1', templateHash: 'abc', job: 'web-migrate-abc', attempt: 1, phase: 'Succeeded', startTime: '2026-01-01T10:00:01Z', completionTime: '2026-01-01T10:00:04Z' },
      { name: 'smoke', point: 2, rollout: 'r1', templateHash: 'abc', job: 'web-smoke-abc-2', attempt: 2, phase: 'Failed', startTime: '2026-01-01T10:00:30Z', message: 'Job failed: BackoffLimitExceeded' },
    ],
    conditions: [{ type: 'Failed', status: 'True', reason: 'HookFailed', message: 'hook smoke failed', lastTransitionTime: '2026-01-01T10:00:40Z' }],
  },
};

test('points with the ones reached, hooks with their Jobs, phases and attempts, and the failure', () => {
  const view = rolloutView(held);
  assert.equal(view.target, 'Deployment/web');
  assert.equal(view.rollout?.pointReached, '2/3');
  assert.equal(view.rollout?.phase, 'Failed');
  assert.equal(view.rollout?.startTime, Date.parse('2026-01-01T10:00:00Z'));
  assert.deepEqual(
    view.rollout?.points.map((p) => [p.progressPoint, p.reached, p.hooks]),
    [
      ['0', true, ['migrate']],
      ['50%', true, ['smoke']],
      ['100%', false, ['notify']],
    ],
  );
  assert.deepEqual(
    view.hooks.map((h) => [h.name, h.phase, h.job, h.attempt, h.message]),
    [
      ['migrate', 'Succeeded', 'web-migrate-abc', 1, undefined],
      ['smoke', 'Failed', 'web-smoke-abc-2', 2, 'Job failed: BackoffLimitExceeded'],
    ],
  );
  assert.equal(view.hooks[0]?.completionTime, Date.parse('2026-01-01T10:00:04Z'));
  assert.equal(view.failed, 'hook smoke failed');
});

test('before any rollout: the target from the spec, no points, no failure', () => {
  const view = rolloutView({ metadata: { name: 'web', namespace: 'demo' }, spec: { targetRef: { kind: 'StatefulSet', name: 'db' } } });
  assert.deepEqual([view.target, view.rollout, view.hooks, view.failed], ['StatefulSet/db', undefined, [], undefined]);
});
