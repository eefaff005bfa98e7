// The validation entry points the server core calls on every write, keyed by kind, reproducing the
// real server's sequence: on create the kind's own checks, then (only if they pass) the generic
// metadata checks; on update the generic metadata checks first, then the kind's. An update can
// therefore report the same metadata error twice, as kube-apiserver does (its message lists it once).

import type { FieldError } from '../errors.ts';
import { storedVersion } from '../meta/stored-version.ts';
import { asObject, asString } from './json.ts';
import {
  validateConfigMap,
  validateConfigMapUpdate,
  validateEndpoints,
  validateEndpointsUpdate,
  validateNamespace,
  validateNamespaceStatusUpdate,
  validateNamespaceUpdate,
  validateNode,
  validateNodeUpdate,
  validateSecret,
  validateSecretUpdate,
  validateServiceAccount,
  validateServiceAccountUpdate,
} from './core-kinds.ts';
import { validateConditions } from './conditions.ts';
import { validateEndpointSlice, validateEndpointSliceUpdate } from './endpointslice.ts';
import { validateEventCreate, validateEventUpdate } from './events.ts';
import {
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicyBindingUpdate,
  validateValidatingAdmissionPolicyUpdate,
} from './admission-policies.ts';
import { validateHorizontalPodAutoscaler, validateHorizontalPodAutoscalerStatusUpdate, validateHorizontalPodAutoscalerUpdate } from './autoscaling.ts';
import { validateJob, validateJobStatusUpdate, validateJobUpdate } from './job.ts';
import { validatePodDisruptionBudget, validatePodDisruptionBudgetStatusUpdate, validatePodDisruptionBudgetUpdate } from './poddisruptionbudget.ts';
import {
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateClusterRoleUpdate,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
  validateRoleUpdate,
} from './rbac.ts';
import { validateLease, validateLeaseUpdate } from './lease.ts';
import { validateObjectMetaCreate, validateObjectMetaUpdate } from './meta.ts';
import { nameIsDNSSubdomain, nameIsPathSegment } from './names.ts';
import { validatePodCreate, validatePodEphemeralContainersUpdate, validatePodStatusUpdate, validatePodUpdate } from './pod.ts';
import { validateService, validateServiceStatusUpdate, validateServiceUpdate } from './service.ts';
import { validateWebhookConfiguration, validateWebhookConfigurationUpdate } from './webhooks.ts';
import {
  validateControllerRevision,
  validateControllerRevisionUpdate,
  validateWorkload,
  validateWorkloadStatusUpdate,
  validateWorkloadUpdate,
  type WorkloadKind,
} from './workloads.ts';

export { validateObjectMetaCreate, validateObjectMetaUpdate, type MetaCreateOptions } from './meta.ts';
export {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  type NameValidator,
} from './names.ts';
export { goFieldErrorString, isGoLiteral, type GoLiteral } from './golang.ts';
export { POD_UPDATE_FORBIDDEN_PREFIX } from './pod.ts';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

type Obj = Record<string, unknown>;

interface KindRules {
  namespaced: boolean;
  create(obj: Obj): FieldError[];
  update(obj: Obj, old: Obj): FieldError[];
  /** The `/status` strategy's checks; kinds without one only get the metadata update checks. */
  statusUpdate?(obj: Obj, old: Obj): FieldError[];
  /** Pods' `/ephemeralcontainers` checks. */
  ephemeralContainersUpdate?(obj: Obj, old: Obj): FieldError[];
}

const workload = (kind: WorkloadKind): KindRules => ({
  namespaced: true,
  create: (o) => validateWorkload(kind, o),
  update: (o, old) => validateWorkloadUpdate(kind, o, old),
  statusUpdate: (o, old) => validateWorkloadStatusUpdate(kind, o, old),
});

const webhookConfiguration = (kind: 'mutating' | 'validating'): KindRules => ({
  namespaced: false,
  create: (o) => validateWebhookConfiguration(o, kind),
  update: (o, old) => validateWebhookConfigurationUpdate(o, old, kind),
});

const kinds: Record<string, KindRules> = {
  '/Namespace': { namespaced: false, create: validateNamespace, update: validateNamespaceUpdate, statusUpdate: validateNamespaceStatusUpdate },
  '/Pod': {
    namespaced: true,
    create: validatePodCreate,
    update: validatePodUpdate,
    statusUpdate: validatePodStatusUpdate,
    ephemeralContainersUpdate: validatePodEphemeralContainersUpdate,
  },
  '/Node': { namespaced: false, create: validateNode, update: validateNodeUpdate, statusUpdate: validateNodeUpdate },
  '/Service': { namespaced: true, create: (o) => validateService(o), update: validateServiceUpdate, statusUpdate: validateServiceStatusUpdate },
  '/Endpoints': { namespaced: true, create: validateEndpoints, update: validateEndpointsUpdate },
  '/ConfigMap': { namespaced: true, create: validateConfigMap, update: validateConfigMapUpdate },
  '/Secret': { namespaced: true, create: validateSecret, update: validateSecretUpdate },
  '/ServiceAccount': { namespaced: true, create: validateServiceAccount, update: validateServiceAccountUpdate },
  '/Event': { namespaced: true, create: (o) => validateEventCreate(o, false), update: (o, old) => validateEventUpdate(o, old, false) },
  'events.k8s.io/Event': { namespaced: true, create: (o) => validateEventCreate(o, true), update: (o, old) => validateEventUpdate(o, old, true) },
  'apps/Deployment': workload('Deployment'),
  'apps/ReplicaSet': workload('ReplicaSet'),
  'apps/StatefulSet': workload('StatefulSet'),
  'apps/DaemonSet': workload('DaemonSet'),
  'apps/ControllerRevision': { namespaced: true, create: validateControllerRevision, update: validateControllerRevisionUpdate },
  'batch/Job': { namespaced: true, create: validateJob, update: validateJobUpdate, statusUpdate: validateJobStatusUpdate },
  'coordination.k8s.io/Lease': { namespaced: true, create: validateLease, update: validateLeaseUpdate },
  'discovery.k8s.io/EndpointSlice': { namespaced: true, create: validateEndpointSlice, update: validateEndpointSliceUpdate },
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': webhookConfiguration('mutating'),
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': webhookConfiguration('validating'),
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': {
    namespaced: false,
    create: validateValidatingAdmissionPolicy,
    update: validateValidatingAdmissionPolicyUpdate,
    statusUpdate: (o, old) => [...validateObjectMetaUpdate(o.metadata, old.metadata), ...validateConditions(asObject(o.status).conditions, 'status.conditions')],
  },
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': {
    namespaced: false,
    create: validateValidatingAdmissionPolicyBinding,
    update: validateValidatingAdmissionPolicyBindingUpdate,
  },
  'rbac.authorization.k8s.io/Role': { namespaced: true, create: validateRole, update: validateRoleUpdate },
  'rbac.authorization.k8s.io/ClusterRole': { namespaced: false, create: (o) => validateClusterRole(o), update: validateClusterRoleUpdate },
  'rbac.authorization.k8s.io/RoleBinding': { namespaced: true, create: validateRoleBinding, update: validateRoleBindingUpdate },
  'rbac.authorization.k8s.io/ClusterRoleBinding': { namespaced: false, create: validateClusterRoleBinding, update: validateClusterRoleBindingUpdate },
  'policy/PodDisruptionBudget': {
    namespaced: true,
    create: validatePodDisruptionBudget,
    update: validatePodDisruptionBudgetUpdate,
    statusUpdate: validatePodDisruptionBudgetStatusUpdate,
  },
  'autoscaling/HorizontalPodAutoscaler': {
    namespaced: true,
    create: validateHorizontalPodAutoscaler,
    update: validateHorizontalPodAutoscalerUpdate,
    statusUpdate: validateHorizontalPodAutoscalerStatusUpdate,
  },
};

/** The rules of a kind, for objects in its stored version. */
const rulesFor = (gvk: GroupVersionKind): KindRules | undefined => (gvk.version === storedVersion(gvk.group, gvk.kind) ? kinds[`${gvk.group}/${gvk.kind}`] : undefined);

/** Whether the sandbox validates this kind with its own rules (otherwise only metadata is checked). */
export const hasKindValidation = (gvk: GroupVersionKind): boolean => rulesFor(gvk) !== undefined;

export interface ValidationScope {
  /** For kinds without rules here (custom resources): whether they live in a namespace. */
  namespaced?: boolean;
}

function namespacedOf(gvk: GroupVersionKind, obj: Obj, scope: ValidationScope): boolean {
  return rulesFor(gvk)?.namespaced ?? scope.namespaced ?? asString(asObject(obj.metadata).namespace) !== '';
}

/** The checks every update gets before the kind's own (rest.BeforeUpdate's validateCommonFields). */
function commonUpdateErrors(obj: Obj, old: Obj, namespaced: boolean): FieldError[] {
  return [
    ...validateObjectMetaCreate(obj.metadata, { namespaced, nameValidator: nameIsPathSegment }),
    ...validateObjectMetaUpdate(obj.metadata, old.metadata),
  ];
}

/**
 * Validation of a create, after name generation, defaulting and admission. Kinds without rules
 * get the generic metadata checks of a custom resource (DNS-1123 subdomain names).
 */
export function validateCreate(gvk: GroupVersionKind, object: unknown, scope: ValidationScope = {}): FieldError[] {
  const obj = asObject(object);
  const rules = rulesFor(gvk);
  const namespaced = namespacedOf(gvk, obj, scope);
  if (!rules) return validateObjectMetaCreate(obj.metadata, { namespaced, nameValidator: nameIsDNSSubdomain });
  const errs = rules.create(obj);
  return errs.length > 0 ? errs : validateObjectMetaCreate(obj.metadata, { namespaced, nameValidator: nameIsPathSegment });
}

/**
 * Validation of an update through the main resource. The caller has already restored what the real
 * server restores before validating (uid when omitted, creationTimestamp, deletionTimestamp,
 * resourceVersion for unconditional updates).
 */
export function validateUpdate(gvk: GroupVersionKind, object: unknown, oldObject: unknown, scope: ValidationScope = {}): FieldError[] {
  const obj = asObject(object);
  const old = asObject(oldObject);
  const rules = rulesFor(gvk);
  const specific = rules ? rules.update(obj, old) : validateObjectMetaUpdate(obj.metadata, old.metadata);
  return [...commonUpdateErrors(obj, old, namespacedOf(gvk, obj, scope)), ...specific];
}

/** Validation of a write to the `/status` subresource. */
export function validateStatusUpdate(gvk: GroupVersionKind, object: unknown, oldObject: unknown, scope: ValidationScope = {}): FieldError[] {
  const obj = asObject(object);
  const old = asObject(oldObject);
  const statusRules = rulesFor(gvk)?.statusUpdate;
  const specific = statusRules ? statusRules(obj, old) : validateObjectMetaUpdate(obj.metadata, old.metadata);
  return [...commonUpdateErrors(obj, old, namespacedOf(gvk, obj, scope)), ...specific];
}

/** Validation of a write to pods' `/ephemeralcontainers` subresource. */
export function validateEphemeralContainersUpdate(gvk: GroupVersionKind, object: unknown, oldObject: unknown): FieldError[] {
  const obj = asObject(object);
  const old = asObject(oldObject);
  const rules = rulesFor(gvk);
  const specific = rules?.ephemeralContainersUpdate ? rules.ephemeralContainersUpdate(obj, old) : validateObjectMetaUpdate(obj.metadata, old.metadata);
  return [...commonUpdateErrors(obj, old, rules?.namespaced ?? true), ...specific];
}
