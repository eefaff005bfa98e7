// What the workload controllers read from a pod (k8s.io/kubernetes/pkg/api/v1/pod and the controller
// package's filters): readiness, availability after minReadySeconds, active, terminating, terminal.

import { isJsonObject, readPath, type KubeObject } from '../../meta/object.ts';
import { parseTimestamp } from '../../meta/time.ts';

export interface PodCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
}

export function podPhase(pod: KubeObject): string {
  const phase = readPath(pod, ['status', 'phase']);
  return typeof phase === 'string' ? phase : '';
}

export function podCondition(pod: KubeObject, type: string): PodCondition | undefined {
  const conditions = readPath(pod, ['status', 'conditions']);
  if (!Array.isArray(conditions)) return undefined;
  return conditions.find((c): c is PodCondition => isJsonObject(c) && c.type === type);
}

/** IsPodReady: the Ready condition is True. */
export function isPodReady(pod: KubeObject): boolean {
  return podCondition(pod, 'Ready')?.status === 'True';
}

/** IsPodAvailable: ready, and for at least minReadySeconds (strictly after) when that is set. */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const since = parseTimestamp(podCondition(pod, 'Ready')?.lastTransitionTime);
  return since !== undefined && since + minReadySeconds * 1000 < now;
}

export const isPodTerminal = (pod: KubeObject): boolean => podPhase(pod) === 'Succeeded' || podPhase(pod) === 'Failed';

/** FilterActivePods: neither terminal nor being deleted. */
export const isPodActive = (pod: KubeObject): boolean => !isPodTerminal(pod) && !pod.metadata.deletionTimestamp;

/** Being deleted but not terminal yet (CountTerminatingPods). */
export const isPodTerminating = (pod: KubeObject): boolean => !isPodTerminal(pod) && !!pod.metadata.deletionTimestamp;
