// Defaults of the workload kinds (apps/v1 and batch/v1 Job), including what their strategies add:
// the DaemonSet template generation annotation and the Job's generated selector and labels.

import type { ApiServerFeatureGates } from '../feature-gates.ts';
import { isJsonObject, jsonEqual, type JsonObject } from '../meta/object.ts';
import { JOB_LABELS } from '../validation/job.ts';
import { canonicalizeResourceList, defaultPodTemplate } from './pod.ts';
import { child, childList, defaultField, defaultString, isUnset } from './fields.ts';

const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

export function defaultDeployment(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  defaultField(spec, 'replicas', 1);
  const strategy = child(spec, 'strategy');
  defaultString(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = child(strategy, 'rollingUpdate');
    defaultField(rollingUpdate, 'maxUnavailable', '25%');
    defaultField(rollingUpdate, 'maxSurge', '25%');
  }
  defaultField(spec, 'revisionHistoryLimit', 10);
  defaultField(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplate(child(spec, 'template'));
}

export function defaultReplicaSet(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  defaultField(spec, 'replicas', 1);
  defaultPodTemplate(child(spec, 'template'));
}

/** The PersistentVolumeClaim defaults apply to the claims a StatefulSet templates. */
function defaultClaimTemplate(claim: JsonObject): void {
  defaultField(child(claim, 'metadata'), 'creationTimestamp', null);
  const spec = child(claim, 'spec');
  defaultField(spec, 'volumeMode', 'Filesystem');
  if (isJsonObject(spec.resources)) {
    canonicalizeResourceList(spec.resources.requests);
    canonicalizeResourceList(spec.resources.limits);
  }
  defaultString(child(claim, 'status'), 'phase', 'Pending');
}

/** The feature gates that change how StatefulSets are defaulted (off unless set, as in v1.32). */
/**
 * The StatefulSet strategy's dropDisabledFields: with the MaxUnavailableStatefulSet gate off (its
 * v1.32 default), rollingUpdate.maxUnavailable is dropped unless the stored object already uses it.
 */
function dropMaxUnavailable(spec: JsonObject, old: JsonObject | undefined): void {
  const rollingUpdate = isJsonObject(spec.updateStrategy) ? spec.updateStrategy.rollingUpdate : undefined;
  if (!isJsonObject(rollingUpdate) || !('maxUnavailable' in rollingUpdate)) return;
  const oldRollingUpdate = isJsonObject(old?.spec) && isJsonObject(old.spec.updateStrategy) ? old.spec.updateStrategy.rollingUpdate : undefined;
  if (isJsonObject(oldRollingUpdate) && !isUnset(oldRollingUpdate.maxUnavailable)) return;
  delete rollingUpdate.maxUnavailable;
}

export function defaultStatefulSet(obj: JsonObject, old: JsonObject | undefined, gates: ApiServerFeatureGates = {}): void {
  const spec = child(obj, 'spec');
  if (!gates.MaxUnavailableStatefulSet) dropMaxUnavailable(spec, old);
  defaultString(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = child(spec, 'updateStrategy');
  if (isUnset(strategy.type) || strategy.type === '') {
    strategy.type = 'RollingUpdate';
    child(strategy, 'rollingUpdate');
  }
  if (strategy.type === 'RollingUpdate' && isJsonObject(strategy.rollingUpdate)) {
    defaultField(strategy.rollingUpdate, 'partition', 0);
    // SetDefaults_StatefulSet gives the gated field its default only while the gate is on.
    if (gates.MaxUnavailableStatefulSet) defaultField(strategy.rollingUpdate, 'maxUnavailable', 1);
  }
  const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
  defaultString(retention, 'whenDeleted', 'Retain');
  defaultString(retention, 'whenScaled', 'Retain');
  defaultField(spec, 'replicas', 1);
  defaultField(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(child(spec, 'template'));
  for (const claim of childList(spec, 'volumeClaimTemplates')) defaultClaimTemplate(claim);
}

/**
 * DaemonSets also carry their template generation (an internal field the v1 API shows as an
 * annotation): 1 on create, bumped when an update changes the template.
 */
export function defaultDaemonSet(obj: JsonObject, operation: 'create' | 'update', old: JsonObject | undefined): void {
  const spec = child(obj, 'spec');
  const strategy = child(spec, 'updateStrategy');
  defaultString(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = child(strategy, 'rollingUpdate');
    defaultField(rollingUpdate, 'maxUnavailable', 1);
    defaultField(rollingUpdate, 'maxSurge', 0);
  }
  defaultField(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(child(spec, 'template'));
  const annotations = child(child(obj, 'metadata'), 'annotations');
  if (operation === 'create') {
    annotations[TEMPLATE_GENERATION_ANNOTATION] = '1';
    return;
  }
  const oldAnnotations = isJsonObject(old?.metadata) && isJsonObject(old.metadata.annotations) ? old.metadata.annotations : {};
  const oldGeneration = Number(oldAnnotations[TEMPLATE_GENERATION_ANNOTATION] ?? 0) || 0;
  const oldTemplate = isJsonObject(old?.spec) ? old.spec.template : undefined;
  annotations[TEMPLATE_GENERATION_ANNOTATION] = String(jsonEqual(spec.template, oldTemplate) ? oldGeneration : oldGeneration + 1);
}


/**
 * The Job strategy's generated selector: the template gets the job-name and controller-uid labels
 * (legacy and prefixed), the selector matches the prefixed controller-uid. Needs metadata.uid.
 */
function generateJobSelector(obj: JsonObject, spec: JsonObject): void {
  const meta = child(obj, 'metadata');
  const templateLabels = child(child(child(spec, 'template'), 'metadata'), 'labels');
  for (const label of [JOB_LABELS.legacyJobName, JOB_LABELS.jobName]) if (!(label in templateLabels)) templateLabels[label] = meta.name ?? '';
  for (const label of [JOB_LABELS.legacyControllerUid, JOB_LABELS.controllerUid]) if (!(label in templateLabels)) templateLabels[label] = meta.uid ?? '';
  const matchLabels = child(child(spec, 'selector'), 'matchLabels');
  if (!(JOB_LABELS.controllerUid in matchLabels)) matchLabels[JOB_LABELS.controllerUid] = meta.uid ?? '';
}

export function defaultJob(obj: JsonObject, operation: 'create' | 'update'): void {
  const spec = child(obj, 'spec');
  if (isUnset(spec.completions) && isUnset(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  defaultField(spec, 'parallelism', 1);
  defaultField(spec, 'backoffLimit', isUnset(spec.backoffLimitPerIndex) ? 6 : 2147483647);
  defaultField(spec, 'completionMode', 'NonIndexed');
  defaultField(spec, 'suspend', false);
  if (isJsonObject(spec.podFailurePolicy))
    for (const rule of childList(spec.podFailurePolicy, 'rules')) for (const pattern of childList(rule, 'onPodConditions')) defaultString(pattern, 'status', 'True');
  defaultField(spec, 'podReplacementPolicy', isUnset(spec.podFailurePolicy) ? 'TerminatingOrFailed' : 'Failed');
  defaultField(spec, 'manualSelector', false);
  defaultPodTemplate(child(spec, 'template'));
  const meta = child(obj, 'metadata');
  const templateMeta = child(child(spec, 'template'), 'metadata');
  // The Job's labels default to its template's labels: the same map in Go, so on create they also
  // receive the generated labels (but only when the user gave the template labels).
  const aliasLabels = isJsonObject(templateMeta.labels) && (!isJsonObject(meta.labels) || Object.keys(meta.labels).length === 0);
  if (operation === 'create' && spec.manualSelector !== true) generateJobSelector(obj, spec);
  if (aliasLabels && isJsonObject(templateMeta.labels)) meta.labels = { ...templateMeta.labels };
}
