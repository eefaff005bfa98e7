// Typed reads of a stored StatefulSet's spec and status (the API server has defaulted them).

import { isJsonObject, readPath, type JsonObject, type KubeObject } from '../../meta/object.ts';
import type { OwnerKind } from './controller-ref.ts';
import { scaledValue } from './deployment-util.ts';
import { specReplicas } from './workload-fields.ts';

export const statefulSetKind: OwnerKind = { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet' };
export const statefulSetsStorage = 'statefulsets.apps';


const numberAt = (set: KubeObject, path: string[], fallback: number): number => {
  const value = readPath(set, path);
  return typeof value === 'number' ? value : fallback;
};

/** getStartOrdinal: spec.ordinals.start, else 0. */
export const startOrdinal = (set: KubeObject): number => numberAt(set, ['spec', 'ordinals', 'start'], 0);
export const revisionHistoryLimit = (set: KubeObject): number => numberAt(set, ['spec', 'revisionHistoryLimit'], 10);
export const collisionCountOf = (set: KubeObject): number => numberAt(set, ['status', 'collisionCount'], 0);
export const observedCurrentRevision = (set: KubeObject): string => String(readPath(set, ['status', 'currentRevision']) ?? '');

export const isOnDelete = (set: KubeObject): boolean => readPath(set, ['spec', 'updateStrategy', 'type']) === 'OnDelete';
export const isRollingUpdate = (set: KubeObject): boolean => readPath(set, ['spec', 'updateStrategy', 'type']) === 'RollingUpdate';
/** Parallel pod management lets the controller burst; OrderedReady is monotonic. */
export const isMonotonic = (set: KubeObject): boolean => readPath(set, ['spec', 'podManagementPolicy']) !== 'Parallel';

/** The rolling update's partition, or undefined when the strategy has no rollingUpdate block. */
export function partitionOf(set: KubeObject): number | undefined {
  const rollingUpdate = readPath(set, ['spec', 'updateStrategy', 'rollingUpdate']);
  if (!isJsonObject(rollingUpdate)) return undefined;
  return typeof rollingUpdate.partition === 'number' ? rollingUpdate.partition : 0;
}

/**
 * getStatefulSetMaxUnavailable: rollingUpdate.maxUnavailable (default 1) as a number of pods, a
 * percentage of spec.replicas rounded down, and never below 1 (a small percentage would round to 0).
 */
export function maxUnavailableOf(set: KubeObject): number {
  const value = readPath(set, ['spec', 'updateStrategy', 'rollingUpdate', 'maxUnavailable']) ?? 1;
  return Math.max(1, scaledValue(value, specReplicas(set), false));
}

export function templateOf(set: KubeObject): JsonObject {
  const template = readPath(set, ['spec', 'template']);
  return isJsonObject(template) ? template : {};
}
