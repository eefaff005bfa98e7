// The API resources podops talks to, and their REST paths.

export interface ResourceType {
  group: string;
  version: string;
  /** Plural resource name, as in the URL. */
  resource: string;
  kind: string;
  namespaced: boolean;
}

const core = (resource: string, kind: string, namespaced = true): ResourceType => ({ group: '', version: 'v1', resource, kind, namespaced });

export const PODS = core('pods', 'Pod');
export const SERVICES = core('services', 'Service');
export const SECRETS = core('secrets', 'Secret');
export const EVENTS = core('events', 'Event');
export const SERVICE_ACCOUNTS = core('serviceaccounts', 'ServiceAccount');
export const NAMESPACES = core('namespaces', 'Namespace', false);
export const NODES = core('nodes', 'Node', false);
export const LEASES: ResourceType = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };
const apps = (resource: string, kind: string): ResourceType => ({ group: 'apps', version: 'v1', resource, kind, namespaced: true });
export const DEPLOYMENTS = apps('deployments', 'Deployment');
export const STATEFULSETS = apps('statefulsets', 'StatefulSet');
export const DAEMONSETS = apps('daemonsets', 'DaemonSet');
export const REPLICASETS = apps('replicasets', 'ReplicaSet');
export const CONTROLLER_REVISIONS = apps('controllerrevisions', 'ControllerRevision');
export const JOBS: ResourceType = { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true };
export const PODDISRUPTIONBUDGETS: ResourceType = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true };
export const MUTATING_WEBHOOK_CONFIGURATIONS: ResourceType = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', namespaced: false };
export const VALIDATING_WEBHOOK_CONFIGURATIONS: ResourceType = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespaced: false };
export const SUBJECT_ACCESS_REVIEWS: ResourceType = { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false };
export const CUSTOM_RESOURCE_DEFINITIONS: ResourceType = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false };

export const apiVersionOf = (type: ResourceType): string => (type.group ? `${type.group}/${type.version}` : type.version);

/** `/api/v1/namespaces/ns/pods/name/status`, `/apis/apps/v1/deployments`, ... */
export function resourcePath(type: ResourceType, namespace?: string, name?: string, subresource?: string): string {
  let path = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  if (type.namespaced && namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${type.resource}`;
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource) path += `/${subresource}`;
  return path;
}

export const PODTRANSITIONRULES: ResourceType = { group: 'apps.kusionstack.io', version: 'v1alpha1', resource: 'podtransitionrules', kind: 'PodTransitionRule', namespaced: true };
export const ROLLOUTLIFECYCLES: ResourceType = { group: 'apps.kusionstack.io', version: 'v1alpha1', resource: 'rolloutlifecycles', kind: 'RolloutLifecycle', namespaced: true };
