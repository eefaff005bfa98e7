// Defaults of the access-control kinds: RBAC bindings (their roleRef's and User and Group subjects'
// apiGroup), admission policies and their bindings (failure and match policies, selectors, rule
// scopes, a param's not-found action).

import { type JsonObject } from '../meta/object.ts';
import { child, childList, defaultField, defaultString } from './fields.ts';

const rbacGroup = 'rbac.authorization.k8s.io';

/** SetDefaults_RoleBinding / _ClusterRoleBinding and SetDefaults_Subject. */
export function defaultRoleBinding(obj: JsonObject): void {
  defaultString(child(obj, 'roleRef'), 'apiGroup', rbacGroup);
  for (const subject of childList(obj, 'subjects')) {
    if (subject.kind === 'User' || subject.kind === 'Group') defaultString(subject, 'apiGroup', rbacGroup);
  }
}

/** SetDefaults_MatchResources and the rules' scope. */
function defaultMatchResources(match: JsonObject): void {
  defaultField(match, 'matchPolicy', 'Equivalent');
  defaultField(match, 'namespaceSelector', {});
  defaultField(match, 'objectSelector', {});
  for (const key of ['resourceRules', 'excludeResourceRules']) for (const rule of childList(match, key)) defaultField(rule, 'scope', '*');
}

export function defaultValidatingAdmissionPolicy(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  defaultField(spec, 'failurePolicy', 'Fail');
  if (spec.matchConstraints !== undefined && spec.matchConstraints !== null) defaultMatchResources(child(spec, 'matchConstraints'));
}

export function defaultValidatingAdmissionPolicyBinding(obj: JsonObject): void {
  const spec = child(obj, 'spec');
  if (spec.paramRef !== undefined && spec.paramRef !== null) defaultField(child(spec, 'paramRef'), 'parameterNotFoundAction', 'Deny');
  if (spec.matchResources !== undefined && spec.matchResources !== null) defaultMatchResources(child(spec, 'matchResources'));
}
