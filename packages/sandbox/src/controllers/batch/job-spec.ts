// Typed reads of a stored Job (the API server has defaulted it) and the vocabulary the Job
// controller shares with its pods: the tracking finalizer, the completion index annotation and label,
// the conditions.

import { isJsonObject, readPath, type JsonObject, type KubeObject } from '../../meta/object.ts';
import type { OwnerKind } from '../apps/controller-ref.ts';

export const jobKind: OwnerKind = { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job' };
export const jobsStorage = 'jobs.batch';

export const jobTrackingFinalizer = 'batch.kubernetes.io/job-tracking';
/** The annotation (and, with PodIndexLabel, the label) holding an Indexed Job pod's index. */
export const completionIndexKey = 'batch.kubernetes.io/job-completion-index';
const jobControllerName = 'kubernetes.io/job-controller';

export interface JobCondition {
  type: string;
  status: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

const spec = (job: KubeObject): JsonObject => (isJsonObject(job.spec) ? job.spec : {});
const status = (job: KubeObject): JsonObject => (isJsonObject(job.status) ? job.status : {});
const optionalNumber = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

export const completionsOf = (job: KubeObject): number | undefined => optionalNumber(spec(job).completions);
export const parallelismOf = (job: KubeObject): number => optionalNumber(spec(job).parallelism) ?? 1;
export const backoffLimitOf = (job: KubeObject): number => optionalNumber(spec(job).backoffLimit) ?? 6;
export const activeDeadlineSecondsOf = (job: KubeObject): number | undefined => optionalNumber(spec(job).activeDeadlineSeconds);
export const ttlSecondsAfterFinishedOf = (job: KubeObject): number | undefined => optionalNumber(spec(job).ttlSecondsAfterFinished);
export const isSuspended = (job: KubeObject): boolean => spec(job).suspend === true;
export const isIndexed = (job: KubeObject): boolean => spec(job).completionMode === 'Indexed';
export const completionModeOf = (job: KubeObject): unknown => spec(job).completionMode;
export const restartPolicyOf = (job: KubeObject): unknown => readPath(job, ['spec', 'template', 'spec', 'restartPolicy']);
export const podFailurePolicyOf = (job: KubeObject): JsonObject | undefined => (isJsonObject(spec(job).podFailurePolicy) ? spec(job).podFailurePolicy as JsonObject : undefined);

/** onlyReplaceFailedPods: podReplacementPolicy Failed, or a pod failure policy. */
export const onlyReplaceFailedPods = (job: KubeObject): boolean => spec(job).podReplacementPolicy === 'Failed' || podFailurePolicyOf(job) !== undefined;

/** A managedBy other than the built-in controller hands the Job to another controller. */
export function managedByExternalController(job: KubeObject): string | undefined {
  const managedBy = spec(job).managedBy;
  return typeof managedBy === 'string' && managedBy !== jobControllerName ? managedBy : undefined;
}

export const jobConditions = (job: KubeObject): JobCondition[] => {
  const conditions = status(job).conditions;
  return Array.isArray(conditions) ? (conditions as JobCondition[]) : [];
};

export const findCondition = (job: KubeObject, type: string): JobCondition | undefined => jobConditions(job).find((c) => c.type === type);

/** IsJobFinished: a Complete or Failed condition that is True. */
export const finishedCondition = (job: KubeObject): JobCondition | undefined =>
  jobConditions(job).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');

export const statusNumber = (job: KubeObject, field: string): number => optionalNumber(status(job)[field]) ?? 0;
export const hasTrackingFinalizer = (pod: KubeObject): boolean => (pod.metadata.finalizers ?? []).includes(jobTrackingFinalizer);

/** getCompletionIndex: the pod's index annotation, or -1. */
export function completionIndexOf(pod: KubeObject): number {
  const text = pod.metadata.annotations?.[completionIndexKey];
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return -1;
  const index = Number(text);
  return index >= 0 ? index : -1;
}
