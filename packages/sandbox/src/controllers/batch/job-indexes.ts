// Indexed Jobs' completion indexes: the ordered intervals of status.completedIndexes ("1,3-5,7"; two
// neighbours are written "1,2"), the first indexes still pending, the active pods to remove because
// they repeat an index, have none, or have one beyond completions, and the success policy's rules.

import { isJsonObject, type KubeObject } from '../../meta/object.ts';
import { compareActivePods } from '../apps/pod-deletion-rank.ts';
import { completionIndexOf } from './job-spec.ts';

export interface Interval {
  first: number;
  last: number;
}

/** orderedIntervals.withOrderedIndexes: merges increasing indexes into the intervals. */
export function withIndexes(intervals: readonly Interval[], indexes: readonly number[]): Interval[] {
  const result: Interval[] = [];
  const add = (next: Interval): void => {
    const last = result[result.length - 1];
    if (!last || next.first > last.last + 1) result.push({ ...next });
    else if (last.last < next.last) last.last = next.last;
  };
  let i = 0;
  let j = 0;
  while (i < intervals.length && j < indexes.length) {
    const interval = intervals[i] as Interval;
    const index = indexes[j] as number;
    if (interval.first < index) {
      add(interval);
      i++;
    } else {
      add({ first: index, last: index });
      j++;
    }
  }
  for (; i < intervals.length; i++) add(intervals[i] as Interval);
  for (; j < indexes.length; j++) add({ first: indexes[j] as number, last: indexes[j] as number });
  return result;
}

export const totalIndexes = (intervals: readonly Interval[]): number => intervals.reduce((n, iv) => n + iv.last - iv.first + 1, 0);

export const hasIndex = (intervals: readonly Interval[], index: number): boolean => intervals.some((iv) => iv.first <= index && index <= iv.last);

export function formatIntervals(intervals: readonly Interval[]): string {
  return intervals.map((iv) => (iv.last === iv.first ? `${iv.first}` : `${iv.first}${iv.last === iv.first + 1 ? ',' : '-'}${iv.last}`)).join(',');
}

/** succeededIndexesFromString: intervals below `completions`; corrupted parts are skipped. */
export function parseIntervals(text: string, completions: number): Interval[] {
  if (text === '') return [];
  const result: Interval[] = [];
  for (const part of text.split(',')) {
    const [firstText = '', lastText] = part.split('-');
    if (!/^[+-]?\d+$/.test(firstText)) continue;
    const first = Number(firstText);
    if (first >= completions) break;
    let last = first;
    if (lastText !== undefined) {
      if (!/^[+-]?\d+$/.test(lastText)) continue;
      last = Math.min(Number(lastText), completions - 1);
    }
    const previous = result[result.length - 1];
    if (previous && previous.last === first - 1) previous.last = last;
    else result.push({ first, last });
  }
  return result;
}

/** firstPendingIndexes: `count` indexes below completions neither succeeded nor held by an active pod. */
export function firstPendingIndexes(activePods: readonly KubeObject[], succeeded: readonly Interval[], count: number, completions: number): number[] {
  if (count === 0) return [];
  const active = [...new Set(activePods.map(completionIndexOf).filter((ix) => ix >= 0))].sort((a, b) => a - b);
  const taken = withIndexes(succeeded, active);
  const result: number[] = [];
  let candidate = 0;
  for (const interval of taken) {
    for (; candidate < completions && result.length < count && candidate < interval.first; candidate++) result.push(candidate);
    if (candidate < interval.last + 1) candidate = interval.last + 1;
  }
  for (; candidate < completions && result.length < count; candidate++) result.push(candidate);
  return result;
}

/**
 * appendDuplicatedIndexPodsForRemoval: for each repeated index all but the pod that would be deleted
 * last go, as do pods without an index or beyond completions; the rest stay.
 */
export function duplicatedIndexPods(pods: readonly KubeObject[], completions: number): { remove: KubeObject[]; keep: KubeObject[] } {
  const byIndex = new Map<number, KubeObject[]>();
  const remove: KubeObject[] = [];
  for (const pod of pods) {
    const index = completionIndexOf(pod);
    if (index < 0 || index >= completions) remove.push(pod);
    else byIndex.set(index, [...(byIndex.get(index) ?? []), pod]);
  }
  const keep: KubeObject[] = [];
  for (const index of [...byIndex.keys()].sort((a, b) => a - b)) {
    const same = [...(byIndex.get(index) ?? [])].sort(compareActivePods);
    remove.push(...same.slice(0, -1));
    keep.push(same[same.length - 1] as KubeObject);
  }
  return { remove, keep };
}

/** matchSucceededIndexesRule: all the rule's indexes succeeded, or at least succeededCount of them. */
function indexesRuleMet(ruleIndexes: readonly Interval[], succeeded: readonly Interval[], succeededCount: number | undefined): boolean {
  let contains = 0;
  for (const rule of ruleIndexes) {
    for (const done of succeeded) contains += Math.max(Math.min(rule.last, done.last) - Math.max(rule.first, done.first) + 1, 0);
  }
  return contains === totalIndexes(ruleIndexes) || (succeededCount !== undefined && contains >= succeededCount);
}

/**
 * matchSuccessPolicy: the first rule the succeeded indexes meet, as the message of the
 * SuccessCriteriaMet condition ("Matched rules at index N"); a rule whose indexes do not parse is skipped.
 */
export function matchSuccessPolicy(policy: unknown, completions: number, succeeded: readonly Interval[]): string | undefined {
  const rules = isJsonObject(policy) && Array.isArray(policy.rules) ? policy.rules : [];
  if (!succeeded.length) return undefined;
  for (const [index, rule] of rules.entries()) {
    if (!isJsonObject(rule)) continue;
    const count = typeof rule.succeededCount === 'number' ? rule.succeededCount : undefined;
    if (typeof rule.succeededIndexes === 'string') {
      const required = parseIntervals(rule.succeededIndexes, completions);
      if (required.length && indexesRuleMet(required, succeeded, count)) return `Matched rules at index ${index}`;
    } else if (count !== undefined && totalIndexes(succeeded) >= count) return `Matched rules at index ${index}`;
  }
  return undefined;
}
