// Validation and defaulting of a RolloutLifecycle (the admission webhooks), pure: field errors in
// apimachinery's format. Whether a Job would accept a hook's jobSpec is asked of the API server by the
// webhook (a dry-run create); what can be told without it is told here.

import type { JsonPatchOperation } from '../api/kube.ts';
import {
  DEFAULT_HOOK_FAILURE_POLICY,
  DEFAULT_HOOK_RETAIN_POLICY,
  HOOK_TRIGGER_PROGRESS_AVAILABLE,
  MAX_HOOK_NAME_LENGTH,
  TARGET_REF_IMMUTABLE,
  TARGET_REF_IMMUTABLE_HINT,
  WORKLOAD_KINDS,
  type RolloutLifecycle,
} from '../api/rolloutlifecycle.ts';
import { progressPointProblem } from './points.ts';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const quote = (value: unknown): string => JSON.stringify(typeof value === 'string' ? value : JSON.stringify(value));
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function validateRolloutLifecycle(rl: RolloutLifecycle): string[] {
  const errors: string[] = [];
  const target = rl.spec?.targetRef;
  if (!target?.name) errors.push('spec.targetRef.name: Required value');
  if (!WORKLOAD_KINDS.includes(target?.kind as (typeof WORKLOAD_KINDS)[number])) {
    errors.push(`spec.targetRef.kind: Unsupported value: ${quote(target?.kind ?? '')}: supported values: ${WORKLOAD_KINDS.map((k) => `"${k}"`).join(', ')}`);
  }
  if (target?.apiVersion !== undefined && target.apiVersion !== 'apps/v1') errors.push(`spec.targetRef.apiVersion: Unsupported value: ${quote(target.apiVersion)}: supported values: "apps/v1"`);
  const seen = new Set<string>();
  (rl.spec?.hooks ?? []).forEach((hook, i) => {
    const path = `spec.hooks[${i}]`;
    const name = hook.name ?? '';
    if (!name) errors.push(`${path}.name: Required value`);
    else if (!DNS_LABEL.test(name) || name.length > MAX_HOOK_NAME_LENGTH) {
      errors.push(`${path}.name: Invalid value: ${quote(name)}: a hook name is part of its Jobs' names: lower case letters, digits and '-', starting and ending with a letter or digit, at most ${MAX_HOOK_NAME_LENGTH} characters`);
    } else if (seen.has(name)) errors.push(`${path}.name: Duplicate value: ${quote(name)}`);
    seen.add(name);
    const type = hook.trigger?.type ?? HOOK_TRIGGER_PROGRESS_AVAILABLE;
    if (type !== HOOK_TRIGGER_PROGRESS_AVAILABLE) errors.push(`${path}.trigger.type: Unsupported value: ${quote(type)}: supported values: "${HOOK_TRIGGER_PROGRESS_AVAILABLE}"`);
    const point = hook.trigger?.progressAvailableParams?.progressPoint;
    if (point === undefined) errors.push(`${path}.trigger.progressAvailableParams.progressPoint: Required value`);
    else {
      const problem = progressPointProblem(point);
      if (problem) errors.push(`${path}.trigger.progressAvailableParams.progressPoint: Invalid value: ${quote(point)}: ${problem}`);
    }
    if (hook.failurePolicy !== undefined && hook.failurePolicy !== 'Abort' && hook.failurePolicy !== 'Ignore') {
      errors.push(`${path}.failurePolicy: Unsupported value: ${quote(hook.failurePolicy)}: supported values: "Abort", "Ignore"`);
    }
    if (hook.retainPolicy !== undefined && !['Always', 'OnFailure', 'Never'].includes(hook.retainPolicy)) {
      errors.push(`${path}.retainPolicy: Unsupported value: ${quote(hook.retainPolicy)}: supported values: "Always", "OnFailure", "Never"`);
    }
    errors.push(...jobSpecErrors(hook.jobSpec, `${path}.jobSpec`));
  });
  return errors;
}

/** What an update may not change: the target (the workload it holds is released only when it goes). */
export function validateRolloutLifecycleUpdate(rl: RolloutLifecycle, old: RolloutLifecycle): string[] {
  const target = (r: RolloutLifecycle) => ({ apiVersion: r.spec?.targetRef?.apiVersion ?? 'apps/v1', kind: r.spec?.targetRef?.kind, name: r.spec?.targetRef?.name });
  const [now, before] = [target(rl), target(old)];
  if (now.apiVersion === before.apiVersion && now.kind === before.kind && now.name === before.name) return [];
  return [`spec.targetRef: Invalid value: ${quote(`${now.kind}/${now.name}`)}: ${TARGET_REF_IMMUTABLE} (it targets ${before.kind}/${before.name}: ${TARGET_REF_IMMUTABLE_HINT})`];
}

function jobSpecErrors(jobSpec: unknown, path: string): string[] {
  if (!isObject(jobSpec)) return [`${path}: Required value`];
  const template = jobSpec.template;
  const podSpec = isObject(template) ? template.spec : undefined;
  if (!isObject(podSpec)) return [`${path}.template.spec: Required value`];
  const errors: string[] = [];
  if (!Array.isArray(podSpec.containers) || podSpec.containers.length === 0) errors.push(`${path}.template.spec.containers: Required value`);
  const restartPolicy = podSpec.restartPolicy;
  if (restartPolicy !== 'Never' && restartPolicy !== 'OnFailure') {
    errors.push(
      restartPolicy === undefined
        ? `${path}.template.spec.restartPolicy: Required value: a Job's pods need restartPolicy "Never" or "OnFailure"`
        : `${path}.template.spec.restartPolicy: Unsupported value: ${quote(restartPolicy)}: supported values: "OnFailure", "Never"`,
    );
  }
  return errors;
}

/** The defaults of every hook (trigger type, failure and retain policies) and of the target's apiVersion. */
export function defaultRolloutLifecycle(rl: RolloutLifecycle): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  if (rl.spec?.targetRef && rl.spec.targetRef.apiVersion === undefined) ops.push({ op: 'add', path: '/spec/targetRef/apiVersion', value: 'apps/v1' });
  (rl.spec?.hooks ?? []).forEach((hook, i) => {
    const base = `/spec/hooks/${i}`;
    if (hook.trigger === undefined) return;
    if (hook.trigger.type === undefined) ops.push({ op: 'add', path: `${base}/trigger/type`, value: HOOK_TRIGGER_PROGRESS_AVAILABLE });
    if (hook.failurePolicy === undefined) ops.push({ op: 'add', path: `${base}/failurePolicy`, value: DEFAULT_HOOK_FAILURE_POLICY });
    if (hook.retainPolicy === undefined) ops.push({ op: 'add', path: `${base}/retainPolicy`, value: DEFAULT_HOOK_RETAIN_POLICY });
  });
  return ops;
}
