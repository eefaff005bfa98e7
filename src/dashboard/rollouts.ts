// A RolloutLifecycle as the dashboard shows it, from its status alone (as `podops rollout status` reads it): the
// rollout's points and which are reached, and each hook's Job and phase.

import type { RolloutLifecycle } from '../api/rolloutlifecycle.ts';
import { failedCondition, rolloutTarget } from '../rollout/report.ts';
import type { RolloutView } from './views.ts';

const time = (value: string | undefined): number | undefined => {
  const at = value === undefined ? NaN : Date.parse(value);
  return Number.isFinite(at) ? at : undefined;
};

export function rolloutView(rl: RolloutLifecycle): RolloutView {
  const rollout = rl.status?.rollout;
  return {
    key: `${rl.metadata.namespace ?? ''}/${rl.metadata.name ?? ''}`,
    namespace: rl.metadata.namespace ?? '',
    name: rl.metadata.name ?? '',
    target: rolloutTarget(rl),
    rollout: rollout && {
      type: rollout.type,
      phase: rollout.phase,
      pointReached: rollout.pointReached,
      message: rollout.message,
      fromRevision: rollout.fromRevision,
      toRevision: rollout.toRevision,
      replicas: rollout.replicas,
      newAvailable: rollout.newAvailable,
      startTime: time(rollout.startTime),
      points: rollout.points.map((p) => ({ progressPoint: p.progressPoint, count: p.count, hooks: p.hooks, reached: p.reached, reachedTime: time(p.reachedTime) })),
    },
    hooks: (rl.status?.hooks ?? []).map((h) => ({
      name: h.name,
      point: h.point,
      phase: h.phase,
      job: h.job,
      attempt: h.attempt,
      message: h.message,
      startTime: time(h.startTime),
      completionTime: time(h.completionTime),
    })),
    failed: failedCondition(rl)?.message,
  };
}
