// The Job status the controller reads and writes: conditions (ensureJobConditionStatus), the uncounted
// pods moving into the counters, and the status in its Go field order with zero omitempty fields left
// out (`terminating`, `ready` and `uncountedTerminatedPods` are pointers, shown even when zero or empty).

import { isJsonObject, type KubeObject } from '../../meta/object.ts';
import { formatTimestamp } from '../../meta/time.ts';
import { jobConditions, statusNumber, type JobCondition } from './job-spec.ts';

export interface JobStatus {
  conditions: JobCondition[];
  startTime?: string;
  completionTime?: string;
  active: number;
  succeeded: number;
  failed: number;
  terminating: number;
  completedIndexes: string;
  uncountedTerminatedPods: { succeeded: string[]; failed: string[] };
  ready: number;
}

export function newCondition(type: string, status: string, reason: string, message: string, now: number): JobCondition {
  const time = formatTimestamp(now);
  const condition: JobCondition = { type, status, lastProbeTime: time, lastTransitionTime: time };
  if (reason) condition.reason = reason;
  if (message) condition.message = message;
  return condition;
}

/**
 * ensureJobConditionStatus: replaces a condition of that type whose status, reason or message differ,
 * or appends it unless it would be a new False one. Answers whether anything changed.
 */
export function ensureCondition(conditions: JobCondition[], type: string, status: string, reason: string, message: string, now: number): boolean {
  const at = conditions.findIndex((c) => c.type === type);
  const existing = conditions[at];
  if (existing) {
    if (existing.status === status && (existing.reason ?? '') === reason && (existing.message ?? '') === message) return false;
    conditions[at] = newCondition(type, status, reason, message, now);
    return true;
  }
  if (status === 'False') return false;
  conditions.push(newCondition(type, status, reason, message, now));
  return true;
}

export function renderJobStatus(status: JobStatus, indexed: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (status.conditions.length) out.conditions = status.conditions;
  if (status.startTime) out.startTime = status.startTime;
  if (status.completionTime) out.completionTime = status.completionTime;
  if (status.active) out.active = status.active;
  if (status.succeeded) out.succeeded = status.succeeded;
  if (status.failed) out.failed = status.failed;
  out.terminating = status.terminating;
  if (indexed && status.completedIndexes) out.completedIndexes = status.completedIndexes;
  const uncounted: Record<string, string[]> = {};
  if (status.uncountedTerminatedPods.succeeded.length) uncounted.succeeded = status.uncountedTerminatedPods.succeeded;
  if (status.uncountedTerminatedPods.failed.length) uncounted.failed = status.uncountedTerminatedPods.failed;
  out.uncountedTerminatedPods = uncounted;
  out.ready = status.ready;
  return out;
}

/** The stored status as the controller works on it (a copy). */
export function readJobStatus(job: KubeObject): JobStatus {
  const status = isJsonObject(job.status) ? job.status : {};
  const uncounted = isJsonObject(status.uncountedTerminatedPods) ? status.uncountedTerminatedPods : {};
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return {
    conditions: jobConditions(job).map((c) => ({ ...c })),
    ...(typeof status.startTime === 'string' ? { startTime: status.startTime } : {}),
    ...(typeof status.completionTime === 'string' ? { completionTime: status.completionTime } : {}),
    active: statusNumber(job, 'active'),
    succeeded: statusNumber(job, 'succeeded'),
    failed: statusNumber(job, 'failed'),
    terminating: statusNumber(job, 'terminating'),
    completedIndexes: typeof status.completedIndexes === 'string' ? status.completedIndexes : '',
    uncountedTerminatedPods: { succeeded: strings(uncounted.succeeded), failed: strings(uncounted.failed) },
    ready: statusNumber(job, 'ready'),
  };
}

/** cleanUncountedPodsWithoutFinalizers: uncounted pods whose finalizer is gone move into the counters. */
export function cleanUncounted(status: JobStatus, withFinalizer: ReadonlySet<string>): boolean {
  const uncounted = status.uncountedTerminatedPods;
  let changed = false;
  const keptSucceeded = uncounted.succeeded.filter((uid) => withFinalizer.has(uid));
  if (keptSucceeded.length !== uncounted.succeeded.length) {
    status.succeeded += uncounted.succeeded.length - keptSucceeded.length;
    uncounted.succeeded = keptSucceeded;
    changed = true;
  }
  const keptFailed = uncounted.failed.filter((uid) => withFinalizer.has(uid));
  if (keptFailed.length !== uncounted.failed.length) {
    status.failed += uncounted.failed.length - keptFailed.length;
    uncounted.failed = keptFailed;
    changed = true;
  }
  return changed;
}
