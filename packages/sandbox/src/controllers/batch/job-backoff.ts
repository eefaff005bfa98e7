// The Job controller's pod-failure back-off (backoff_utils.go): per Job, the failures since the last
// success and the time of the latest one; a replacement pod is created only once the back-off (the
// base delay, doubled per further failure, capped) has passed since that failure. A pod's finish time
// is its containers' latest finishedAt, else its Ready=False transition, else deletionTimestamp minus
// the grace period, else its creation.

import { readPath, type KubeObject } from '../../meta/object.ts';
import { parseTimestamp } from '../../meta/time.ts';
import { podCondition } from '../apps/pod-state.ts';

export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureTime: number | undefined;
}

function containersFinishedAt(pod: KubeObject): number | undefined {
  const statuses = readPath(pod, ['status', 'containerStatuses']);
  let latest: number | undefined;
  for (const status of Array.isArray(statuses) ? statuses : []) {
    const finishedAt = parseTimestamp(readPath(status, ['state', 'terminated', 'finishedAt']));
    if (finishedAt === undefined) return undefined;
    if (latest === undefined || finishedAt > latest) latest = finishedAt;
  }
  return latest;
}

/** getFinishedTime */
function podFinishedTime(pod: KubeObject): number {
  const fromContainers = containersFinishedAt(pod);
  if (fromContainers !== undefined) return fromContainers;
  const ready = podCondition(pod, 'Ready');
  const readyFalseAt = ready?.status === 'False' ? parseTimestamp(ready.lastTransitionTime) : undefined;
  if (readyFalseAt !== undefined) return readyFalseAt;
  const deletedAt = parseTimestamp(pod.metadata.deletionTimestamp);
  if (deletedAt !== undefined) return deletedAt - (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
  return parseTimestamp(pod.metadata.creationTimestamp) ?? 0;
}

export class BackoffStore {
  readonly #records = new Map<string, BackoffRecord>();

  /** newBackoffRecord: the record after this sync's newly finished pods. */
  next(key: string, newSucceeded: readonly KubeObject[], newFailed: readonly KubeObject[]): BackoffRecord {
    const previous = this.#records.get(key) ?? { failuresAfterLastSuccess: 0, lastFailureTime: undefined };
    const failedTimes = newFailed.map(podFinishedTime).sort((a, b) => a - b);
    if (!newSucceeded.length) {
      if (!failedTimes.length) return { ...previous };
      return { failuresAfterLastSuccess: previous.failuresAfterLastSuccess + failedTimes.length, lastFailureTime: failedTimes[failedTimes.length - 1] };
    }
    const lastSuccess = Math.max(...newSucceeded.map(podFinishedTime));
    const after = failedTimes.filter((t) => t > lastSuccess);
    return { failuresAfterLastSuccess: after.length, lastFailureTime: after.length ? after[after.length - 1] : undefined };
  }

  update(key: string, record: BackoffRecord): void {
    this.#records.set(key, record);
  }

  remove(key: string): void {
    this.#records.delete(key);
  }
}

/** getRemainingTime: milliseconds until a replacement may be created (0 when it may be now). */
export function remainingBackoff(record: BackoffRecord, now: number, baseMs: number, maxMs: number): number {
  if (record.failuresAfterLastSuccess === 0 || record.lastFailureTime === undefined) return 0;
  let backoff = baseMs;
  for (let i = 1; i < record.failuresAfterLastSuccess; i++) {
    backoff *= 2;
    if (backoff >= maxMs) {
      backoff = maxMs;
      break;
    }
  }
  const elapsed = now - record.lastFailureTime;
  return backoff < elapsed ? 0 : backoff - elapsed;
}
