// kubectl's column sets for the access-control kinds: RBAC bindings (Roles and ClusterRoles have no
// printer of their own: the default Name, Created At), PodDisruptionBudgets and admission policies.

import { isJsonObject, type KubeObject } from '../meta/object.ts';
import type { TablePrinter } from '../registry/types.ts';
import { ageColumn, ageOf, column, formatLabelSelector, int, nameColumn, objects, str } from './columns.ts';

const metaName = (o: KubeObject): string => o.metadata.name ?? '';
const spec = (o: KubeObject): Record<string, unknown> => (isJsonObject(o.spec) ? o.spec : {});

/** rbac.SubjectsStrings: users, groups and service accounts (`namespace:name`). */
function subjects(o: KubeObject): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const s of objects(o.subjects)) {
    const name = str(s.name);
    if (s.kind === 'User') users.push(name);
    else if (s.kind === 'Group') groups.push(name);
    else if (s.kind === 'ServiceAccount') serviceAccounts.push(str(s.namespace) ? `${str(s.namespace)}:${name}` : name);
  }
  return [users.join(', '), groups.join(', '), serviceAccounts.join(', ')];
}

const bindingPrinter = (of: string): TablePrinter => ({
  columns: [
    nameColumn,
    column('Role', 'string', 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.'),
    ageColumn,
    column('Users', 'string', `Users in the ${of}`, 1),
    column('Groups', 'string', `Groups in the ${of}`, 1),
    column('ServiceAccounts', 'string', `ServiceAccounts in the ${of}`, 1),
  ],
  cells: (o, now) => {
    const ref = isJsonObject(o.roleRef) ? o.roleRef : {};
    return [metaName(o), `${str(ref.kind)}/${str(ref.name)}`, ageOf(o, now), ...subjects(o)];
  },
});

export const roleBindingPrinter = bindingPrinter('roleBinding');
export const clusterRoleBindingPrinter = bindingPrinter('clusterRoleBinding');

/** An IntOrString as its String(): the number, or the text. */
const intOrString = (value: unknown): string => (value === undefined || value === null ? 'N/A' : String(value));

export const podDisruptionBudgetPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    ageColumn,
  ],
  cells: (o, now) => {
    const status = isJsonObject(o.status) ? o.status : {};
    return [metaName(o), intOrString(spec(o).minAvailable), intOrString(spec(o).maxUnavailable), int(status.disruptionsAllowed), ageOf(o, now)];
  },
};

export const validatingAdmissionPolicyPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'),
    column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
    ageColumn,
  ],
  cells: (o, now) => {
    const paramKind = spec(o).paramKind;
    const shown = isJsonObject(paramKind) ? `${str(paramKind.apiVersion)}/${str(paramKind.kind)}` : '<unset>';
    return [metaName(o), objects(spec(o).validations).length, shown, ageOf(o, now)];
  },
};

export const validatingAdmissionPolicyBindingPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
    column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
    ageColumn,
  ],
  cells: (o, now) => {
    const ref = spec(o).paramRef;
    let shown = '<unset>';
    if (isJsonObject(ref)) {
      if (str(ref.name)) shown = str(ref.namespace) ? `${str(ref.namespace)}/${str(ref.name)}` : `*/${str(ref.name)}`;
      else if (isJsonObject(ref.selector)) shown = formatLabelSelector(ref.selector);
    }
    return [metaName(o), str(spec(o).policyName), shown, ageOf(o, now)];
  },
};
