// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding, as
// their validation checks them. CEL expressions are checked for presence, not compiled (the sandbox
// evaluates no CEL, docs/sandbox.md).

import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../errors.ts';
import { validateLabelSelector } from '../selectors/label-selector.ts';
import { goLiteral, goStringSliceText } from './golang.ts';
import { asArray, asObject, asString, isPresent, objectList } from './json.ts';
import { validateObjectMetaCreate, validateObjectMetaUpdate } from './meta.ts';
import { isDNS1123Label, isValidPathSegmentName, nameIsDNSSubdomain } from './names.ts';
import { validateMatchConditions, validateRuleWithOperations } from './webhooks.ts';

type Obj = Record<string, unknown>;

const failurePolicies = ['Fail', 'Ignore'];
const matchPolicies = ['Equivalent', 'Exact'];
const reasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];
const validationActions = ['Audit', 'Deny', 'Warn'];
const celIdentifier = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

/** validateNamedRuleWithOperations: resource names are path segments, each once. */
function validateNamedRule(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  asArray(rule.resourceNames).map(asString).forEach((name, i) => {
    errs.push(...isValidPathSegmentName(name).map((msg) => fieldInvalid(`${path}.resourceNames[${i}]`, name, msg)));
    if (seen.has(name)) errs.push(fieldDuplicate(`${path}.resourceNames[${i}]`, name));
    seen.add(name);
  });
  return [...errs, ...validateRuleWithOperations(rule, path)];
}

/** validateMatchResources (a missing object selector is reported at `labelSelector`, as the real code does). */
function validateMatchResources(match: unknown, path: string): FieldError[] {
  if (!isPresent(match)) return [];
  const m = asObject(match);
  const errs: FieldError[] = [];
  if (!isPresent(m.matchPolicy)) errs.push(fieldRequired(`${path}.matchPolicy`));
  else if (!matchPolicies.includes(asString(m.matchPolicy))) errs.push(fieldNotSupported(`${path}.matchPolicy`, asString(m.matchPolicy), matchPolicies));
  if (!isPresent(m.namespaceSelector)) errs.push(fieldRequired(`${path}.namespaceSelector`));
  else errs.push(...validateLabelSelector(m.namespaceSelector, `${path}.namespaceSelector`));
  if (!isPresent(m.objectSelector)) errs.push(fieldRequired(`${path}.labelSelector`));
  else errs.push(...validateLabelSelector(m.objectSelector, `${path}.labelSelector`));
  objectList(m.resourceRules).forEach((r, i) => errs.push(...validateNamedRule(r, `${path}.resourceRules[${i}]`)));
  objectList(m.excludeResourceRules).forEach((r, i) => errs.push(...validateNamedRule(r, `${path}.excludeResourceRules[${i}]`)));
  return errs;
}

function validateParamKind(paramKind: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = asString(paramKind.apiVersion);
  if (apiVersion === '') errs.push(fieldRequired(`${path}.apiVersion`));
  else if (apiVersion.split('/').length > 2) errs.push(fieldInvalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  if (asString(paramKind.kind) === '') errs.push(fieldRequired(`${path}.kind`));
  return errs;
}

function validateValidation(v: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (asString(v.expression).trim() === '') errs.push(fieldRequired(`${path}.expression`, 'expression is not specified'));
  const messageExpression = asString(v.messageExpression);
  if (messageExpression.length > 0 && messageExpression.trim() === '') errs.push(fieldInvalid(`${path}.messageExpression`, messageExpression, 'must be non-empty if specified'));
  if (isPresent(v.reason) && !reasons.includes(asString(v.reason))) errs.push(fieldNotSupported(`${path}.reason`, asString(v.reason), reasons));
  const message = asString(v.message);
  if (message.length > 0 && message.trim() === '') errs.push(fieldInvalid(`${path}.message`, message, 'message must be non-empty if specified'));
  else if (/[\n\r]/.test(message.trim())) errs.push(fieldInvalid(`${path}.message`, message, 'message must not contain line breaks'));
  return errs;
}

function validatePolicySpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (!isPresent(spec.failurePolicy)) errs.push(fieldRequired('spec.failurePolicy'));
  else if (!failurePolicies.includes(asString(spec.failurePolicy))) errs.push(fieldNotSupported('spec.failurePolicy', asString(spec.failurePolicy), failurePolicies));
  if (isPresent(spec.paramKind)) errs.push(...validateParamKind(asObject(spec.paramKind), 'spec.paramKind'));
  if (!isPresent(spec.matchConstraints)) errs.push(fieldRequired('spec.matchConstraints'));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, 'spec.matchConstraints'));
    // At least one resource rule gives the expressions their types.
    if (asArray(asObject(spec.matchConstraints).resourceRules).length === 0) errs.push(fieldRequired('spec.matchConstraints.resourceRules'));
  }
  errs.push(...validateMatchConditions(spec.matchConditions, 'spec.matchConditions'));
  objectList(spec.variables).forEach((variable, i) => {
    const path = `spec.variables[${i}]`;
    const name = asString(variable.name);
    if (name === '') errs.push(fieldRequired(`${path}.name`));
    else if (!celIdentifier.test(name)) errs.push(fieldInvalid(`${path}.name`, name, 'name is not a valid CEL identifier'));
    if (asString(variable.expression).trim() === '') errs.push(fieldRequired(`${path}.expression`));
  });
  const validations = objectList(spec.validations);
  const audits = objectList(spec.auditAnnotations);
  if (validations.length === 0 && audits.length === 0) {
    errs.push(fieldRequired('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    errs.push(fieldRequired('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...validateValidation(v, `spec.validations[${i}]`)));
  const keys = new Set<string>();
  audits.forEach((a, i) => {
    const key = asString(a.key);
    if (key === '') errs.push(fieldRequired(`spec.auditAnnotations[${i}].key`));
    if (asString(a.valueExpression).trim() === '') errs.push(fieldRequired(`spec.auditAnnotations[${i}].valueExpression`, 'valueExpression is not specified'));
    if (keys.has(key)) errs.push(fieldDuplicate(`spec.auditAnnotations[${i}].key`, key));
    keys.add(key);
  });
  return errs;
}

const meta = (o: Obj): FieldError[] => validateObjectMetaCreate(o.metadata, { namespaced: false, nameValidator: nameIsDNSSubdomain });

export const validateValidatingAdmissionPolicy = (policy: Obj): FieldError[] => [...meta(policy), ...validatePolicySpec(asObject(policy.spec))];

export const validateValidatingAdmissionPolicyUpdate = (policy: Obj, old: Obj): FieldError[] => [
  ...validateValidatingAdmissionPolicy(policy),
  ...validateObjectMetaUpdate(policy.metadata, old.metadata),
];

function validateParamRef(paramRef: unknown, path: string): FieldError[] {
  if (!isPresent(paramRef)) return [];
  const p = asObject(paramRef);
  const errs: FieldError[] = [];
  const name = asString(p.name);
  if (name !== '') {
    errs.push(...isValidPathSegmentName(name).map((msg) => fieldInvalid(`${path}.name`, name, msg)));
    if (isPresent(p.selector)) errs.push(fieldForbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  const namespace = asString(p.namespace);
  if (namespace !== '') errs.push(...isDNS1123Label(namespace).map((msg) => fieldInvalid(`${path}.namespace`, namespace, msg)));
  const action = asString(p.parameterNotFoundAction);
  if (action === '') errs.push(fieldRequired(`${path}.parameterNotFoundAction`));
  else if (action !== 'Deny' && action !== 'Allow') errs.push(fieldNotSupported(`${path}.parameterNotFoundAction`, action, ['Deny', 'Allow']));
  return errs;
}

function validateValidationActions(actions: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((action, i) => {
    if (!validationActions.includes(action)) errs.push(fieldNotSupported(`spec.validationActions[${i}]`, action, validationActions));
    if (seen.has(action)) errs.push(fieldDuplicate(`spec.validationActions[${i}]`, action));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(
      fieldInvalid(
        'spec.validationActions',
        goLiteral(goStringSliceText(actions).replace(/^\[\]string/, '[]admissionregistration.ValidationAction')),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  }
  if (seen.size === 0) errs.push(fieldRequired('spec.validationActions', 'at least one validation action is required'));
  return errs;
}

export function validateValidatingAdmissionPolicyBinding(binding: Obj): FieldError[] {
  const spec = asObject(binding.spec);
  const errs = meta(binding);
  const policyName = asString(spec.policyName);
  if (policyName === '') errs.push(fieldRequired('spec.policyName'));
  else errs.push(...nameIsDNSSubdomain(policyName, false).map((msg) => fieldInvalid('spec.policyName', policyName, msg)));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  // The real validation names this path `matchResouces` (sic).
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  errs.push(...validateValidationActions(asArray(spec.validationActions).map(asString)));
  return errs;
}

export const validateValidatingAdmissionPolicyBindingUpdate = (binding: Obj, old: Obj): FieldError[] => [
  ...validateValidatingAdmissionPolicyBinding(binding),
  ...validateObjectMetaUpdate(binding.metadata, old.metadata),
];
