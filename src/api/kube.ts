// The parts of Kubernetes objects that podops reads, as plain JSON (what an AdmissionReview or a
// REST response carries). Unknown fields are kept by everything that passes objects through.

import type { LabelSelector } from './selector.ts';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number | null;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  [field: string]: unknown;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface PodCondition {
  type: string;
  status: ConditionStatus | string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
  [field: string]: unknown;
}

export interface PodReadinessGate {
  conditionType: string;
}

export interface PodSpec {
  readinessGates?: PodReadinessGate[];
  nodeName?: string;
  [field: string]: unknown;
}

export interface PodStatus {
  phase?: string;
  conditions?: PodCondition[];
  podIP?: string;
  [field: string]: unknown;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: PodSpec;
  status?: PodStatus;
  [field: string]: unknown;
}

export interface Service {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { selector?: Record<string, string> | null; [field: string]: unknown };
  [field: string]: unknown;
}

/** The IntOrString of a rolling update: a count, or a percentage of the replicas (`"25%"`). */
export type IntOrPercent = number | string;

/** The StatefulSet and DaemonSet controllers' revision label on their pods (and a ControllerRevision's hash). */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';

/** The object's controlling owner of this kind in apps/v1 (a pod's ReplicaSet or StatefulSet, a ReplicaSet's Deployment). */
export const appsControllerOf = (object: { metadata: { ownerReferences?: OwnerReference[] } }, kind: string): OwnerReference | undefined =>
  object.metadata.ownerReferences?.find((owner) => owner.controller === true && owner.kind === kind && owner.apiVersion === 'apps/v1');

/**
 * An IntOrString of a rolling update against the replicas, as the Kubernetes controllers resolve them: surge
 * rounds up, unavailability down. `value` as read from an object: a number, a percentage string, or absent (then
 * `fallback`); anything else counts as 0.
 */
export function resolveIntOrPercent(value: unknown, replicas: number, roundUp: boolean, fallback: string): number {
  const given = value ?? fallback;
  if (typeof given === 'number') return given;
  const percent = /^(\d+)%$/.exec(String(given));
  if (!percent) return 0;
  const exact = (Number(percent[1]) * replicas) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

export interface WorkloadCondition {
  type: string;
  status: ConditionStatus | string;
  reason?: string;
  message?: string;
  [field: string]: unknown;
}

export interface Deployment {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    replicas?: number;
    selector?: LabelSelector;
    strategy?: { type?: string; rollingUpdate?: { maxSurge?: IntOrPercent; maxUnavailable?: IntOrPercent } };
    paused?: boolean;
    template?: { metadata?: ObjectMeta; [field: string]: unknown };
    [field: string]: unknown;
  };
  status?: { observedGeneration?: number; replicas?: number; updatedReplicas?: number; availableReplicas?: number; conditions?: WorkloadCondition[]; [field: string]: unknown };
  [field: string]: unknown;
}

export interface ReplicaSet {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { replicas?: number; selector?: LabelSelector; template?: { metadata?: ObjectMeta; [field: string]: unknown }; [field: string]: unknown };
  status?: { replicas?: number; conditions?: WorkloadCondition[]; [field: string]: unknown };
  [field: string]: unknown;
}

export interface StatefulSet {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    replicas?: number;
    ordinals?: { start?: number };
    updateStrategy?: { type?: string; rollingUpdate?: { partition?: number; maxUnavailable?: IntOrPercent } };
    [field: string]: unknown;
  };
  status?: { observedGeneration?: number; updateRevision?: string; currentRevision?: string; [field: string]: unknown };
  [field: string]: unknown;
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface Node {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { unschedulable?: boolean; taints?: Taint[]; [field: string]: unknown };
  [field: string]: unknown;
}

/** RFC 3339 with second precision, as metav1.Time serialises (`2024-06-04T12:58:05Z`). */
export const rfc3339 = (time: Date | number): string => new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** An RFC 6902 operation, as admission responses carry them. */
export type JsonPatchOperation =
  | { op: 'add' | 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'test'; path: string; value: unknown };

/** RFC 6901 escaping of one reference token (label keys contain `/`). */
export const escapeJsonPointer = (token: string): string => token.replaceAll('~', '~0').replaceAll('/', '~1');
