// Progress points: each hook's point as a count of new available replicas, for the replicas declared now
// (level-triggered: an HPA changing replicas mid-rollout moves the percentages with it).

import type { LifecycleHook } from '../api/rolloutlifecycle.ts';

export interface Point {
  /** New available replicas. 0 runs before any pod of the new revision exists; `replicas` once all are new. */
  count: number;
  /** As the hooks wrote it (`0`, `3`, `50%`), each distinct spelling once. */
  progressPoints: string[];
  /** The hooks of the point, in spec order. */
  hooks: string[];
}

/** Why a progress point is not usable, or undefined. */
export function progressPointProblem(point: unknown): string | undefined {
  if (typeof point === 'number') return Number.isInteger(point) && point >= 0 ? undefined : 'must be a non-negative integer';
  if (typeof point !== 'string') return 'must be an integer or a percentage';
  const match = /^(\d+)%$/.exec(point);
  if (!match) return 'must be an integer or a percentage such as "50%"';
  return Number(match[1]) <= 100 ? undefined : 'must be a percentage from 0% to 100%';
}

/**
 * The count a progress point stands for: a number as it is, capped at the replicas (a larger count is reached
 * with the last replica); a percentage of the replicas rounded up (the closest count at or after it).
 */
export function pointCount(point: number | string, replicas: number): number {
  if (typeof point === 'number') return Math.min(point, replicas);
  const percent = Number(point.slice(0, -1));
  return Math.min(replicas, Math.ceil((percent * replicas) / 100));
}

/** The points of the hooks, ascending; hooks of the same count share a point. Hooks without a usable point are left out. */
export function resolvePoints(hooks: readonly LifecycleHook[], replicas: number): Point[] {
  const byCount = new Map<number, Point>();
  for (const hook of hooks) {
    const point = hook.trigger?.progressAvailableParams?.progressPoint;
    if (point === undefined || progressPointProblem(point) !== undefined || !hook.name) continue;
    const count = pointCount(point, replicas);
    const entry = byCount.get(count) ?? { count, progressPoints: [], hooks: [] };
    if (!entry.progressPoints.includes(String(point))) entry.progressPoints.push(String(point));
    entry.hooks.push(hook.name);
    byCount.set(count, entry);
  }
  return [...byCount.values()].sort((a, b) => a.count - b.count);
}
