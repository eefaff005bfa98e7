// apps/v1 workloads: Deployment, ReplicaSet, StatefulSet, DaemonSet and ControllerRevision, with the
// strategies' extra rule that a selector never changes once created.

import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../errors.ts';
import { tryLabelSelectorFromObject, validateLabelSelector } from '../selectors/label-selector.ts';
import { isEverything, matchesLabels } from '../selectors/labels.ts';
import { goIntOrStringText, goLabelSelectorValue, goLiteral, goStringMapText, goStructText } from './golang.ts';
import { asNumber, asObject, asString, asStringMap, isPresent, semanticEqual } from './json.ts';
import { FIELD_IMMUTABLE, IS_NEGATIVE_ERROR, validateAnnotations, validateLabels, validateObjectMetaCreate, validateObjectMetaUpdate } from './meta.ts';
import { isValidPercent, nameIsDNSLabel } from './names.ts';
import { validatePodSpecificAnnotations, validatePodTemplateSpec } from './pod-spec.ts';

type Obj = Record<string, unknown>;
export type WorkloadKind = 'Deployment' | 'ReplicaSet' | 'StatefulSet' | 'DaemonSet';

export const nonNegative = (value: unknown, path: string): FieldError[] => {
  const n = asNumber(value) ?? 0;
  return n < 0 ? [fieldInvalid(path, n, IS_NEGATIVE_ERROR)] : [];
};

const templateLabelsOf = (spec: Obj): Record<string, string> => asStringMap(asObject(asObject(spec.template).metadata).labels);

function templateMismatch(spec: Obj, path: string): FieldError {
  return fieldInvalid(path, goLiteral(goStringMapText(asObject(asObject(spec.template).metadata).labels)), '`selector` does not match template `labels`');
}

/** The selector checks shared by Deployments, ReplicaSets and StatefulSets (not DaemonSets). */
function validateRequiredSelector(spec: Obj, emptyMessage: string): FieldError[] {
  if (!isPresent(spec.selector)) return [fieldRequired('spec.selector')];
  const errs = validateLabelSelector(spec.selector, 'spec.selector');
  const sel = asObject(spec.selector);
  if (Object.keys(asStringMap(sel.matchLabels)).length + (Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0) === 0)
    errs.push(fieldInvalid('spec.selector', goLabelSelectorValue(spec.selector), emptyMessage));
  return errs;
}

/** ValidatePodTemplateSpecForReplicaSet: labels match the selector, the template is valid, restartPolicy Always. */
function validateTemplateForReplicas(spec: Obj, kind: string): FieldError[] {
  const selector = tryLabelSelectorFromObject(spec.selector);
  if (!selector) return [fieldInvalid('spec.selector', goLabelSelectorValue(spec.selector), 'invalid label selector')];
  const errs: FieldError[] = [];
  if (!isEverything(selector) && !matchesLabels(selector, templateLabelsOf(spec))) errs.push(templateMismatch(spec, 'spec.template.metadata.labels'));
  errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  errs.push(...restartAndDeadline(spec, kind));
  return errs;
}

function restartAndDeadline(spec: Obj, kind: string): FieldError[] {
  const podSpec = asObject(asObject(spec.template).spec);
  const errs: FieldError[] = [];
  const restartPolicy = asString(podSpec.restartPolicy);
  if (restartPolicy !== 'Always') errs.push(fieldNotSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (isPresent(podSpec.activeDeadlineSeconds))
    errs.push(fieldForbidden('spec.template.spec.activeDeadlineSeconds', `activeDeadlineSeconds in ${kind} is not Supported`));
  return errs;
}

const percentValue = (v: unknown): number | undefined => (typeof v === 'string' && isValidPercent(v).length === 0 ? Number(v.slice(0, -1)) : undefined);
const intOrPercentValue = (v: unknown): number => percentValue(v) ?? (typeof v === 'number' ? v : 0);

export function validatePositiveIntOrPercent(value: unknown, path: string): FieldError[] {
  if (typeof value === 'string') return isValidPercent(value).map((msg) => fieldInvalid(path, goLiteral(goIntOrStringText(value)), msg));
  return nonNegative(value, path);
}

export function notMoreThan100Percent(value: unknown, path: string): FieldError[] {
  const pct = percentValue(value);
  return pct !== undefined && pct > 100 ? [fieldInvalid(path, goLiteral(goIntOrStringText(value)), 'must not be greater than 100%')] : [];
}

// ---- Deployment ----

function validateDeploymentStrategy(strategy: unknown): FieldError[] {
  const s = asObject(strategy);
  const type = asString(s.type);
  if (type === 'Recreate') return isPresent(s.rollingUpdate) ? [fieldForbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'")] : [];
  if (type !== 'RollingUpdate')
    return [fieldNotSupported('spec.strategy', goLiteral(goStructText('apps.DeploymentStrategy', s)), ['Recreate', 'RollingUpdate'])];
  if (!isPresent(s.rollingUpdate)) return [fieldRequired('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil')];
  const ru = asObject(s.rollingUpdate);
  const p = 'spec.strategy.rollingUpdate';
  const errs = [...validatePositiveIntOrPercent(ru.maxUnavailable, `${p}.maxUnavailable`), ...validatePositiveIntOrPercent(ru.maxSurge, `${p}.maxSurge`)];
  if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0)
    errs.push(fieldInvalid(`${p}.maxUnavailable`, goLiteral(goIntOrStringText(ru.maxUnavailable)), 'may not be 0 when `maxSurge` is 0'));
  errs.push(...notMoreThan100Percent(ru.maxUnavailable, `${p}.maxUnavailable`));
  return errs;
}

function validateDeploymentSpec(spec: Obj): FieldError[] {
  const errs = [...nonNegative(spec.replicas, 'spec.replicas'), ...validateRequiredSelector(spec, 'empty selector is invalid for deployment')];
  errs.push(...validateTemplateForReplicas(spec, 'ReplicaSet'));
  errs.push(...validateDeploymentStrategy(spec.strategy));
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  if (isPresent(spec.revisionHistoryLimit)) errs.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  if (isPresent(spec.progressDeadlineSeconds)) {
    errs.push(...nonNegative(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds'));
    const deadline = asNumber(spec.progressDeadlineSeconds) ?? 0;
    if (deadline <= (asNumber(spec.minReadySeconds) ?? 0)) errs.push(fieldInvalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
  }
  return errs;
}

// ---- ReplicaSet ----

function validateReplicaSetSpec(spec: Obj): FieldError[] {
  return [
    ...nonNegative(spec.replicas, 'spec.replicas'),
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...validateRequiredSelector(spec, 'empty selector is invalid for deployment'),
    ...validateTemplateForReplicas(spec, 'ReplicaSet'),
  ];
}

// ---- StatefulSet ----

function validateStatefulSetSpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const policy = asString(spec.podManagementPolicy);
  if (policy === '') errs.push(fieldRequired('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') errs.push(fieldInvalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  const strategy = asObject(spec.updateStrategy);
  const type = asString(strategy.type);
  if (type === '') errs.push(fieldRequired('spec.updateStrategy'));
  else if (type === 'OnDelete') {
    if (isPresent(strategy.rollingUpdate))
      errs.push(fieldInvalid('spec.updateStrategy.rollingUpdate', goLiteral(goStructText('&apps.RollingUpdateStatefulSetStrategy', strategy.rollingUpdate)), "only allowed for updateStrategy 'RollingUpdate'"));
  } else if (type === 'RollingUpdate') {
    if (isPresent(strategy.rollingUpdate)) {
      const ru = asObject(strategy.rollingUpdate);
      const p = 'spec.updateStrategy.rollingUpdate';
      errs.push(...nonNegative(ru.partition, `${p}.partition`));
      if (isPresent(ru.maxUnavailable)) {
        errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, `${p}.maxUnavailable`));
        if (intOrPercentValue(ru.maxUnavailable) === 0) errs.push(fieldInvalid(`${p}.maxUnavailable`, goLiteral(goIntOrStringText(ru.maxUnavailable)), 'cannot be 0'));
        errs.push(...notMoreThan100Percent(ru.maxUnavailable, `${p}.maxUnavailable`));
      }
    }
  } else {
    errs.push(fieldInvalid('spec.updateStrategy', goLiteral(goStructText('apps.StatefulSetUpdateStrategy', strategy)), "must be 'RollingUpdate' or 'OnDelete'"));
  }
  if (isPresent(spec.persistentVolumeClaimRetentionPolicy)) {
    const retention = asObject(spec.persistentVolumeClaimRetentionPolicy);
    for (const f of ['whenDeleted', 'whenScaled']) {
      const v = asString(retention[f]);
      if (v !== 'Retain' && v !== 'Delete') errs.push(fieldNotSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, v, ['Retain', 'Delete']));
    }
  }
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  if (isPresent(spec.ordinals)) errs.push(...nonNegative(asObject(spec.ordinals).start, 'spec.ordinals.start'));
  errs.push(...validateRequiredSelector(spec, 'empty selector is invalid for statefulset'));
  const selector = tryLabelSelectorFromObject(spec.selector);
  if (!selector) errs.push(fieldInvalid('spec.selector', goLabelSelectorValue(spec.selector), ''));
  else {
    // The pod spec of a StatefulSet template is not validated (upstream TODO); labels and annotations are.
    if (!isEverything(selector) && !matchesLabels(selector, templateLabelsOf(spec))) errs.push(templateMismatch(spec, 'spec.template.metadata.labels'));
    const meta = asObject(asObject(spec.template).metadata);
    errs.push(...validateLabels(meta.labels, 'spec.template.labels'));
    errs.push(...validateAnnotations(meta.annotations, 'spec.template.annotations'));
    errs.push(...validatePodSpecificAnnotations(meta.annotations, asObject(spec.template).spec, 'spec.template.annotations'));
  }
  errs.push(...restartAndDeadline(spec, 'StatefulSet'));
  return errs;
}

const statefulSetMutableSpec = ['replicas', 'template', 'updateStrategy', 'minReadySeconds', 'ordinals', 'persistentVolumeClaimRetentionPolicy'];

// ---- DaemonSet ----

function validateDaemonSetSpec(spec: Obj): FieldError[] {
  const errs = validateLabelSelector(spec.selector, 'spec.selector');
  const selector = tryLabelSelectorFromObject(spec.selector);
  if (selector && !matchesLabels(selector, templateLabelsOf(spec))) errs.push(templateMismatch(spec, 'spec.template.metadata.labels'));
  const sel = asObject(spec.selector);
  if (isPresent(spec.selector) && Object.keys(asStringMap(sel.matchLabels)).length + (Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0) === 0)
    errs.push(fieldInvalid('spec.selector', goLabelSelectorValue(spec.selector), 'empty selector is invalid for daemonset'));
  errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  errs.push(...restartAndDeadline(spec, 'DaemonSet'));
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  const strategy = asObject(spec.updateStrategy);
  const type = asString(strategy.type);
  if (type === 'RollingUpdate') {
    if (!isPresent(strategy.rollingUpdate)) errs.push(fieldRequired('spec.updateStrategy.rollingUpdate'));
    else {
      const ru = asObject(strategy.rollingUpdate);
      const p = 'spec.updateStrategy.rollingUpdate';
      errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, `${p}.maxUnavailable`), ...validatePositiveIntOrPercent(ru.maxSurge, `${p}.maxSurge`));
      errs.push(...notMoreThan100Percent(ru.maxUnavailable, `${p}.maxUnavailable`), ...notMoreThan100Percent(ru.maxSurge, `${p}.maxSurge`));
      const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
      if (hasUnavailable && hasSurge) errs.push(fieldInvalid(`${p}.maxSurge`, goLiteral(goIntOrStringText(ru.maxSurge)), 'may not be set when maxUnavailable is non-zero'));
      else if (!hasUnavailable && !hasSurge) errs.push(fieldRequired(`${p}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
    }
  } else if (type !== 'OnDelete') {
    errs.push(fieldNotSupported('spec.updateStrategy', goLiteral(goStructText('apps.DaemonSetUpdateStrategy', strategy)), ['RollingUpdate', 'OnDelete']));
  }
  if (isPresent(spec.revisionHistoryLimit)) errs.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  return errs;
}

// ---- entry points ----

const specValidators: Record<WorkloadKind, (spec: Obj) => FieldError[]> = {
  Deployment: validateDeploymentSpec,
  ReplicaSet: validateReplicaSetSpec,
  StatefulSet: validateStatefulSetSpec,
  DaemonSet: validateDaemonSetSpec,
};

export function validateWorkload(kind: WorkloadKind, obj: Obj): FieldError[] {
  const meta = validateObjectMetaCreate(obj.metadata, {
    namespaced: true,
    standardFinalizerNames: true,
    ...(kind === 'StatefulSet' ? { nameValidator: nameIsDNSLabel } : {}),
  });
  return [...meta, ...specValidators[kind](asObject(obj.spec))];
}

export function validateWorkloadUpdate(kind: WorkloadKind, obj: Obj, old: Obj): FieldError[] {
  const spec = asObject(obj.spec);
  const oldSpec = asObject(old.spec);
  const errs = [...validateObjectMetaUpdate(obj.metadata, old.metadata, { standardFinalizerNames: true }), ...specValidators[kind](spec)];
  if (kind === 'StatefulSet') {
    const frozen = (s: Obj): Obj => Object.fromEntries(Object.entries(s).filter(([k]) => !statefulSetMutableSpec.includes(k)));
    if (!semanticEqual(frozen(spec), frozen(oldSpec)))
      errs.push(
        fieldForbidden(
          'spec',
          "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ),
      );
  } else if (!semanticEqual(spec.selector, oldSpec.selector)) {
    errs.push(fieldInvalid('spec.selector', goLabelSelectorValue(spec.selector), FIELD_IMMUTABLE));
  }
  return errs;
}

const statusCounters: Record<WorkloadKind, string[]> = {
  Deployment: ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'],
  ReplicaSet: ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
  StatefulSet: ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration'],
  DaemonSet: [
    'currentNumberScheduled',
    'numberMisscheduled',
    'desiredNumberScheduled',
    'numberReady',
    'observedGeneration',
    'updatedNumberScheduled',
    'numberAvailable',
    'numberUnavailable',
  ],
};

/** The counters that may not exceed status.replicas, per kind, in the real order. */
const boundedByReplicas: Record<WorkloadKind, string[]> = {
  Deployment: ['updatedReplicas', 'readyReplicas', 'availableReplicas'],
  ReplicaSet: ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'],
  StatefulSet: ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'],
  DaemonSet: [],
};

export function validateWorkloadStatusUpdate(kind: WorkloadKind, obj: Obj, old: Obj): FieldError[] {
  const status = asObject(obj.status);
  const statusErrs: FieldError[] = statusCounters[kind].flatMap((f) => nonNegative(status[f], `status.${f}`));
  if (isPresent(status.collisionCount)) statusErrs.push(...nonNegative(status.collisionCount, 'status.collisionCount'));
  const replicas = asNumber(status.replicas) ?? 0;
  for (const f of boundedByReplicas[kind]) {
    const n = asNumber(status[f]) ?? 0;
    if (n > replicas) statusErrs.push(fieldInvalid(`status.${f}`, n, 'cannot be greater than status.replicas'));
  }
  if (kind !== 'DaemonSet' && (asNumber(status.availableReplicas) ?? 0) > (asNumber(status.readyReplicas) ?? 0))
    statusErrs.push(
      fieldInvalid('status.availableReplicas', asNumber(status.availableReplicas) ?? 0, kind === 'StatefulSet' ? 'cannot be greater than status.readyReplicas' : 'cannot be greater than readyReplicas'),
    );
  const metaErrs = validateObjectMetaUpdate(obj.metadata, old.metadata, { standardFinalizerNames: true });
  const collision = asNumber(status.collisionCount);
  const oldCollision = asNumber(asObject(old.status).collisionCount);
  const decremented = oldCollision !== undefined && (collision === undefined || collision < oldCollision);
  const collisionErrs = decremented ? [fieldInvalid('status.collisionCount', collision ?? 0, 'cannot be decremented')] : [];
  // StatefulSets check the status before the metadata; the others the reverse.
  return kind === 'StatefulSet' ? [...statusErrs, ...metaErrs, ...collisionErrs] : [...metaErrs, ...statusErrs, ...collisionErrs];
}

// ---- ControllerRevision ----

export function validateControllerRevision(rev: Obj): FieldError[] {
  const errs = validateObjectMetaCreate(rev.metadata, { namespaced: true, standardFinalizerNames: true });
  if (!isPresent(rev.data)) errs.push(fieldRequired('data', 'data is mandatory'));
  return [...errs, ...nonNegative(rev.revision, 'revision')];
}

export function validateControllerRevisionUpdate(rev: Obj, old: Obj): FieldError[] {
  const errs = [...validateObjectMetaUpdate(rev.metadata, old.metadata, { standardFinalizerNames: true }), ...validateControllerRevision(rev)];
  if (!semanticEqual(rev.data, old.data)) errs.push(fieldInvalid('data', goLiteral(goStructText('runtime.RawExtension', { raw: rev.data })), FIELD_IMMUTABLE));
  return errs;
}

