// What `podops rollout status` and `podops status` (text or JSON) print of a RolloutLifecycle, from its status
// alone (so it reads the same on any cluster).

import type { RolloutLifecycle } from '../api/rolloutlifecycle.ts';

const since = (time: string | undefined, nowMs: number): string => {
  const at = time === undefined ? NaN : Date.parse(time);
  if (!Number.isFinite(at)) return '';
  const seconds = Math.max(0, Math.round((nowMs - at) / 1000));
  return seconds < 120 ? `${seconds}s` : seconds < 7200 ? `${Math.round(seconds / 60)}m` : `${Math.round(seconds / 3600)}h`;
};

/** `Kind/name` of the RolloutLifecycle's workload: as its status names it, else from its spec. */
export const rolloutTarget = (rl: RolloutLifecycle): string => rl.status?.target ?? `${rl.spec?.targetRef?.kind ?? '?'}/${rl.spec?.targetRef?.name ?? '?'}`;

/** The RolloutLifecycle's Failed condition when True: the rollout waits for a retry or a rollback. */
export const failedCondition = (rl: RolloutLifecycle) => rl.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');

/** One line: where the rollout of the RolloutLifecycle's workload is. */
export function rolloutSummary(rl: RolloutLifecycle): string {
  const target = rolloutTarget(rl);
  const rollout = rl.status?.rollout;
  if (!rollout) return `${target}: no rollout since RolloutLifecycle ${rl.metadata.name} was created`;
  return `${target}: ${rollout.type} ${rollout.phase}, points ${rollout.pointReached}${rollout.message ? `: ${rollout.message}` : ''}`;
}

/** A rollout as `podops status -o json` lists it: the summary line's facts, and the status they come from. */
export const rolloutJson = (rl: RolloutLifecycle) => ({
  namespace: rl.metadata.namespace,
  rolloutLifecycle: rl.metadata.name,
  target: rl.status?.target,
  summary: rolloutSummary(rl),
  rollout: rl.status?.rollout,
  hooks: rl.status?.hooks ?? [],
});

/** Whether the rollout stopped on a failed hook: it waits for a retry or a rollback (the CLI exits with 1). */
export const rolloutFailed = (rl: RolloutLifecycle): boolean => rl.status?.rollout?.phase === 'Failed';

/** Whether the rollout waits for something (podops status mentions those). */
export const rolloutUnderway = (rl: RolloutLifecycle): boolean => ['Progressing', 'Held', 'Failed'].includes(rl.status?.rollout?.phase ?? '');

/** The full report of `podops rollout status`. */
export function rolloutReport(rl: RolloutLifecycle, nowMs: number): string {
  const lines = [rolloutSummary(rl)];
  const rollout = rl.status?.rollout;
  if (rollout) {
    lines.push(
      `  revision:  ${rollout.fromRevision ?? '?'} -> ${rollout.toRevision ?? '(not created yet)'} (template ${rollout.templateHash}), started ${since(rollout.startTime, nowMs)} ago${
        rollout.completionTime ? `, complete ${since(rollout.completionTime, nowMs)} ago` : ''
      }`,
      `  replicas:  ${rollout.newAvailable}/${rollout.replicas} new and available`,
      '  points:',
      ...rollout.points.map((p) => `    ${p.reached ? '[x]' : '[ ]'} ${p.progressPoint.padEnd(6)} (${p.count} new available)  hooks: ${p.hooks.join(', ') || '-'}`),
    );
  }
  const hooks = rl.status?.hooks ?? [];
  if (hooks.length > 0) {
    lines.push('  hooks:');
    for (const hook of hooks) {
      const took = hook.startTime && hook.completionTime ? ` in ${Math.round((Date.parse(hook.completionTime) - Date.parse(hook.startTime)) / 1000)}s` : hook.startTime ? ` for ${since(hook.startTime, nowMs)}` : '';
      lines.push(`    ${hook.name.padEnd(16)} ${hook.phase.padEnd(9)} Job ${hook.job}${hook.attempt > 1 ? ` (attempt ${hook.attempt})` : ''}${took}${hook.message ? `: ${hook.message}` : ''}`);
    }
  }
  if (failedCondition(rl)) lines.push(`  to go on: ${nextSteps(rl)}`);
  return `${lines.join('\n')}\n`;
}

/** The commands that take a failed rollout on: a retry of the hook, or a rollback with the command that works for the kind. */
function nextSteps(rl: RolloutLifecycle): string {
  const kind = rl.spec?.targetRef?.kind ?? '';
  const target = `${kind.toLowerCase()}/${rl.spec?.targetRef?.name ?? ''} -n ${rl.metadata.namespace ?? ''}`;
  // kubectl refuses to roll back a paused Deployment, and podops holds it paused.
  const undo = kind === 'Deployment' ? `podops rollout undo ${target} (kubectl rollout undo refuses a paused Deployment)` : `kubectl rollout undo ${target} (or podops rollout undo)`;
  return `fix the hook and podops rollout retry ${target}, or roll back: ${undo}`;
}
