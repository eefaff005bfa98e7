// policy/v1 PodDisruptionBudget: the spec (minAvailable or maxUnavailable, each a non-negative number
// or a percentage of at most 100%, the selector, the unhealthy-pod eviction policy) and its status.

import { fieldInvalid, fieldNotSupported, type FieldError } from '../errors.ts';
import { validateLabelSelector } from '../selectors/label-selector.ts';
import { validateConditions } from './conditions.ts';
import { goLiteral, goStructText } from './golang.ts';
import { asNumber, asObject, isPresent } from './json.ts';
import { IS_NEGATIVE_ERROR } from './meta.ts';
import { notMoreThan100Percent, validatePositiveIntOrPercent } from './workloads.ts';

type Obj = Record<string, unknown>;

const evictionPolicies = ['AlwaysAllow', 'IfHealthyBudget'];

function validateSpec(spec: Obj, allowInvalidLabelValueInSelector: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (isPresent(spec.minAvailable) && isPresent(spec.maxUnavailable)) {
    errs.push(fieldInvalid('spec', goLiteral(goStructText('policy.PodDisruptionBudgetSpec', spec)), 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const field of ['minAvailable', 'maxUnavailable']) {
    if (!isPresent(spec[field])) continue;
    errs.push(...validatePositiveIntOrPercent(spec[field], `spec.${field}`), ...notMoreThan100Percent(spec[field], `spec.${field}`));
  }
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector', { allowInvalidLabelValueInSelector }));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (isPresent(policy) && !evictionPolicies.includes(String(policy))) errs.push(fieldNotSupported('spec.unhealthyPodEvictionPolicy', String(policy), evictionPolicies));
  return errs;
}

export const validatePodDisruptionBudget = (pdb: Obj): FieldError[] => validateSpec(asObject(pdb.spec), false);

/** An update keeps selectors whose label values the old object already got away with. */
export const validatePodDisruptionBudgetUpdate = (pdb: Obj, old: Obj): FieldError[] =>
  validateSpec(asObject(pdb.spec), validateLabelSelector(asObject(old.spec).selector, '').length > 0);

export function validatePodDisruptionBudgetStatusUpdate(pdb: Obj): FieldError[] {
  const status = asObject(pdb.status);
  const errs = validateConditions(status.conditions, 'status.conditions');
  for (const field of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) {
    const value = asNumber(status[field]) ?? 0;
    if (value < 0) errs.push(fieldInvalid(`status.${field}`, value, IS_NEGATIVE_ERROR));
  }
  return errs;
}
