// The rollout of one workload, one step at a time: given the RolloutLifecycle's hooks, what its status
// remembers and what is observed now, the next status, the hold the workload should be under, and the
// hook Jobs to create, delete or suspend. Level-triggered and idempotent: planning again on the same
// observation plans nothing new.
//
// The algorithm (the lifecycle-hooks proposal's, made exact): points are taken in order. The workload is
// held at the first point whose hooks are not all done; once its new available replicas reach the point,
// the point's hooks run (in parallel); when they are done, the hold moves to the next point. The last point
// (every replica new and available) is reached with the user's own settings back. A hook that fails with
// failurePolicy Abort keeps the rollout held where it is until a retry or a new rollout; Ignore goes on.
// A new template while a rollout runs (rollover, or a rollback) cancels the hooks still running. A complete
// rollout stays so: only a new template starts another.

import { createHash } from 'node:crypto';
import { RL_RETRY_ANNOTATION, type Condition, type HookRecord, type LifecycleHook, type PointRecord, type RolloutLifecycle, type RolloutPhase, type RolloutRecord } from '../api/rolloutlifecycle.ts';
import { hookJobName } from './jobs.ts';
import { resolvePoints, type Point } from './points.ts';
import type { RolloutStamp } from './stash.ts';
import type { Hold } from './workload.ts';

export interface JobObservation {
  phase: 'Active' | 'Succeeded' | 'Failed';
  message?: string;
}

export interface Observation {
  /** podops' hash of the workload's current pod template. */
  templateHash: string;
  stamp?: RolloutStamp;
  /** The user's settings are stashed: the workload is under podops' hold. */
  held: boolean;
  replicas: number;
  /** Replicas the user's own settings let reach the new revision (a StatefulSet partition keeps the rest). */
  reachable: number;
  /**
   * The revision of the current template can be named: always for a Deployment (its new ReplicaSet appears
   * with its first pod, after point 0), for a StatefulSet or DaemonSet once its ControllerRevision exists.
   */
  revisionReady: boolean;
  /** The revision objects, by name, once they exist. */
  fromRevision?: string;
  toRevision?: string;
  newAvailable: number;
  /** The rollout is finished: every replica new and available, no old pod left (a partition of the user's holds it back). */
  complete: boolean;
  /** The user's settings leave the replacing of pods to someone else (OnDelete): podops holds nothing. */
  userDrives: boolean;
  /** Hook Jobs that exist, by name. */
  jobs: ReadonlyMap<string, JobObservation>;
}

export interface PlanInput {
  now: string;
  workloadName: string;
  hooks: readonly LifecycleHook[];
  rollout?: RolloutRecord;
  hookRecords?: readonly HookRecord[];
  conditions?: readonly Condition[];
  generation?: number;
  observation: Observation;
  /** Hooks `podops rollout retry` asked to run again (`*`: every failed one). */
  retry?: readonly string[];
}

/** The plan's input for a RolloutLifecycle: its hooks, what its status remembers, and the retry it was asked for. */
export function rolloutPlanInput(rl: RolloutLifecycle, workloadName: string, observation: Observation, now: string): PlanInput {
  const retry = rl.metadata.annotations?.[RL_RETRY_ANNOTATION]?.split(',').map((h) => h.trim()).filter(Boolean);
  return {
    now,
    workloadName,
    hooks: rl.spec?.hooks ?? [],
    ...(rl.status?.rollout && { rollout: rl.status.rollout }),
    ...(rl.status?.hooks && { hookRecords: rl.status.hooks }),
    ...(rl.status?.conditions && { conditions: rl.status.conditions }),
    ...(rl.metadata.generation !== undefined && { generation: rl.metadata.generation }),
    observation,
    ...(retry && { retry }),
  };
}

export interface JobAction {
  hook: string;
  name: string;
  point: number;
}

export interface RolloutEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface Plan {
  rollout?: RolloutRecord;
  /**
   * The stamp of a rollout the webhook did not stamp (the template changed while the webhook did not hold the
   * workload): written on the workload with the hold, before any Job of the rollout is created, so the Jobs'
   * names (which hold the rollout's id) are the same after a restart.
   */
  stamp?: RolloutStamp;
  hooks: HookRecord[];
  conditions: Condition[];
  /** The hold the workload should be under; undefined: no rollout, leave it alone. */
  hold?: Hold;
  createJobs: JobAction[];
  deleteJobs: string[];
  /** Jobs of cancelled hooks kept for inspection (retainPolicy Always): suspended, so their pods stop. */
  suspendJobs: string[];
  events: RolloutEvent[];
  /** The retry request was acted on. */
  retried: boolean;
}

const ACTIVE: readonly HookRecord['phase'][] = ['Pending', 'Running'];

function hookOf(hooks: readonly LifecycleHook[], name: string): LifecycleHook | undefined {
  return hooks.find((h) => h.name === name);
}

/**
 * The rollout record for the current template: the remembered one, or a new one (a new rollout or a rollover),
 * with the stamp to write when the workload has none for it.
 */
function currentRollout(input: PlanInput, points: readonly Point[]): { record: RolloutRecord; started: boolean; unstamped?: RolloutStamp } {
  const { observation: o, rollout } = input;
  const stamp = o.stamp?.templateHash === o.templateHash ? o.stamp : undefined;
  if (rollout && rollout.templateHash === o.templateHash && (stamp === undefined || stamp.id === rollout.id)) {
    // A finished rollout's record stays as it finished (its points were counted for its replicas).
    return { record: rollout.phase === 'Complete' ? { ...rollout } : { ...rollout, replicas: o.replicas, newAvailable: o.newAvailable }, started: false };
  }
  // A rollover keeps the revision the unfinished rollout started from (its pods still run it); a rollback
  // comes from the revision it abandons, as the webhook stamped it (none when that template never got one).
  const type = stamp?.type ?? 'ROLLOUT';
  const from = type === 'ROLLBACK' ? stamp?.from : rollout && rollout.phase !== 'Complete' ? rollout.fromRevision : (stamp?.from ?? o.fromRevision);
  const startTime = stamp?.changedAt ?? input.now;
  const record: RolloutRecord = {
    id: stamp?.id ?? rolloutId(o.templateHash, startTime),
    type,
    templateHash: o.templateHash,
    ...(from !== undefined && { fromRevision: from }),
    startTime,
    phase: 'Progressing',
    replicas: o.replicas,
    newAvailable: o.newAvailable,
    points: [],
    pointReached: `0/${points.length}`,
  };
  if (stamp) return { record, started: true };
  const unstamped: RolloutStamp = { id: record.id, templateHash: record.templateHash, type, ...(from !== undefined && { from }), changedAt: startTime };
  return { record, started: true, unstamped };
}

/** The hook records of this rollout: remembered ones updated from their Jobs, and Pending ones for the rest. */
function hookRecords(input: PlanInput, points: readonly Point[], record: RolloutRecord, events: RolloutEvent[]): HookRecord[] {
  const { observation: o } = input;
  const remembered = (input.hookRecords ?? []).filter((h) => h.rollout === record.id);
  const records: HookRecord[] = [];
  for (const point of points) {
    for (const name of point.hooks) {
      const previous = remembered.find((h) => h.name === name);
      const hook: HookRecord = previous
        ? { ...previous, point: point.count }
        : { name, point: point.count, rollout: record.id, templateHash: record.templateHash, job: hookJobName(input.workloadName, name, record.id, 1), attempt: 1, phase: 'Pending' };
      if (hook.phase === 'Running') {
        const job = o.jobs.get(hook.job);
        const ended: Partial<HookRecord> | undefined = !job
          ? { phase: 'Failed', message: `Job ${hook.job} was deleted before it finished` }
          : job.phase === 'Succeeded'
            ? { phase: 'Succeeded' }
            : job.phase === 'Failed'
              ? { phase: 'Failed', message: job.message ?? `Job ${hook.job} failed` }
              : undefined;
        if (ended) Object.assign(hook, ended, { completionTime: input.now });
        if (ended?.phase === 'Succeeded') events.push({ type: 'Normal', reason: 'HookSucceeded', message: `hook ${name} (Job ${hook.job}) succeeded` });
        if (ended?.phase === 'Failed') {
          const policy = hookOf(input.hooks, name)?.failurePolicy ?? 'Abort';
          events.push({
            type: 'Warning',
            reason: 'HookFailed',
            message: `hook ${name} (Job ${hook.job}) failed: ${hook.message ?? ''}; failurePolicy ${policy}: ${policy === 'Ignore' ? 'the rollout goes on' : 'the rollout is held'}`,
          });
        }
      }
      records.push(hook);
    }
  }
  return records;
}

/** The id of a rollout the webhook did not stamp: its template and when podops first saw it. */
const rolloutId = (templateHash: string, startTime: string): string => createHash('sha256').update(`${templateHash}@${startTime}`).digest('hex').slice(0, 10);

/** What becomes of the Jobs of cancelled hooks: kept for inspection (retainPolicy Always) and suspended, so their pods stop; else deleted. */
export type CancelledJobs = Pick<Plan, 'suspendJobs' | 'deleteJobs'>;

function cancelJob(hooks: readonly LifecycleHook[], hook: HookRecord, jobs: CancelledJobs): void {
  ((hookOf(hooks, hook.name)?.retainPolicy ?? 'Always') === 'Always' ? jobs.suspendJobs : jobs.deleteJobs).push(hook.job);
}

/** The hooks still running (or about to) when their RolloutLifecycle goes: their names, and their Jobs' fate. */
export function cancelRunningHooks(hooks: readonly LifecycleHook[], records: readonly HookRecord[]): CancelledJobs & { cancelled: string[] } {
  const running = records.filter((hook) => ACTIVE.includes(hook.phase));
  const jobs: CancelledJobs = { suspendJobs: [], deleteJobs: [] };
  for (const hook of running) cancelJob(hooks, hook, jobs);
  return { ...jobs, cancelled: running.map((hook) => hook.name) };
}

const cancelled = (hook: HookRecord, now: string, why: string): HookRecord => ({ ...hook, phase: 'Cancelled', completionTime: now, message: why });

export function planRollout(input: PlanInput): Plan {
  const { observation: o, now } = input;
  const plan: Plan = { hooks: [], conditions: [], createJobs: [], deleteJobs: [], suspendJobs: [], events: [], retried: false };
  const retainOf = (name: string): string => hookOf(input.hooks, name)?.retainPolicy ?? 'Always';

  if (!input.rollout && !o.held) {
    plan.conditions = conditions(input, undefined);
    return plan;
  }
  // Retention: a finished Job goes unless its policy keeps it; only once the status remembers how it ended,
  // so a Job is never deleted before its end is recorded.
  const expire = (hook: HookRecord): void => {
    const policy = retainOf(hook.name);
    const remembered = input.hookRecords?.find((h) => h.job === hook.job)?.phase;
    const done = (hook.phase === 'Succeeded' || hook.phase === 'Failed') && remembered === hook.phase;
    const keep = policy === 'Always' || (policy === 'OnFailure' && hook.phase === 'Failed');
    if (done && !keep && o.jobs.has(hook.job)) plan.deleteJobs.push(hook.job);
  };

  const points = resolvePoints(input.hooks, o.replicas);
  const { record, started, unstamped } = currentRollout(input, points);
  // A rollout's id names its Jobs: none is created before the id is on an object (the stamp, or the status).
  if (unstamped) plan.stamp = unstamped;
  // A finished rollout stays as it finished: a later change of the replicas or the hooks is not a rollout.
  const finished = !started && record.phase === 'Complete';
  if (started && input.rollout) {
    // Rollover: the running hooks of the template that is no more are cancelled; one whose Job ended before the
    // rollover was seen is recorded as it ended (its Job left to retention). The finished hooks the status
    // forgets here get their retention here.
    for (const hook of input.hookRecords ?? []) {
      if (hook.rollout === record.id) continue;
      const job = hook.phase === 'Running' ? o.jobs.get(hook.job) : undefined;
      if (hook.rollout !== input.rollout.id || !ACTIVE.includes(hook.phase)) expire(hook);
      else if (job && job.phase !== 'Active') plan.hooks.push({ ...hook, phase: job.phase, completionTime: now, ...(job.phase === 'Failed' && { message: job.message ?? `Job ${hook.job} failed` }) });
      else {
        plan.hooks.push(cancelled(hook, now, `cancelled: the template changed (rollout ${record.templateHash})`));
        if (job) cancelJob(input.hooks, hook, plan);
      }
    }
    if (input.rollout.phase !== 'Complete') plan.events.push({ type: 'Normal', reason: 'RolloutCancelled', message: `rollout to ${input.rollout.templateHash} superseded by ${record.templateHash}` });
    plan.events.push({ type: 'Normal', reason: 'RolloutStarted', message: `${record.type} to ${record.templateHash} started` });
  } else if (started) {
    plan.events.push({ type: 'Normal', reason: 'RolloutStarted', message: `${record.type} to ${record.templateHash} started` });
  }
  if (o.toRevision !== undefined) record.toRevision = o.toRevision;
  // The hooks of the rollout the previous rollover superseded stay visible until the rollout after it.
  const kept = started ? [] : (input.hookRecords ?? []).filter((h) => h.rollout !== record.id);
  const hooks = finished ? (input.hookRecords ?? []).filter((h) => h.rollout === record.id).map((h) => ({ ...h })) : hookRecords(input, points, record, plan.events);
  if (input.retry?.length) {
    // A finished rollout runs nothing more; the request is answered all the same.
    for (const hook of finished ? [] : hooks) {
      if (hook.phase !== 'Failed' || !(input.retry.includes('*') || input.retry.includes(hook.name))) continue;
      const attempt = hook.attempt + 1;
      Object.assign(hook, { attempt, job: hookJobName(input.workloadName, hook.name, record.id, attempt), phase: 'Pending' });
      delete hook.message;
      delete hook.startTime;
      delete hook.completionTime;
      plan.events.push({ type: 'Normal', reason: 'HookRetried', message: `hook ${hook.name}: attempt ${attempt}` });
    }
    plan.retried = true;
  }

  const previousPoints = new Map((started ? [] : record.points).map((p) => [p.count, p]));
  const pointRecords: PointRecord[] = finished
    ? record.points
    : points.map((p) => ({
        progressPoint: p.progressPoints.join(','),
        count: p.count,
        hooks: p.hooks,
        reached: previousPoints.get(p.count)?.reached ?? false,
        ...(previousPoints.get(p.count)?.reachedTime !== undefined && { reachedTime: previousPoints.get(p.count)?.reachedTime }),
      }));

  let phase: RolloutPhase = 'Progressing';
  let message = '';
  let hold: Hold = { type: 'release' };
  let blocked = false;
  for (const point of finished ? [] : pointRecords) {
    const final = point.count >= o.replicas;
    const stop: Hold = final ? { type: 'release' } : { type: 'step', count: point.count };
    if (!point.reached) {
      const reached = final ? o.complete : o.newAvailable >= point.count && (point.count > 0 || o.revisionReady);
      if (!reached) {
        hold = stop;
        message =
          final && o.reachable < o.replicas
            ? `waiting for every replica to be new: the user's partition keeps ${o.replicas - o.reachable} at the old revision`
            : `waiting for ${point.count} new available replicas to reach point ${point.progressPoint}`;
        blocked = true;
        break;
      }
      point.reached = true;
      point.reachedTime = now;
      plan.events.push({ type: 'Normal', reason: 'PointReached', message: `point ${point.progressPoint} reached (${o.newAvailable}/${o.replicas} new available)` });
    }
    const mine = hooks.filter((h) => h.point === point.count);
    if (unstamped && mine.some((h) => h.phase === 'Pending')) {
      hold = stop;
      message = `point ${point.progressPoint} reached: its hooks run once the rollout is stamped on the workload`;
      blocked = true;
      break;
    }
    for (const hook of mine.filter((h) => h.phase === 'Pending')) {
      Object.assign(hook, { phase: 'Running', startTime: now });
      plan.createJobs.push({ hook: hook.name, name: hook.job, point: point.count });
      plan.events.push({ type: 'Normal', reason: 'HookStarted', message: `hook ${hook.name} started: Job ${hook.job}` });
    }
    const aborted = mine.find((h) => h.phase === 'Failed' && (hookOf(input.hooks, h.name)?.failurePolicy ?? 'Abort') === 'Abort');
    const running = mine.filter((h) => h.phase === 'Running');
    if (aborted || running.length > 0) {
      hold = stop;
      blocked = true;
      phase = aborted ? 'Failed' : 'Held';
      message = aborted
        ? `hook ${aborted.name} failed (Job ${aborted.job}): ${aborted.message ?? ''}; held at point ${point.progressPoint} until a retry or a new rollout`
        : `held at point ${point.progressPoint}: waiting for hooks ${running.map((h) => h.name).join(', ')}`;
      break;
    }
  }
  if (!blocked) {
    hold = { type: 'release' };
    if (o.complete || finished) {
      phase = 'Complete';
      if (record.phase !== 'Complete') plan.events.push({ type: 'Normal', reason: 'RolloutComplete', message: `${record.type} to ${record.templateHash} complete` });
      record.completionTime = record.phase === 'Complete' ? (record.completionTime ?? now) : now;
    } else {
      message = 'every hook done: waiting for the rollout to finish';
    }
  }
  // The user's OnDelete leaves the replacing of pods to them: podops only watches the points go by.
  plan.hold = o.userDrives ? { type: 'release' } : hold;

  for (const hook of [...kept, ...hooks]) expire(hook);

  const reached = pointRecords.filter((p) => p.reached).length;
  plan.rollout = { ...record, phase, points: pointRecords, pointReached: `${reached}/${pointRecords.length}`, ...(message ? { message } : {}) };
  if (!message) delete plan.rollout.message;
  if (phase !== 'Complete') delete plan.rollout.completionTime;
  plan.hooks = [...plan.hooks, ...kept, ...hooks];
  plan.conditions = conditions(input, plan.rollout, hooks);
  return plan;
}

/** Progressing, Held, Failed and Complete, each moved only when its status changes (lastTransitionTime kept). */
function conditions(input: PlanInput, rollout: RolloutRecord | undefined, hooks: readonly HookRecord[] = []): Condition[] {
  const previous = new Map((input.conditions ?? []).map((c) => [c.type, c]));
  const make = (type: string, on: boolean, reason: string, message: string): Condition => {
    const status = on ? 'True' : 'False';
    const before = previous.get(type);
    return {
      type,
      status,
      ...(input.generation !== undefined && { observedGeneration: input.generation }),
      lastTransitionTime: before?.status === status ? before.lastTransitionTime : input.now,
      reason,
      message,
    };
  };
  const phase = rollout?.phase;
  const failed = hooks.find((h) => h.phase === 'Failed' && (hookOf(input.hooks, h.name)?.failurePolicy ?? 'Abort') === 'Abort');
  const idle = rollout === undefined;
  return [
    make('Progressing', phase === 'Progressing' || phase === 'Held', idle ? 'NoRollout' : phase === 'Complete' ? 'RolloutComplete' : phase === 'Failed' ? 'HookFailed' : 'RolloutProgressing', rollout?.message ?? (idle ? 'no rollout seen yet' : '')),
    make('Held', phase === 'Held' || phase === 'Failed', phase === 'Held' ? 'WaitingForHooks' : phase === 'Failed' ? 'HookFailed' : 'NotHeld', phase === 'Held' || phase === 'Failed' ? (rollout?.message ?? '') : ''),
    make('Failed', phase === 'Failed', phase === 'Failed' ? 'HookFailed' : 'NoFailure', failed ? `hook ${failed.name} failed (Job ${failed.job}): ${failed.message ?? ''}` : ''),
    make('Complete', phase === 'Complete', phase === 'Complete' ? 'RolloutComplete' : 'NotComplete', phase === 'Complete' ? `${rollout?.type} to ${rollout?.templateHash} complete` : ''),
  ];
}
