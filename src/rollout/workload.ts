// What podops knows of the three workload kinds, as pure functions of their JSON: the pod template and its
// identity, the fields a hold changes (and the user's own values of them), and the fields' values for each
// kind of hold. How a hold works per kind:
// - Deployment: `spec.paused`; while stepping towards a point, unpaused with a rolling update that adds at
//   most the distance to the point (maxSurge, or maxUnavailable when the user allows no surge), then paused
//   again once the new ReplicaSet has that many replicas: a point is reached exactly. A Deployment the
//   user paused stays paused.
// - StatefulSet (RollingUpdate): `rollingUpdate.partition`, never below the user's own; OnDelete is the
//   user's to drive.
// - DaemonSet: `updateStrategy.type: OnDelete`; podops replaces old pods itself (see daemonset.ts).

import { createHash } from 'node:crypto';
import { resolveIntOrPercent } from '../api/kube.ts';
import type { WorkloadKind } from '../api/rolloutlifecycle.ts';
import type { LabelSelector } from '../api/selector.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface Workload {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; generation?: number; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: JsonObject;
  status?: JsonObject;
}

/** A partition that holds every pod, whatever the replicas become (int32's maximum). */
export const FROZEN_PARTITION = 2147483647;
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The spec fields a hold of this kind changes. */
export const HOLD_FIELDS: Record<WorkloadKind, readonly string[]> = {
  Deployment: ['paused', 'strategy'],
  StatefulSet: ['updateStrategy'],
  DaemonSet: ['updateStrategy'],
};

/** The values of the hold fields present on the workload (an absent field stays absent). */
export type Settings = Partial<Record<string, Json>>;

export function settingsOf(kind: WorkloadKind, workload: Workload): Settings {
  const settings: Settings = {};
  for (const field of HOLD_FIELDS[kind]) {
    const value = workload.spec?.[field];
    if (value !== undefined) settings[field] = value;
  }
  return settings;
}

/** The workload's pod selector (the API server validated its shape). */
export const selectorOf = (workload: { spec?: JsonObject }): LabelSelector => (workload.spec?.selector ?? {}) as LabelSelector;

export function templateOf(workload: { spec?: JsonObject }): JsonObject | undefined {
  const template = workload.spec?.template;
  return isObject(template) ? template : undefined;
}

/**
 * A template as the API server's semantic equality sees it: nulls, empty lists and empty label, annotation
 * and node-selector maps dropped, keys sorted, and without the pod-template-hash label (ReplicaSets carry it)
 * or a strategic-merge `$patch` key (ControllerRevisions store the template as a patch).
 */
export function normalizedTemplate(template: Json): Json {
  const normalize = (value: Json, key: string | undefined): Json | undefined => {
    if (value === null) return undefined;
    if (Array.isArray(value)) return value.length === 0 ? undefined : value.map((item) => normalize(item, undefined) ?? null);
    if (!isObject(value)) return value;
    const out: JsonObject = {};
    for (const k of Object.keys(value).sort()) {
      if (k === '$patch' || (key === 'labels' && k === POD_TEMPLATE_HASH_LABEL)) continue;
      const v = normalize(value[k] as Json, k);
      if (v !== undefined) out[k] = v;
    }
    if (Object.keys(out).length === 0 && (key === 'labels' || key === 'annotations' || key === 'nodeSelector')) return undefined;
    return out;
  };
  return normalize(template, undefined) ?? {};
}

export const sameTemplate = (a: Json, b: Json): boolean => JSON.stringify(normalizedTemplate(a)) === JSON.stringify(normalizedTemplate(b));

/** podops' identity of a pod template: it names hook Jobs, so it must not change with how the template is read. */
export const templateHash = (template: Json): string => createHash('sha256').update(JSON.stringify(normalizedTemplate(template))).digest('hex').slice(0, 10);

export type Hold =
  /** No pod moves to the new revision (any more). */
  | { type: 'frozen' }
  /** The new revision may grow until `count` replicas have it. */
  | { type: 'step'; count: number }
  /** The user's own settings: the workload rolls out as it would without podops. */
  | { type: 'release' };

export interface HoldContext {
  replicas: number;
  /** Deployment: spec.replicas of the new ReplicaSet (0 before it exists). */
  newReplicas: number;
}

/** The values the hold fields should have for `hold` (an absent key: the field is removed). */
export function holdSettings(kind: WorkloadKind, user: Settings, hold: Hold, context: HoldContext): Settings {
  if (hold.type === 'release') return user;
  switch (kind) {
    case 'Deployment':
      return deploymentHold(user, hold, context);
    case 'StatefulSet':
      return statefulSetHold(user, hold, context.replicas);
    case 'DaemonSet':
      return daemonSetHold(user);
  }
}

function deploymentHold(user: Settings, hold: Exclude<Hold, { type: 'release' }>, { replicas, newReplicas }: HoldContext): Settings {
  const strategy = isObject(user.strategy) ? user.strategy : {};
  const distance = hold.type === 'step' ? hold.count - newReplicas : 0;
  // The user's own pause holds too (kubectl rollout pause, then several edits): podops never moves pods it would not.
  if (distance <= 0 || user.paused === true) return FROZEN_DEPLOYMENT;
  // A Recreate Deployment replaces every pod at once: it cannot stop between points.
  if (strategy.type === 'Recreate') return { paused: false, strategy };
  const rollingUpdate = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
  const surge = resolveIntOrPercent(rollingUpdate.maxSurge, replicas, true, '25%');
  const unavailable = resolveIntOrPercent(rollingUpdate.maxUnavailable, replicas, false, '25%');
  const step = surge > 0 ? { maxSurge: Math.min(surge, distance), maxUnavailable: 0 } : { maxSurge: 0, maxUnavailable: Math.min(Math.max(unavailable, 1), distance) };
  return { paused: false, strategy: { type: 'RollingUpdate', rollingUpdate: step } };
}

/**
 * Paused, a Deployment still fills its ReplicaSets up to replicas + maxSurge in proportion to their sizes (so
 * the new one could grow past the point); a Recreate Deployment is never scaled in proportion: paused and
 * Recreate, nothing moves.
 */
const FROZEN_DEPLOYMENT: Settings = { paused: true, strategy: { type: 'Recreate' } };

function statefulSetHold(user: Settings, hold: Exclude<Hold, { type: 'release' }>, replicas: number): Settings {
  const strategy = isObject(user.updateStrategy) ? user.updateStrategy : {};
  if (strategy.type === 'OnDelete') return user;
  const rollingUpdate = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
  const own = typeof rollingUpdate.partition === 'number' ? rollingUpdate.partition : 0;
  // Point 0 holds every pod, even those a scale-up adds meanwhile.
  const partition = hold.type === 'frozen' || hold.count === 0 ? FROZEN_PARTITION : Math.max(own, replicas - hold.count);
  return { updateStrategy: { ...strategy, type: 'RollingUpdate', rollingUpdate: { ...rollingUpdate, partition } } };
}

function daemonSetHold(user: Settings): Settings {
  const strategy = isObject(user.updateStrategy) ? user.updateStrategy : {};
  return strategy.type === 'OnDelete' ? user : { updateStrategy: { type: 'OnDelete' } };
}

/** The most replicas the user's own settings let reach the new revision (a StatefulSet partition keeps the rest). */
export function reachableReplicas(kind: WorkloadKind, user: Settings, replicas: number): number {
  if (kind !== 'StatefulSet' || !isObject(user.updateStrategy) || user.updateStrategy.type === 'OnDelete') return replicas;
  const rollingUpdate = isObject(user.updateStrategy.rollingUpdate) ? user.updateStrategy.rollingUpdate : {};
  return Math.max(0, replicas - (typeof rollingUpdate.partition === 'number' ? rollingUpdate.partition : 0));
}

/** Whether the user's settings leave the stepping to someone else (OnDelete): podops then only watches. */
export function userDrivesUpdates(kind: WorkloadKind, user: Settings): boolean {
  return kind !== 'Deployment' && isObject(user.updateStrategy) && user.updateStrategy.type === 'OnDelete';
}
