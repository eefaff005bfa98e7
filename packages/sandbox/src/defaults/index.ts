// Server-side defaulting of the built-in kinds: the versioned defaulters the decoder runs on every
// create and update, plus what the strategies and built-in admission plugins add to a new object.
// Pure: randomness and allocation come in through the context. The object is changed in place.

import type { ApiServerFeatureGates } from '../feature-gates.ts';
import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { storedVersion } from '../meta/stored-version.ts';
import { defaultRoleBinding, defaultValidatingAdmissionPolicy, defaultValidatingAdmissionPolicyBinding } from './access-kinds.ts';
import { defaultHorizontalPodAutoscaler } from './autoscaling.ts';
import { defaultPod } from './pod.ts';
import { defaultService } from './service.ts';
import {
  defaultCoreEvent,
  defaultEndpointSlice,
  defaultEndpoints,
  defaultEventsAPIEvent,
  defaultNamespace,
  defaultNode,
  defaultSecret,
  defaultWebhookConfiguration,
} from './simple-kinds.ts';
import { defaultDaemonSet, defaultDeployment, defaultJob, defaultReplicaSet, defaultStatefulSet } from './workloads.ts';

export { restoreSystemMetadata } from './metadata.ts';
export { computePodQOS, type QOSClass } from './qos.ts';
export { initialPodStatus } from './pod.ts';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface DefaultsContext {
  /** Create also runs the strategies' PrepareForCreate and the create-time admission plugins. */
  operation: 'create' | 'update';
  /** Five random characters (the `kube-api-access-<suffix>` token volume of a new pod). */
  random: () => string;
  /** A free cluster IP for a new Service; without it, services keep clusterIP unset. */
  allocateClusterIP?: () => string;
  /** A free node port for NodePort and LoadBalancer services. */
  allocateNodePort?: () => number;
  /** The stored object, on update (services keep their allocations, DaemonSets count templates). */
  old?: unknown;
  featureGates?: ApiServerFeatureGates;
}

type Defaulter = (obj: JsonObject, ctx: DefaultsContext, old: JsonObject | undefined) => void;

const defaulters: Record<string, Defaulter> = {
  '/Pod': (o, ctx) => defaultPod(o, ctx),
  '/Namespace': (o, ctx, old) => defaultNamespace(o, ctx.operation, old),
  '/Service': (o, ctx, old) => defaultService(o, ctx.operation, old, ctx),
  '/Secret': (o) => defaultSecret(o),
  '/Endpoints': (o) => defaultEndpoints(o),
  '/Node': (o) => defaultNode(o),
  '/Event': (o) => defaultCoreEvent(o),
  'events.k8s.io/Event': (o) => defaultEventsAPIEvent(o),
  'apps/Deployment': (o) => defaultDeployment(o),
  'apps/ReplicaSet': (o) => defaultReplicaSet(o),
  'apps/StatefulSet': (o, ctx, old) => defaultStatefulSet(o, old, ctx.featureGates),
  'apps/DaemonSet': (o, ctx, old) => defaultDaemonSet(o, ctx.operation, old),
  'batch/Job': (o, ctx) => defaultJob(o, ctx.operation),
  'discovery.k8s.io/EndpointSlice': (o) => defaultEndpointSlice(o),
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': (o) => defaultWebhookConfiguration(o, 'mutating'),
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': (o) => defaultWebhookConfiguration(o, 'validating'),
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': (o) => defaultValidatingAdmissionPolicy(o),
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': (o) => defaultValidatingAdmissionPolicyBinding(o),
  'rbac.authorization.k8s.io/RoleBinding': (o) => defaultRoleBinding(o),
  'rbac.authorization.k8s.io/ClusterRoleBinding': (o) => defaultRoleBinding(o),
  'autoscaling/HorizontalPodAutoscaler': (o) => defaultHorizontalPodAutoscaler(o),
};

/**
 * Applies the real server's defaults for the kind to `obj` (mutated in place). Call it on a create
 * after the name is generated and metadata.uid is set (a Job's generated selector uses both), and
 * before validation. On create it also sets the initial status of Services and Namespaces (a Pod's
 * is set later, by `initialPodStatus`, as the pod strategy's PrepareForCreate sets it after mutating
 * admission). Kinds without defaults are left unchanged.
 */
export function applyDefaults(gvk: GroupVersionKind, obj: unknown, ctx: DefaultsContext): void {
  if (!isJsonObject(obj) || gvk.version !== storedVersion(gvk.group, gvk.kind)) return;
  const defaulter = defaulters[`${gvk.group}/${gvk.kind}`];
  defaulter?.(obj, ctx, isJsonObject(ctx.old) ? ctx.old : undefined);
}
