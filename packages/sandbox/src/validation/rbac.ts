// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding, as the RBAC
// validation checks them: names are path segments, rules need verbs and either resources (with API
// groups) or non-resource URLs, bindings reference a role of the RBAC group whose roleRef never
// changes, and subjects are users, groups or service accounts.

import { fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../errors.ts';
import { validateLabelSelector } from '../selectors/label-selector.ts';
import { goQuote } from '../crd/go-format.ts';
import { goLiteral, goStringSliceText } from './golang.ts';
import { asArray, asObject, asString, objectList, semanticEqual } from './json.ts';
import { validateObjectMetaCreate, validateObjectMetaUpdate } from './meta.ts';
import { nameIsDNSSubdomain, nameIsPathSegment } from './names.ts';

type Obj = Record<string, unknown>;

const rbacGroup = 'rbac.authorization.k8s.io';

const meta = (o: Obj, namespaced: boolean): FieldError[] => validateObjectMetaCreate(o.metadata, { namespaced, nameValidator: nameIsPathSegment });

/** ValidatePolicyRule. */
function validatePolicyRule(rule: Obj, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (asArray(rule.verbs).length === 0) errs.push(fieldRequired(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = asArray(rule.nonResourceURLs);
  if (urls.length > 0) {
    const value = goLiteral(goStringSliceText(urls));
    if (namespaced) errs.push(fieldInvalid(`${path}.nonResourceURLs`, value, 'namespaced rules cannot apply to non-resource URLs'));
    if (asArray(rule.apiGroups).length || asArray(rule.resources).length || asArray(rule.resourceNames).length) {
      errs.push(fieldInvalid(`${path}.nonResourceURLs`, value, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (asArray(rule.apiGroups).length === 0) errs.push(fieldRequired(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (asArray(rule.resources).length === 0) errs.push(fieldRequired(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

const rulesErrors = (role: Obj, namespaced: boolean): FieldError[] => objectList(role.rules).flatMap((r, i) => validatePolicyRule(r, namespaced, `rules[${i}]`));

export const validateRole = (role: Obj): FieldError[] => [...meta(role, true), ...rulesErrors(role, true)];

export const validateRoleUpdate = (role: Obj, old: Obj): FieldError[] => [...validateRole(role), ...validateObjectMetaUpdate(role.metadata, old.metadata)];

export function validateClusterRole(role: Obj, allowInvalidLabelValueInSelector = false): FieldError[] {
  const errs = [...meta(role, false), ...rulesErrors(role, false)];
  if (role.aggregationRule !== undefined && role.aggregationRule !== null) {
    const selectors = objectList(asObject(role.aggregationRule).clusterRoleSelectors);
    const path = 'aggregationRule.clusterRoleSelectors';
    if (selectors.length === 0) errs.push(fieldRequired(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((s, i) => errs.push(...validateLabelSelector(s, `${path}[${i}]`, { allowInvalidLabelValueInSelector })));
  }
  return errs;
}

export function validateClusterRoleUpdate(role: Obj, old: Obj): FieldError[] {
  const oldSelectors = objectList(asObject(old.aggregationRule).clusterRoleSelectors);
  const allowInvalid = oldSelectors.some((s) => validateLabelSelector(s, '').length > 0);
  return [...validateClusterRole(role, allowInvalid), ...validateObjectMetaUpdate(role.metadata, old.metadata)];
}

/** ValidateRoleBindingSubject. */
function validateSubject(subject: Obj, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = asString(subject.name);
  const apiGroup = asString(subject.apiGroup);
  if (name === '') errs.push(fieldRequired(`${path}.name`));
  switch (asString(subject.kind)) {
    case 'ServiceAccount':
      if (name !== '') errs.push(...nameIsDNSSubdomain(name, false).map((msg) => fieldInvalid(`${path}.name`, name, msg)));
      if (apiGroup !== '') errs.push(fieldNotSupported(`${path}.apiGroup`, apiGroup, ['']));
      if (!namespaced && asString(subject.namespace) === '') errs.push(fieldRequired(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== rbacGroup) errs.push(fieldNotSupported(`${path}.apiGroup`, apiGroup, [rbacGroup]));
      break;
    default:
      errs.push(fieldNotSupported(`${path}.kind`, asString(subject.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBinding(binding: Obj, namespaced: boolean): FieldError[] {
  const errs = meta(binding, namespaced);
  const ref = asObject(binding.roleRef);
  if (asString(ref.apiGroup) !== rbacGroup) errs.push(fieldNotSupported('roleRef.apiGroup', asString(ref.apiGroup), [rbacGroup]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(asString(ref.kind))) errs.push(fieldNotSupported('roleRef.kind', asString(ref.kind), kinds));
  const name = asString(ref.name);
  if (name === '') errs.push(fieldRequired('roleRef.name'));
  else errs.push(...nameIsPathSegment(name, false).map((msg) => fieldInvalid('roleRef.name', name, msg)));
  objectList(binding.subjects).forEach((s, i) => errs.push(...validateSubject(s, namespaced, `subjects[${i}]`)));
  return errs;
}

function validateBindingUpdate(binding: Obj, old: Obj, namespaced: boolean): FieldError[] {
  const errs = [...validateBinding(binding, namespaced), ...validateObjectMetaUpdate(binding.metadata, old.metadata)];
  const ref = asObject(binding.roleRef);
  if (!semanticEqual(ref, asObject(old.roleRef))) {
    const shown = `rbac.RoleRef{APIGroup:${goQuote(asString(ref.apiGroup))}, Kind:${goQuote(asString(ref.kind))}, Name:${goQuote(asString(ref.name))}}`;
    errs.push(fieldInvalid('roleRef', goLiteral(shown), 'cannot change roleRef'));
  }
  return errs;
}

export const validateRoleBinding = (binding: Obj): FieldError[] => validateBinding(binding, true);
export const validateRoleBindingUpdate = (binding: Obj, old: Obj): FieldError[] => validateBindingUpdate(binding, old, true);
export const validateClusterRoleBinding = (binding: Obj): FieldError[] => validateBinding(binding, false);
export const validateClusterRoleBindingUpdate = (binding: Obj, old: Obj): FieldError[] => validateBindingUpdate(binding, old, false);
