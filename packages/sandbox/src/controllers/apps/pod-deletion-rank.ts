// The order in which a ReplicaSet scaling down picks its victims (controller.ActivePodsWithRanks, with
// the PodDeletionCost and LogarithmicScaleDown features on, as in v1.32): unassigned before assigned,
// Pending < Unknown < Running, not ready before ready, lower `controller.kubernetes.io/pod-deletion-cost`
// first, pods doubled up on a node with more related active pods first, then the more recently ready,
// the more restarted and the more recently created (times compared in powers of two of their age, ties
// broken by uid).

import { ownMember, readPath, type KubeObject } from '../../meta/object.ts';
import { parseTimestamp } from '../../meta/time.ts';
import { isPodActive, isPodReady, podCondition, podPhase } from './pod-state.ts';

const deletionCostAnnotation = 'controller.kubernetes.io/pod-deletion-cost';
const phaseOrdinal: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

const nodeName = (pod: KubeObject): string => {
  const node = readPath(pod, ['spec', 'nodeName']);
  return typeof node === 'string' ? node : '';
};

/** helper.GetDeletionCostFromPodAnnotations: an int32; anything else counts as 0. */
function deletionCost(pod: KubeObject): number {
  const text = pod.metadata.annotations?.[deletionCostAnnotation];
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return 0;
  const cost = Number(text);
  return cost >= -(2 ** 31) && cost < 2 ** 31 ? cost : 0;
}

/** The highest restart count among regular containers, and among restartable (sidecar) init containers. */
function maxRestarts(pod: KubeObject): { regular: number; sidecar: number } {
  const max = (statuses: unknown, include: (name: unknown) => boolean): number =>
    Array.isArray(statuses)
      ? statuses.reduce((m: number, s: { name?: unknown; restartCount?: unknown }) => (include(s?.name) && typeof s?.restartCount === 'number' ? Math.max(m, s.restartCount) : m), 0)
      : 0;
  const initContainers = readPath(pod, ['spec', 'initContainers']);
  const sidecars = new Set(Array.isArray(initContainers) ? initContainers.filter((c) => c?.restartPolicy === 'Always').map((c) => c.name) : []);
  return {
    regular: max(readPath(pod, ['status', 'containerStatuses']), () => true),
    sidecar: max(readPath(pod, ['status', 'initContainerStatuses']), (name) => sidecars.has(name)),
  };
}

/** 0 stands for Go's zero time. */
const readyTime = (pod: KubeObject): number => parseTimestamp(podCondition(pod, 'Ready')?.lastTransitionTime) ?? 0;
const creationTime = (pod: KubeObject): number => parseTimestamp(pod.metadata.creationTimestamp) ?? 0;

/** afterOrZero: a zero time sorts first, otherwise the later time does. */
const afterOrZero = (a: number, b: number): boolean => (a === 0 || b === 0 ? a === 0 : a > b);

/** logarithmicRankDiff over ages in nanoseconds. */
function logarithmicRankDiff(a: number, b: number, now: number): number {
  const rank = (t: number): number => {
    const ageNanos = (now - t) * 1e6;
    return ageNanos > 0 ? Math.floor(Math.log2(ageNanos)) : -1;
  };
  return rank(a) - rank(b);
}

function lessByTime(a: KubeObject, b: KubeObject, ta: number, tb: number, now: number): boolean {
  if (ta === 0 || tb === 0) return afterOrZero(ta, tb);
  const diff = logarithmicRankDiff(ta, tb, now);
  if (diff === 0) return (a.metadata.uid ?? '') < (b.metadata.uid ?? '');
  return diff < 0;
}

/** ActivePodsWithRanks.Less: whether `a` goes before `b`. */
function less(a: KubeObject, b: KubeObject, rankA: number, rankB: number, now: number): boolean {
  const nodeA = nodeName(a);
  const nodeB = nodeName(b);
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '';
  const phaseA = ownMember(phaseOrdinal, podPhase(a)) ?? 0;
  const phaseB = ownMember(phaseOrdinal, podPhase(b)) ?? 0;
  if (phaseA !== phaseB) return phaseA < phaseB;
  const readyA = isPodReady(a);
  const readyB = isPodReady(b);
  if (readyA !== readyB) return !readyA;
  const costA = deletionCost(a);
  const costB = deletionCost(b);
  if (costA !== costB) return costA < costB;
  if (rankA !== rankB) return rankA > rankB;
  if (readyA && readyB) {
    const ta = readyTime(a);
    const tb = readyTime(b);
    if (ta !== tb) return lessByTime(a, b, ta, tb, now);
  }
  const restartsA = maxRestarts(a);
  const restartsB = maxRestarts(b);
  if (restartsA.regular !== restartsB.regular) return restartsA.regular > restartsB.regular;
  if (restartsA.sidecar !== restartsB.sidecar) return restartsA.sidecar > restartsB.sidecar;
  const ca = creationTime(a);
  const cb = creationTime(b);
  if (ca !== cb) return lessByTime(a, b, ca, cb, now);
  return false;
}

/**
 * getPodsToDelete: the `count` pods to delete first. `related` are the active pods of the owner's
 * whole family (its sibling ReplicaSets under one Deployment), which decide who is doubled up on a node.
 */
export function podsToDelete(pods: readonly KubeObject[], related: readonly KubeObject[], count: number, now: number): KubeObject[] {
  if (count >= pods.length) return pods.slice(0, count);
  const onNode = new Map<string, number>();
  for (const pod of related) if (isPodActive(pod)) onNode.set(nodeName(pod), (onNode.get(nodeName(pod)) ?? 0) + 1);
  const ranked = pods.map((pod) => ({ pod, rank: onNode.get(nodeName(pod)) ?? 0 }));
  ranked.sort((x, y) => (less(x.pod, y.pod, x.rank, y.rank, now) ? -1 : less(y.pod, x.pod, y.rank, x.rank, now) ? 1 : 0));
  return ranked.slice(0, count).map((r) => r.pod);
}

/**
 * controller.ActivePods.Less as a comparator (the order without ranks, used by the Job controller):
 * unassigned, Pending < Unknown < Running, not ready, lower deletion cost, more recently ready, more
 * restarts and more recently created go first.
 */
export function compareActivePods(a: KubeObject, b: KubeObject): number {
  const before = (x: KubeObject, y: KubeObject): boolean => {
    const nodeX = nodeName(x);
    const nodeY = nodeName(y);
    if (nodeX !== nodeY && (nodeX === '' || nodeY === '')) return nodeX === '';
    const phaseX = ownMember(phaseOrdinal, podPhase(x)) ?? 0;
    const phaseY = ownMember(phaseOrdinal, podPhase(y)) ?? 0;
    if (phaseX !== phaseY) return phaseX < phaseY;
    if (isPodReady(x) !== isPodReady(y)) return !isPodReady(x);
    if (deletionCost(x) !== deletionCost(y)) return deletionCost(x) < deletionCost(y);
    if (isPodReady(x) && isPodReady(y) && readyTime(x) !== readyTime(y)) return afterOrZero(readyTime(x), readyTime(y));
    const restartsX = maxRestarts(x);
    const restartsY = maxRestarts(y);
    if (restartsX.regular !== restartsY.regular) return restartsX.regular > restartsY.regular;
    if (restartsX.sidecar !== restartsY.sidecar) return restartsX.sidecar > restartsY.sidecar;
    if (creationTime(x) !== creationTime(y)) return afterOrZero(creationTime(x), creationTime(y));
    return false;
  };
  return before(a, b) ? -1 : before(b, a) ? 1 : 0;
}
