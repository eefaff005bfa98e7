// Merge metadata of the built-in kinds the sandbox serves, transcribed from the Kubernetes v1.32 Go
// types: `patchStrategy`/`patchMergeKey` struct tags (strategic merge patch) and the
// `+listType`/`+listMapKey`/`+structType`/`+mapType` markers (server-side apply). Fields without
// metadata are left out (see schema.ts for what that means).

import {
  atomicList,
  atomicMap,
  atomicStruct,
  keyedList,
  mapOf,
  mergeList,
  mergeSet,
  plainStruct,
  present,
  set,
  struct,
  type PatchSchema,
  type StructSchema,
} from './schema.ts';

/** ObjectMeta, shared by every kind (custom resources included). */
export const objectMetaSchema = struct({
  labels: mapOf(),
  annotations: mapOf(),
  finalizers: mergeSet,
  ownerReferences: mergeList('uid', atomicStruct()),
  managedFields: atomicList,
});

/** `metav1.LabelSelector` is `+structType=atomic`. */
const labelSelector = atomicStruct();
/** `corev1.ObjectReference` and `LocalObjectReference` are `+structType=atomic`. */
const objectReference = atomicStruct();

const conditionsByType = mergeList('type', plainStruct);

const containerPorts = mergeList('containerPort', plainStruct, {
  listMapKeys: ['containerPort', 'protocol'],
  keyDefaults: { protocol: 'TCP' },
});

/** Container and EphemeralContainer (EphemeralContainerCommon) carry the same tags. */
const container = struct({
  ports: containerPorts,
  env: mergeList('name', plainStruct),
  volumeMounts: mergeList('mountPath', plainStruct),
  volumeDevices: mergeList('devicePath', plainStruct),
  resources: present(struct({ limits: mapOf(), requests: mapOf(), claims: keyedList(['name']) })),
});

const podSpec = struct({
  volumes: mergeList('name', plainStruct, { retainKeys: true }),
  initContainers: mergeList('name', container),
  containers: present(mergeList('name', container)),
  ephemeralContainers: mergeList('name', container),
  imagePullSecrets: mergeList('name', objectReference),
  hostAliases: mergeList('ip', plainStruct),
  topologySpreadConstraints: mergeList('topologyKey', plainStruct, { listMapKeys: ['topologyKey', 'whenUnsatisfiable'] }),
  schedulingGates: mergeList('name', plainStruct),
  resourceClaims: mergeList('name', plainStruct, { retainKeys: true }),
  nodeSelector: atomicMap,
  overhead: mapOf(),
});

const podStatus = struct({
  conditions: conditionsByType,
  podIPs: mergeList('ip', plainStruct),
  hostIPs: mergeList('ip', plainStruct, { listType: 'atomic' }),
  resourceClaimStatuses: mergeList('name', plainStruct, { retainKeys: true }),
});

const podTemplateSpec = present(struct({ metadata: present(objectMetaSchema), spec: present(podSpec) }));

const withMeta = (fields: StructSchema['fields'] = {}): PatchSchema => struct({ metadata: objectMetaSchema, ...fields });

const workloadStatus = present(struct({ conditions: conditionsByType }));

/** `spec` and `status` are non-pointer structs in every kind that has them. */
const spec = (fields: StructSchema['fields'] = {}): StructSchema => present(struct(fields));
const status = (fields: StructSchema['fields'] = {}): StructSchema => present(struct(fields));

const webhook = struct({
  namespaceSelector: labelSelector,
  objectSelector: labelSelector,
  matchConditions: mergeList('name', plainStruct),
});

/** MatchResources of admission policies and their bindings: selectors atomic, rule lists atomic (no metadata). */
const matchResources = struct({ namespaceSelector: labelSelector, objectSelector: labelSelector });

const workloadSpec = (fields: StructSchema['fields'] = {}): StructSchema => spec({ selector: labelSelector, template: podTemplateSpec, ...fields });

const schemas: ReadonlyMap<string, PatchSchema> = new Map([
  ['v1/Namespace', withMeta({ spec: spec({ finalizers: atomicList }), status: workloadStatus })],
  ['v1/Pod', withMeta({ spec: present(podSpec), status: present(podStatus) })],
  [
    'v1/Node',
    withMeta({
      spec: spec({ podCIDRs: mergeSet }),
      status: status({
        conditions: conditionsByType,
        addresses: mergeList('type', plainStruct, { listType: 'atomic' }),
        capacity: mapOf(),
        allocatable: mapOf(),
      }),
    }),
  ],
  [
    'v1/Service',
    withMeta({
      spec: spec({
        ports: mergeList('port', plainStruct, { listMapKeys: ['port', 'protocol'], keyDefaults: { protocol: 'TCP' } }),
        selector: atomicMap,
      }),
      status: status({ conditions: conditionsByType }),
    }),
  ],
  ['v1/Endpoints', withMeta()],
  ['v1/ConfigMap', withMeta({ data: mapOf(), binaryData: mapOf() })],
  ['v1/Secret', withMeta({ data: mapOf(), stringData: mapOf() })],
  ['v1/ServiceAccount', withMeta({ secrets: mergeList('name', objectReference) })],
  ['v1/Event', withMeta({ involvedObject: present(objectReference), related: objectReference })],
  ['apps/v1/Deployment', withMeta({ spec: workloadSpec({ strategy: present(struct({}, { retainKeys: true })) }), status: workloadStatus })],
  ['apps/v1/ReplicaSet', withMeta({ spec: workloadSpec(), status: workloadStatus })],
  ['apps/v1/StatefulSet', withMeta({ spec: workloadSpec({ updateStrategy: present(plainStruct) }), status: workloadStatus })],
  ['apps/v1/DaemonSet', withMeta({ spec: workloadSpec({ updateStrategy: present(plainStruct) }), status: workloadStatus })],
  ['apps/v1/ControllerRevision', withMeta()],
  ['autoscaling/v1/Scale', withMeta({ spec: spec(), status: status() })],
  [
    'batch/v1/Job',
    withMeta({
      spec: workloadSpec(),
      status: status({
        conditions: mergeList('type', plainStruct, { listType: 'atomic' }),
        uncountedTerminatedPods: struct({ succeeded: set, failed: set }),
      }),
    }),
  ],
  ['coordination.k8s.io/v1/Lease', withMeta({ spec: spec() })],
  ['events.k8s.io/v1/Event', withMeta({ regarding: present(objectReference), related: objectReference })],
  ['discovery.k8s.io/v1/EndpointSlice', withMeta()],
  ['admissionregistration.k8s.io/v1/MutatingWebhookConfiguration', withMeta({ webhooks: mergeList('name', webhook) })],
  ['admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration', withMeta({ webhooks: mergeList('name', webhook) })],
  ['apiextensions.k8s.io/v1/CustomResourceDefinition', withMeta({ spec: spec(), status: status({ conditions: keyedList(['type']) }) })],
  ['admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy', withMeta({ spec: spec({ matchConstraints: matchResources, matchConditions: mergeList('name', plainStruct) }), status: status({ conditions: keyedList(['type']) }) })],
  ['admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding', withMeta({ spec: spec({ matchResources, validationActions: set }) })],
  ['rbac.authorization.k8s.io/v1/Role', withMeta()],
  ['rbac.authorization.k8s.io/v1/ClusterRole', withMeta({ aggregationRule: struct({}) })],
  ['rbac.authorization.k8s.io/v1/RoleBinding', withMeta({ roleRef: present(plainStruct) })],
  ['rbac.authorization.k8s.io/v1/ClusterRoleBinding', withMeta({ roleRef: present(plainStruct) })],
  [
    'policy/v1/PodDisruptionBudget',
    withMeta({ spec: spec({ selector: { ...atomicStruct(), patchStrategy: 'replace' } }), status: status({ disruptedPods: mapOf(), conditions: conditionsByType }) }),
  ],
  ['autoscaling/v2/HorizontalPodAutoscaler', withMeta({ spec: spec({ scaleTargetRef: present(plainStruct) }), status: status({ conditions: conditionsByType }) })],
  ['autoscaling/v1/HorizontalPodAutoscaler', withMeta({ spec: spec({ scaleTargetRef: present(plainStruct) }), status: status() })],
  ['authorization.k8s.io/v1/SubjectAccessReview', withMeta({ spec: spec(), status: status() })],
  ['authorization.k8s.io/v1/LocalSubjectAccessReview', withMeta({ spec: spec(), status: status() })],
  ['authorization.k8s.io/v1/SelfSubjectAccessReview', withMeta({ spec: spec(), status: status() })],
  ['authorization.k8s.io/v1/SelfSubjectRulesReview', withMeta({ spec: spec(), status: status() })],
]);


/**
 * What server-side apply and managedFields use for a kind without a schema (a custom resource whose
 * CRD schema was not converted): ObjectMeta's metadata, every other object a struct, lists atomic.
 */
export const schemaWithMetadataOnly: PatchSchema = withMeta();

/**
 * The merge metadata of a built-in kind, or `undefined` for custom resources and unknown kinds
 * (which do not accept strategic merge patches: see `strategicMergePatchUnsupportedStatus`).
 */
export function strategicSchemaFor(apiVersion: string, kind: string): PatchSchema | undefined {
  return schemas.get(`${apiVersion}/${kind}`);
}
