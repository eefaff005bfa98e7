// autoscaling/v2 HorizontalPodAutoscaler (the stored form, which autoscaling/v1 writes are converted
// to before validation, so errors name v2 fields whatever the request's version): replica bounds, the
// scale target, each metric's source and target, and the scaling behavior.

import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../errors.ts';
import { ownMember } from '../meta/object.ts';
import { validateLabelSelector } from '../selectors/label-selector.ts';
import { goLiteral } from './golang.ts';
import { asNumber, asObject, asString, isPresent, objectList } from './json.ts';
import { IS_NEGATIVE_ERROR, validateObjectMetaCreate, validateObjectMetaUpdate } from './meta.ts';
import { isDNS1123Label, isValidPathSegmentName } from './names.ts';
import { formatQuantity, parseQuantity } from './quantity.ts';

type Obj = Record<string, unknown>;

const metricTypes = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const sourceFields: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' };
const selectPolicies = ['Disabled', 'Max', 'Min'];
const policyTypes = ['Percent', 'Pods'];
const maxPeriodSeconds = 1800;
const maxStabilizationWindowSeconds = 3600;

const pathSegment = (value: string, path: string): FieldError[] => isValidPathSegmentName(value).map((msg) => fieldInvalid(path, value, msg));

/** ValidateCrossVersionObjectReference. */
function validateReference(ref: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const field of ['kind', 'name']) {
    const value = asString(ref[field]);
    if (value === '') errs.push(fieldRequired(`${path}.${field}`));
    else errs.push(...pathSegment(value, `${path}.${field}`));
  }
  return errs;
}

/** A quantity must be positive; field.Error prints it with its String(). */
function positiveQuantity(value: unknown, path: string): FieldError[] {
  if (!isPresent(value)) return [];
  const q = parseQuantity(value);
  return q && q.nano > 0n ? [] : [fieldInvalid(path, goLiteral(q ? formatQuantity(q) : String(value)), 'must be positive')];
}

function validateTarget(target: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = asString(target.type);
  if (type === '') errs.push(fieldRequired(`${path}.type`, 'must specify a metric target type'));
  if (!['Utilization', 'Value', 'AverageValue'].includes(type)) errs.push(fieldInvalid(`${path}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  errs.push(...positiveQuantity(target.value, `${path}.value`), ...positiveQuantity(target.averageValue, `${path}.averageValue`));
  const utilization = asNumber(target.averageUtilization);
  if (utilization !== undefined && utilization < 1) errs.push(fieldInvalid(`${path}.averageUtilization`, utilization, 'must be greater than 0'));
  return errs;
}

function validateMetricIdentifier(metric: Obj, path: string): FieldError[] {
  const name = asString(metric.name);
  if (name === '') return [fieldRequired(`${path}.name`, 'must specify a metric name')];
  const errs = pathSegment(name, `${path}.name`);
  if (isPresent(metric.selector)) errs.push(...validateLabelSelector(metric.selector, `${path}.selector`));
  return errs;
}

function validateSource(type: string, source: Obj, path: string): FieldError[] {
  const target = asObject(source.target);
  const errs: FieldError[] = [];
  const has = (field: string): boolean => isPresent(target[field]);
  switch (type) {
    case 'object':
      errs.push(...validateReference(asObject(source.describedObject), `${path}.describedObject`), ...validateMetricIdentifier(asObject(source.metric), `${path}.metric`));
      errs.push(...validateTarget(target, `${path}.target`));
      if (!has('value') && !has('averageValue')) errs.push(fieldRequired(`${path}.target.averageValue`, 'must set either a target value or averageValue'));
      break;
    case 'external':
      errs.push(...validateMetricIdentifier(asObject(source.metric), `${path}.metric`), ...validateTarget(target, `${path}.target`));
      if (!has('value') && !has('averageValue')) errs.push(fieldRequired(`${path}.target.averageValue`, 'must set either a target value for metric or a per-pod target'));
      if (has('value') && has('averageValue')) errs.push(fieldForbidden(`${path}.target.value`, 'may not set both a target value for metric and a per-pod target'));
      break;
    case 'pods':
      errs.push(...validateMetricIdentifier(asObject(source.metric), `${path}.metric`), ...validateTarget(target, `${path}.target`));
      if (!has('averageValue')) errs.push(fieldRequired(`${path}.target.averageValue`, 'must specify a positive target averageValue'));
      break;
    default: {
      if (asString(source.name) === '') errs.push(fieldRequired(`${path}.name`, 'must specify a resource name'));
      if (type === 'containerResource') {
        const container = asString(source.container);
        if (container === '') errs.push(fieldRequired(`${path}.container`, 'must specify a container'));
        else errs.push(...isDNS1123Label(container).map((msg) => fieldInvalid(`${path}.container`, container, msg)));
      }
      errs.push(...validateTarget(target, `${path}.target`));
      if (!has('averageUtilization') && !has('averageValue')) errs.push(fieldRequired(`${path}.target.averageUtilization`, 'must set either a target raw value or a target utilization'));
      if (has('averageUtilization') && has('averageValue')) errs.push(fieldForbidden(`${path}.target.averageValue`, 'may not set both a target raw value and a target utilization'));
    }
  }
  return errs;
}

/** validateMetricSpec: the type names one source, and only that source is set. */
function validateMetric(metric: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = asString(metric.type);
  if (type === '') errs.push(fieldRequired(`${path}.type`, 'must specify a metric source type'));
  if (!metricTypes.includes(type)) errs.push(fieldNotSupported(`${path}.type`, type, metricTypes));
  const present = ['object', 'external', 'pods', 'resource', 'containerResource'].filter((f) => isPresent(metric[f]));
  if (present[0]) errs.push(...validateSource(present[0], asObject(metric[present[0]]), `${path}.${present[0]}`));
  const expected = ownMember(sourceFields, type);
  if (expected === undefined) errs.push(fieldNotSupported(`${path}.type`, type, metricTypes));
  else if (!isPresent(metric[expected])) errs.push(fieldRequired(`${path}.${expected}`, 'must populate information for the given metric source'));
  if (present.length !== 1) for (const field of present.filter((f) => f !== expected)) errs.push(fieldForbidden(`${path}.${field}`, 'must populate the given metric source only'));
  return errs;
}

function validateRules(rules: unknown, path: string): FieldError[] {
  if (!isPresent(rules)) return [];
  const r = asObject(rules);
  const errs: FieldError[] = [];
  const window = asNumber(r.stabilizationWindowSeconds);
  if (window !== undefined && window < 0) errs.push(fieldInvalid(`${path}.stabilizationWindowSeconds`, window, 'must be greater than or equal to zero'));
  if (window !== undefined && window > maxStabilizationWindowSeconds) {
    errs.push(fieldInvalid(`${path}.stabilizationWindowSeconds`, window, `must be less than or equal to ${maxStabilizationWindowSeconds}`));
  }
  if (isPresent(r.selectPolicy) && !selectPolicies.includes(asString(r.selectPolicy))) errs.push(fieldNotSupported(`${path}.selectPolicy`, asString(r.selectPolicy), selectPolicies));
  const policies = objectList(r.policies);
  if (policies.length === 0) errs.push(fieldRequired(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((p, i) => {
    const at = `${path}.policies[${i}]`;
    if (!policyTypes.includes(asString(p.type))) errs.push(fieldNotSupported(`${at}.type`, asString(p.type), policyTypes));
    const value = asNumber(p.value) ?? 0;
    if (value <= 0) errs.push(fieldInvalid(`${at}.value`, value, 'must be greater than zero'));
    const period = asNumber(p.periodSeconds) ?? 0;
    if (period <= 0) errs.push(fieldInvalid(`${at}.periodSeconds`, period, 'must be greater than zero'));
    if (period > maxPeriodSeconds) errs.push(fieldInvalid(`${at}.periodSeconds`, period, `must be less than or equal to ${maxPeriodSeconds}`));
  });
  return errs;
}

function validateSpec(spec: Obj, minReplicasLowerBound: number): FieldError[] {
  const errs: FieldError[] = [];
  const min = asNumber(spec.minReplicas);
  const max = asNumber(spec.maxReplicas) ?? 0;
  if (min !== undefined && min < minReplicasLowerBound) errs.push(fieldInvalid('spec.minReplicas', min, `must be greater than or equal to ${minReplicasLowerBound}`));
  if (max < 1) errs.push(fieldInvalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (min !== undefined && max < min) errs.push(fieldInvalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateReference(asObject(spec.scaleTargetRef), 'spec.scaleTargetRef'));
  const metrics = objectList(spec.metrics);
  metrics.forEach((m, i) => errs.push(...validateMetric(m, `spec.metrics[${i}]`)));
  if (min === 0 && !metrics.some((m) => m.type === 'Object' || m.type === 'External')) {
    errs.push(fieldForbidden('spec.metrics', 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  if (isPresent(spec.behavior)) {
    const behavior = asObject(spec.behavior);
    errs.push(...validateRules(behavior.scaleUp, 'spec.behavior.scaleUp'), ...validateRules(behavior.scaleDown, 'spec.behavior.scaleDown'));
  }
  return errs;
}

export const validateHorizontalPodAutoscaler = (hpa: Obj): FieldError[] => [
  ...validateObjectMetaCreate(hpa.metadata, { namespaced: true }),
  ...validateSpec(asObject(hpa.spec), 1),
];

/** An update may keep `minReplicas: 0` only if the stored object already had it. */
export function validateHorizontalPodAutoscalerUpdate(hpa: Obj, old: Obj): FieldError[] {
  const lowerBound = asNumber(asObject(old.spec).minReplicas) === 0 ? 0 : 1;
  return [...validateObjectMetaUpdate(hpa.metadata, old.metadata), ...validateSpec(asObject(hpa.spec), lowerBound)];
}

/** ValidateHorizontalPodAutoscalerStatusUpdate, whose path for desiredReplicas is misspelled as in the real code. */
export function validateHorizontalPodAutoscalerStatusUpdate(hpa: Obj, old: Obj): FieldError[] {
  const status = asObject(hpa.status);
  const errs = validateObjectMetaUpdate(hpa.metadata, old.metadata);
  for (const [field, path] of [['currentReplicas', 'status.currentReplicas'], ['desiredReplicas', 'status.desiredReplicasa']] as const) {
    const value = asNumber(status[field]) ?? 0;
    if (value < 0) errs.push(fieldInvalid(path, value, IS_NEGATIVE_ERROR));
  }
  return errs;
}
