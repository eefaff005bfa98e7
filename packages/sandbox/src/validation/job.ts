// batch/v1 Job: the generated selector and its labels, the spec, and what may change on update
// (the template only while the job is suspended and has never started).

import { goQuote } from '../crd/go-format.ts';
import { fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, type FieldError } from '../errors.ts';
import { labelSelectorMatches, tryLabelSelectorFromObject, validateLabelSelector } from '../selectors/label-selector.ts';
import { matchesLabels } from '../selectors/labels.ts';
import { fieldTooMany } from './field-errors.ts';
import { goLabelSelectorValue, goLiteral, goStringMapText, goStructText } from './golang.ts';
import { asArray, asNumber, asObject, asString, asStringMap, isPresent, objectList, semanticEqual } from './json.ts';
import { FIELD_IMMUTABLE, validateObjectMetaCreate, validateObjectMetaUpdate } from './meta.ts';
import { isDNS1123Label, isDomainPrefixedPath, isQualifiedName } from './names.ts';
import { validatePodTemplateSpec } from './pod-spec.ts';
import { nonNegative } from './workloads.ts';

type Obj = Record<string, unknown>;

export const JOB_LABELS = {
  legacyControllerUid: 'controller-uid',
  legacyJobName: 'job-name',
  controllerUid: 'batch.kubernetes.io/controller-uid',
  jobName: 'batch.kubernetes.io/job-name',
} as const;

const MAX_PARALLELISM_INDEXED = 100000;

/** ValidateHasLabel: the template label must be present and equal. */
function validateHasLabel(labels: Record<string, string>, key: string, expected: string): FieldError[] {
  const path = `spec.template.metadata.labels[${key}]`;
  if (!(key in labels)) return [fieldRequired(path, `must be '${expected}'`)];
  if (labels[key] !== expected) return [fieldInvalid(path, goLiteral(goStringMapText(labels)), `must be '${expected}'`)];
  return [];
}

/** Unless manualSelector is set, the generated selector and template labels must be the job's own. */
function validateGeneratedSelector(job: Obj): FieldError[] {
  const spec = asObject(job.spec);
  if (spec.manualSelector === true || !isPresent(spec.selector)) return [];
  const meta = asObject(job.metadata);
  const uid = asString(meta.uid);
  const name = asString(meta.name);
  const errs: FieldError[] = uid === '' ? [fieldRequired('metadata.uid')] : [];
  const labels = asStringMap(asObject(asObject(spec.template).metadata).labels);
  errs.push(...validateHasLabel(labels, JOB_LABELS.legacyControllerUid, uid), ...validateHasLabel(labels, JOB_LABELS.legacyJobName, name));
  errs.push(...validateHasLabel(labels, JOB_LABELS.controllerUid, uid), ...validateHasLabel(labels, JOB_LABELS.jobName, name));
  const expected = {
    [JOB_LABELS.controllerUid]: uid,
    [JOB_LABELS.jobName]: name,
    [JOB_LABELS.legacyControllerUid]: uid,
    [JOB_LABELS.legacyJobName]: name,
  };
  const selector = tryLabelSelectorFromObject(spec.selector);
  if (selector && !matchesLabels(selector, expected))
    errs.push(fieldInvalid('spec.selector', goLabelSelectorValue(spec.selector), '`selector` not auto-generated'));
  return errs;
}

function validatePodFailurePolicy(spec: Obj): FieldError[] {
  const rules = objectList(asObject(spec.podFailurePolicy).rules);
  const path = 'spec.podFailurePolicy.rules';
  const errs: FieldError[] = rules.length > 20 ? [fieldTooMany(path, rules.length, 20)] : [];
  const actions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
  rules.forEach((rule, i) => {
    const p = `${path}[${i}]`;
    const action = asString(rule.action);
    if (action === '') errs.push(fieldRequired(`${p}.action`, `valid values: [${actions.map(goQuote).join(' ')}]`));
    else if (action === 'FailIndex' && !isPresent(spec.backoffLimitPerIndex)) errs.push(fieldInvalid(`${p}.action`, action, 'requires the backoffLimitPerIndex to be set'));
    else if (!actions.includes(action)) errs.push(fieldNotSupported(`${p}.action`, action, actions));
    const onExitCodes = isPresent(rule.onExitCodes);
    const onConditions = asArray(rule.onPodConditions).length > 0;
    objectList(rule.onPodConditions).forEach((pattern, j) => {
      const type = asString(pattern.type);
      errs.push(...isQualifiedName(type).map((msg) => fieldInvalid(`${p}.onPodConditions[${j}].type`, type, msg)));
    });
    if (onExitCodes) {
      const codes = asObject(rule.onExitCodes);
      const operator = asString(codes.operator);
      if (operator === '') errs.push(fieldRequired(`${p}.onExitCodes.operator`, 'valid values: ["In" "NotIn"]'));
      else if (operator !== 'In' && operator !== 'NotIn') errs.push(fieldNotSupported(`${p}.onExitCodes.operator`, operator, ['In', 'NotIn']));
      if (asArray(codes.values).length === 0) errs.push(fieldInvalid(`${p}.onExitCodes.values`, goLiteral('[]int32(nil)'), 'at least one value is required'));
    }
    // The real server omits the value from these two messages (field.OmitValueType).
    if (onExitCodes && onConditions) errs.push({ type: 'FieldValueInvalid', field: p, detail: 'specifying both OnExitCodes and OnPodConditions is not supported' });
    if (!onExitCodes && !onConditions) errs.push({ type: 'FieldValueInvalid', field: p, detail: 'specifying one of OnExitCodes and OnPodConditions is required' });
  });
  return errs;
}

/** validateJobSpec: counters, indexed-mode rules, replacement policy, template, restartPolicy. */
function validateJobSpecFields(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex'])
    if (isPresent(spec[f])) errs.push(...nonNegative(spec[f], `spec.${f}`));
  if (isPresent(spec.maxFailedIndexes)) {
    errs.push(...nonNegative(spec.maxFailedIndexes, 'spec.maxFailedIndexes'));
    if (!isPresent(spec.backoffLimitPerIndex)) errs.push(fieldRequired('spec.backoffLimitPerIndex', 'when maxFailedIndexes is specified'));
  }
  if (isPresent(spec.managedBy)) {
    const managedBy = asString(spec.managedBy);
    errs.push(...isDomainPrefixedPath('spec.managedBy', managedBy));
    if (managedBy.length > 63) errs.push(fieldTooLong('spec.managedBy', managedBy, 63));
  }
  const mode = spec.completionMode;
  if (isPresent(mode)) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(fieldNotSupported('spec.completionMode', asString(mode), ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') {
      if (!isPresent(spec.completions)) errs.push(fieldRequired('spec.completions', 'when completion mode is Indexed'));
      const parallelism = asNumber(spec.parallelism);
      if (parallelism !== undefined && parallelism > MAX_PARALLELISM_INDEXED)
        errs.push(fieldInvalid('spec.parallelism', parallelism, `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`));
    }
  }
  if (!isPresent(mode) || mode === 'NonIndexed') {
    for (const f of ['backoffLimitPerIndex', 'maxFailedIndexes'])
      if (isPresent(spec[f])) errs.push(fieldInvalid(`spec.${f}`, asNumber(spec[f]) ?? 0, 'requires indexed completion mode'));
  }
  if (isPresent(spec.podFailurePolicy)) errs.push(...validatePodFailurePolicy(spec));
  if (isPresent(spec.podReplacementPolicy)) {
    const policy = asString(spec.podReplacementPolicy);
    const allowed = isPresent(spec.podFailurePolicy) ? ['Failed'] : ['Failed', 'TerminatingOrFailed'];
    if (!allowed.includes(policy)) errs.push(fieldNotSupported('spec.podReplacementPolicy', policy, allowed));
  }
  errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  const restartPolicy = asString(asObject(asObject(spec.template).spec).restartPolicy);
  if (restartPolicy === 'Always' || restartPolicy === '') errs.push(fieldRequired('spec.template.spec.restartPolicy', 'valid values: "OnFailure", "Never"'));
  else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') errs.push(fieldNotSupported('spec.template.spec.restartPolicy', restartPolicy, ['OnFailure', 'Never']));
  else if (isPresent(spec.podFailurePolicy) && restartPolicy !== 'Never')
    errs.push(fieldInvalid('spec.template.spec.restartPolicy', restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

function validateJobSpec(spec: Obj): FieldError[] {
  const errs = validateJobSpecFields(spec);
  if (!isPresent(spec.selector)) errs.push(fieldRequired('spec.selector'));
  else errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const templateLabels = asStringMap(asObject(asObject(spec.template).metadata).labels);
  if (tryLabelSelectorFromObject(spec.selector) && !labelSelectorMatches(spec.selector, templateLabels))
    errs.push(fieldInvalid('spec.template.metadata.labels', goLiteral(goStringMapText(asObject(asObject(spec.template).metadata).labels)), '`selector` does not match template `labels`'));
  return errs;
}

export function validateJob(job: Obj): FieldError[] {
  const spec = asObject(job.spec);
  const errs = validateObjectMetaCreate(job.metadata, { namespaced: true, standardFinalizerNames: true });
  errs.push(...validateGeneratedSelector(job));
  errs.push(...validateJobSpec(spec));
  const completions = asNumber(spec.completions);
  if (spec.completionMode === 'Indexed' && completions !== undefined && completions > 0) {
    const name = asString(asObject(job.metadata).name);
    const hostname = `${name}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0)
      errs.push(fieldInvalid('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`));
  }
  return errs;
}

/** The scheduling directives of a suspended job that never started may change; nothing else in the template. */
function templateForComparison(template: unknown, mutableDirectives: boolean, newTemplate: unknown): unknown {
  if (!mutableDirectives) return template;
  const t = asObject(template);
  const n = asObject(newTemplate);
  const spec = { ...asObject(t.spec) };
  const newSpec = asObject(n.spec);
  for (const f of ['nodeSelector', 'tolerations', 'schedulingGates']) spec[f] = newSpec[f];
  const affinity = { ...asObject(spec.affinity), nodeAffinity: asObject(newSpec.affinity).nodeAffinity };
  spec.affinity = Object.values(affinity).some(isPresent) ? affinity : undefined;
  const meta = { ...asObject(t.metadata), labels: asObject(n.metadata).labels, annotations: asObject(n.metadata).annotations };
  return { ...t, metadata: meta, spec };
}

export function validateJobUpdate(job: Obj, old: Obj): FieldError[] {
  const spec = asObject(job.spec);
  const oldSpec = asObject(old.spec);
  const errs = validateObjectMetaUpdate(job.metadata, old.metadata, { standardFinalizerNames: true });
  errs.push(...validateJobSpec(spec));
  const completions = asNumber(spec.completions);
  const indexed = spec.completionMode === 'Indexed';
  if (!semanticEqual(spec.completions, oldSpec.completions) && (!indexed || (completions !== undefined && completions !== asNumber(spec.parallelism))))
    errs.push(
      !indexed
        ? fieldInvalid('spec.completions', completions ?? 'null', FIELD_IMMUTABLE)
        : fieldInvalid('spec.completions', completions ?? 'null', 'can only be modified in tandem with spec.parallelism'),
    );
  if (!semanticEqual(spec.selector, oldSpec.selector)) errs.push(fieldInvalid('spec.selector', goLabelSelectorValue(spec.selector), FIELD_IMMUTABLE));
  const suspendedNeverStarted = oldSpec.suspend === true && !isPresent(asObject(old.status).startTime);
  if (!semanticEqual(spec.template, templateForComparison(oldSpec.template, suspendedNeverStarted, spec.template)))
    errs.push(fieldInvalid('spec.template', goLiteral(goStructText('core.PodTemplateSpec', spec.template)), FIELD_IMMUTABLE));
  for (const f of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy'])
    if (!semanticEqual(spec[f], oldSpec[f]))
      errs.push(fieldInvalid(`spec.${f}`, typeof spec[f] === 'string' || typeof spec[f] === 'number' ? spec[f] : goLiteral(goStructText('', spec[f])), FIELD_IMMUTABLE));
  return errs;
}

export function validateJobStatusUpdate(job: Obj, old: Obj): FieldError[] {
  const status = asObject(job.status);
  const errs = validateObjectMetaUpdate(job.metadata, old.metadata, { standardFinalizerNames: true });
  for (const f of ['active', 'succeeded', 'failed']) errs.push(...nonNegative(status[f], `status.${f}`));
  for (const f of ['ready', 'terminating']) if (isPresent(status[f])) errs.push(...nonNegative(status[f], `status.${f}`));
  return errs;
}
