// What `podops rollout status` prints of a failed rollout: where to go on, with the command that works for the kind.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RolloutLifecycle, WorkloadKind } from '../api/rolloutlifecycle.ts';
import { rolloutReport } from './report.ts';

const failed = (kind: WorkloadKind, name: string): RolloutLifecycle => ({
  metadata: { name, namespace: 'shop' },
  spec: { targetRef: { kind, name } },
  status: { target: `${kind}/${name}`, conditions: [{ type: 'Failed', status: 'True', lastTransitionTime: '2025-03-01T10:00:00Z', reason: 'HookFailed', message: 'hook smoke failed' }] },
});
const nextSteps = (rl: RolloutLifecycle): string | undefined => rolloutReport(rl, 0).split('\n').find((line) => line.startsWith('  to go on: '));

test('a held Deployment is rolled back with podops rollout undo: kubectl refuses a paused Deployment', () => {
  assert.equal(
    nextSteps(failed('Deployment', 'web')),
    '  to go on: fix the hook and podops rollout retry deployment/web -n shop, or roll back: podops rollout undo deployment/web -n shop (kubectl rollout undo refuses a paused Deployment)',
  );
});

test('a StatefulSet or DaemonSet is rolled back with kubectl rollout undo', () => {
  assert.match(nextSteps(failed('StatefulSet', 'db')) ?? '', /or roll back: kubectl rollout undo statefulset\/db -n shop \(or podops rollout undo\)$/);
  assert.match(nextSteps(failed('DaemonSet', 'agent')) ?? '', /or roll back: kubectl rollout undo daemonset\/agent -n shop \(or podops rollout undo\)$/);
});

test('nothing to go on from while no hook failed', () => {
  assert.equal(nextSteps({ ...failed('Deployment', 'web'), status: { conditions: [] } }), undefined);
});
