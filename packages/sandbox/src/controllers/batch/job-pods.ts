// How the Job controller reads its pods and shapes new ones: which pods count as failed, which carry a
// valid completion index, container restarts against backoffLimit (restartPolicy OnFailure), and
// what an Indexed Job adds to a pod's template.

import { isJsonObject, readPath, type JsonObject, type KubeObject } from '../../meta/object.ts';
import { podPhase } from '../apps/pod-state.ts';
import { backoffLimitOf, completionIndexKey, completionIndexOf, completionsOf, isIndexed, onlyReplaceFailedPods, restartPolicyOf } from './job-spec.ts';

/** isPodFailed: Failed, or being deleted when terminating pods are replaced at once. */
export const isPodFailed = (pod: KubeObject, job: KubeObject): boolean =>
  podPhase(pod) === 'Failed' || (!onlyReplaceFailedPods(job) && !!pod.metadata.deletionTimestamp && podPhase(pod) !== 'Succeeded');

/** A pod that counts: any pod of a NonIndexed Job, one with an index below completions of an Indexed one. */
export function validIndex(job: KubeObject, pod: KubeObject): boolean {
  if (!isIndexed(job)) return true;
  const index = completionIndexOf(pod);
  return index >= 0 && index < (completionsOf(job) ?? 0);
}

/** pastBackoffLimitOnFailure: container restarts of running pods reach backoffLimit (restartPolicy OnFailure). */
export function pastBackoffLimitOnFailure(job: KubeObject, pods: readonly KubeObject[]): boolean {
  if (restartPolicyOf(job) !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of pods) {
    if (podPhase(pod) !== 'Running' && podPhase(pod) !== 'Pending') continue;
    for (const field of ['initContainerStatuses', 'containerStatuses']) {
      const statuses = readPath(pod, ['status', field]);
      for (const s of Array.isArray(statuses) ? statuses : []) restarts += Number(readPath(s, ['restartCount']) ?? 0);
    }
  }
  const limit = backoffLimitOf(job);
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/** addCompletionIndexEnvVariables: JOB_COMPLETION_INDEX from the index label, in every container. */
export function addCompletionIndexEnv(template: JsonObject): void {
  const spec = isJsonObject(template.spec) ? template.spec : {};
  for (const field of ['initContainers', 'containers']) {
    for (const container of Array.isArray(spec[field]) ? (spec[field] as JsonObject[]) : []) {
      const env = Array.isArray(container.env) ? (container.env as JsonObject[]) : [];
      if (env.some((e) => e.name === 'JOB_COMPLETION_INDEX')) continue;
      container.env = [...env, { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.labels['${completionIndexKey}']` } } }];
    }
  }
}

/** podGenerateNameWithIndex: `<job>-<index>-`, the job name cut so the prefix fits 58 characters. */
export function generateNameWithIndex(jobName: string, index: number): string {
  const suffix = `-${index}-`;
  const prefix = jobName + suffix;
  return prefix.length > 58 ? jobName.slice(0, 58 - suffix.length) + suffix : prefix;
}
