// OpenAPI schemas of the built-in kinds, transcribed from the v1.32 API types (fields in the order the Go
// types declare them, which is the order the server encodes them in): the fields that
// users write (metadata, pod specs, workload specs, services, config) are listed in full so unknown
// fields are caught as the real decoder catches them; controller-written statuses and rarely
// written sub-structures are left open. Schema names follow the real documents
// (`io.k8s.api.core.v1.Pod`), so `kubectl explain` finds them.

import {
  bool,
  bytes,
  closed,
  int,
  int64,
  intOrString,
  list,
  mapOf,
  open,
  quantity,
  refTo,
  str,
  stringMap,
  time,
  type Schema,
} from './schema-builders.ts';

const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const core = 'io.k8s.api.core.v1.';
const apps = 'io.k8s.api.apps.v1.';

export const objectMetaName = `${meta}ObjectMeta`;

const typeMeta = {
  apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
  kind: str('Kind is a string value representing the REST resource this object represents.'),
};

/** A top-level kind: type meta, metadata, and its own fields. */
function kind(description: string, fields: Record<string, Schema>, gvk: { group: string; version: string; kind: string }): Schema {
  return {
    ...closed({ ...typeMeta, metadata: refTo(objectMetaName, 'Standard object metadata.'), ...fields }, description),
    'x-kubernetes-group-version-kind': [gvk],
  };
}

const resourceList = (description: string): Schema => mapOf(quantity(), description);

const shared: Record<string, Schema> = {
  [objectMetaName]: closed(
    {
      name: str('Name must be unique within a namespace.'),
      generateName: str('A prefix the server uses to generate a unique name when name is not given.'),
      namespace: str('The namespace the object belongs to.'),
      selfLink: str('Deprecated and not set by the server.'),
      uid: str('The unique identifier of this object, set by the server.'),
      resourceVersion: str('The version of this object, for optimistic concurrency and watches.'),
      generation: int64('A sequence number of the desired state, bumped on spec changes.'),
      creationTimestamp: time('When the object was created (set by the server).'),
      deletionTimestamp: time('When the object will be deleted (set by the server on DELETE).'),
      deletionGracePeriodSeconds: int64('Seconds allowed for graceful termination before the object is removed.'),
      labels: stringMap('Key/value pairs for organizing and selecting objects.'),
      annotations: stringMap('Key/value pairs for arbitrary non-identifying metadata.'),
      ownerReferences: list(refTo(`${meta}OwnerReference`), 'The objects this object depends on (garbage collection).'),
      finalizers: list(str(), 'Keys that must be removed before the object is deleted.'),
      managedFields: list(open('Field ownership of one manager.'), 'Which manager owns which fields (server-side apply).'),
    },
    'Metadata that all persisted resources must have.',
  ),
  [`${meta}OwnerReference`]: closed(
    {
      apiVersion: str('API version of the referent.'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      uid: str('UID of the referent.'),
      controller: bool('If true, this reference points to the managing controller.'),
      blockOwnerDeletion: bool('If true, the owner cannot be deleted in foreground before this object is gone.'),
    },
    'Identifies an owning object.',
    ['apiVersion', 'kind', 'name', 'uid'],
  ),
  [`${meta}LabelSelector`]: closed(
    {
      matchLabels: stringMap('Labels that must all match.'),
      matchExpressions: list(
        closed({ key: str(), operator: str('In, NotIn, Exists or DoesNotExist.'), values: list(str()) }, undefined, ['key', 'operator']),
        'Requirements that must all match.',
      ),
    },
    'A label query over a set of objects.',
  ),
  [`${core}ObjectReference`]: closed(
    {
      kind: str(),
      namespace: str(),
      name: str(),
      uid: str(),
      apiVersion: str(),
      resourceVersion: str(),
      fieldPath: str(),
    },
    'A reference to an object.',
  ),
  [`${core}PodTemplateSpec`]: closed(
    { metadata: refTo(objectMetaName, 'Metadata of the pods created from this template.'), spec: refTo(`${core}PodSpec`, 'Specification of the pods.') },
    'The pods a workload creates.',
  ),
  [`${core}PodSpec`]: closed(
    {
      volumes: list(open('A named volume.'), 'Volumes that containers can mount.'),
      initContainers: list(refTo(`${core}Container`), 'Containers run in order before the app containers start.'),
      containers: list(refTo(`${core}Container`), 'The containers of the pod. There must be at least one.'),
      ephemeralContainers: list(open('An ephemeral debugging container.'), 'Ephemeral containers (debugging).'),
      restartPolicy: str('Always, OnFailure or Never. Default Always.'),
      terminationGracePeriodSeconds: int64('Seconds the pod needs to terminate gracefully. Default 30.'),
      activeDeadlineSeconds: int64('Seconds the pod may be active before the system fails it.'),
      dnsPolicy: str('How DNS is configured for the pod.'),
      nodeSelector: stringMap('Labels a node must have for the pod to be scheduled there.'),
      serviceAccountName: str('The service account the pod runs as.'),
      serviceAccount: str('Deprecated alias of serviceAccountName.'),
      automountServiceAccountToken: bool(),
      nodeName: str('The node the pod is bound to (set by the scheduler).'),
      hostNetwork: bool(),
      hostPID: bool(),
      hostIPC: bool(),
      shareProcessNamespace: bool(),
      securityContext: open('Pod-level security attributes.'),
      imagePullSecrets: list(closed({ name: str() }), 'Secrets for pulling the images.'),
      hostname: str(),
      subdomain: str(),
      affinity: open('Scheduling constraints.'),
      schedulerName: str(),
      tolerations: list(refTo(`${core}Toleration`), 'Taints the pod tolerates.'),
      hostAliases: list(closed({ ip: str(), hostnames: list(str()) })),
      priorityClassName: str(),
      priority: int(),
      dnsConfig: open('DNS parameters.'),
      readinessGates: list(closed({ conditionType: str('A pod condition type that must be True for the pod to be ready.') }, undefined, ['conditionType']), 'Extra conditions for pod readiness.'),
      runtimeClassName: str(),
      enableServiceLinks: bool(),
      preemptionPolicy: str(),
      overhead: resourceList('Resource overhead of running the pod.'),
      topologySpreadConstraints: list(open('A topology spread constraint.')),
      setHostnameAsFQDN: bool(),
      os: closed({ name: str() }),
      hostUsers: bool(),
      schedulingGates: list(closed({ name: str() })),
      resourceClaims: list(open('A resource claim.')),
      resources: refTo(`${core}ResourceRequirements`, 'Pod-level resources.'),
    },
    'The specification of a pod.',
    ['containers'],
  ),
  [`${core}Container`]: closed(
    {
      name: str('Name of the container, unique in the pod.'),
      image: str('Container image name.'),
      command: list(str(), 'Entrypoint array.'),
      args: list(str(), 'Arguments to the entrypoint.'),
      workingDir: str(),
      ports: list(
        closed({ name: str(), hostPort: int(), containerPort: int('Port number on the pod IP.'), protocol: str('TCP, UDP or SCTP.'), hostIP: str() }, undefined, ['containerPort']),
        'Ports to expose from the container.',
      ),
      envFrom: list(open('A source of environment variables.')),
      env: list(closed({ name: str(), value: str(), valueFrom: open('A source for the value.') }, undefined, ['name']), 'Environment variables.'),
      resources: refTo(`${core}ResourceRequirements`, 'Compute resources required by this container.'),
      resizePolicy: list(closed({ resourceName: str(), restartPolicy: str() })),
      restartPolicy: str('Always for a sidecar init container.'),
      volumeMounts: list(
        closed({
          name: str(),
          readOnly: bool(),
          recursiveReadOnly: str(),
          mountPath: str(),
          subPath: str(),
          mountPropagation: str(),
          subPathExpr: str(),
        }),
        'Volumes to mount into the container filesystem.',
      ),
      volumeDevices: list(closed({ name: str(), devicePath: str() })),
      livenessProbe: open('Periodic probe of container liveness.'),
      readinessProbe: open('Periodic probe of container service readiness.'),
      startupProbe: open('Probe that the container has started.'),
      lifecycle: open('Actions on container lifecycle events.'),
      terminationMessagePath: str(),
      terminationMessagePolicy: str(),
      imagePullPolicy: str('Always, Never or IfNotPresent.'),
      securityContext: open('Container security attributes.'),
      stdin: bool(),
      stdinOnce: bool(),
      tty: bool(),
    },
    'A single application container of a pod.',
    ['name'],
  ),
  [`${core}ResourceRequirements`]: closed({
    limits: resourceList('Maximum compute resources allowed.'),
    requests: resourceList('Minimum compute resources required.'),
    claims: list(closed({ name: str(), request: str() })),
  }),
  [`${core}Toleration`]: closed({
    key: str(),
    operator: str('Exists or Equal.'),
    value: str(),
    effect: str('NoSchedule, PreferNoSchedule or NoExecute.'),
    tolerationSeconds: int64(),
  }),
};

const podTemplate = refTo(`${core}PodTemplateSpec`, 'The pods to create.');
const selector = refTo(`${meta}LabelSelector`, 'Label query over the pods this object manages.');
const rollingUpdate = closed({ maxUnavailable: intOrString(), maxSurge: intOrString() });

const rbacRule = closed({
  verbs: list(str(), 'The verbs the rule allows.'),
  apiGroups: list(str(), 'The API groups of the resources.'),
  resources: list(str(), 'The resources the rule applies to.'),
  resourceNames: list(str(), 'The names the rule is restricted to.'),
  nonResourceURLs: list(str(), 'Non-resource URLs the rule applies to (ClusterRoles only).'),
});
const rbacSubject = closed({ kind: str(), apiGroup: str(), name: str(), namespace: str() }, 'A user, group or service account.');
const rbacRoleRef = closed({ apiGroup: str(), kind: str(), name: str() }, 'The role bound.');
const rbac = (kindName: string, description: string, fields: Record<string, Schema>): [string, Schema] => [
  `io.k8s.api.rbac.v1.${kindName}`,
  kind(description, fields, { group: 'rbac.authorization.k8s.io', version: 'v1', kind: kindName }),
];
const rbacSchemas: Record<string, Schema> = Object.fromEntries([
  rbac('Role', 'Namespaced permissions.', { rules: list(rbacRule) }),
  rbac('ClusterRole', 'Cluster-wide permissions.', {
    rules: list(rbacRule),
    aggregationRule: closed({ clusterRoleSelectors: list(refTo(`${meta}LabelSelector`)) }, 'ClusterRoles whose rules are aggregated into this one.'),
  }),
  rbac('RoleBinding', 'Grants a role to subjects in a namespace.', { subjects: list(rbacSubject), roleRef: rbacRoleRef }),
  rbac('ClusterRoleBinding', 'Grants a cluster role to subjects cluster-wide.', { subjects: list(rbacSubject), roleRef: rbacRoleRef }),
]);

const authz = 'io.k8s.api.authorization.v1.';
const selectorAttributes = (description: string): Schema =>
  closed(
    {
      rawSelector: str('A selector in its query-parameter form.'),
      requirements: list(closed({ key: str(), operator: str(), values: list(str()) }, undefined, ['key', 'operator']), 'The parsed form of the selector.'),
    },
    description,
  );
const accessReviewSpec = {
  resourceAttributes: refTo(`${authz}ResourceAttributes`, 'The resource request to check.'),
  nonResourceAttributes: refTo(`${authz}NonResourceAttributes`, 'The non-resource request to check.'),
};
const subjectFields = {
  ...accessReviewSpec,
  user: str('The user to check.'),
  groups: list(str(), 'The groups to check.'),
  extra: mapOf(list(str()), 'The extra attributes of the user to check.'),
  uid: str('The UID of the user to check.'),
};
const accessReview = (kindName: string, description: string, spec: Record<string, Schema>): [string, Schema] => [
  `${authz}${kindName}`,
  kind(description, { spec: closed(spec), status: refTo(`${authz}SubjectAccessReviewStatus`) }, { group: 'authorization.k8s.io', version: 'v1', kind: kindName }),
];
const authorizationSchemas: Record<string, Schema> = Object.fromEntries([
  [
    `${authz}ResourceAttributes`,
    closed(
      {
        namespace: str(),
        verb: str(),
        group: str(),
        version: str(),
        resource: str(),
        subresource: str(),
        name: str(),
        fieldSelector: selectorAttributes('Limits the access to objects with these fields.'),
        labelSelector: selectorAttributes('Limits the access to objects with these labels.'),
      },
      'A resource request, as the authorizer sees it.',
    ),
  ],
  [`${authz}NonResourceAttributes`, closed({ path: str(), verb: str() }, 'A request for a path that is not a resource.')],
  [`${authz}SubjectAccessReviewStatus`, closed({ allowed: bool(), denied: bool(), reason: str(), evaluationError: str() }, 'The decision.')],
  accessReview('SubjectAccessReview', 'Checks whether a user or group can perform an action.', subjectFields),
  accessReview('LocalSubjectAccessReview', 'Checks whether a user or group can perform an action in a namespace.', subjectFields),
  accessReview('SelfSubjectAccessReview', 'Checks whether the requesting user can perform an action.', accessReviewSpec),
  [
    `${authz}SelfSubjectRulesReview`,
    kind(
      'Lists the actions the requesting user can perform in a namespace.',
      {
        spec: closed({ namespace: str('The namespace to evaluate rules for.') }),
        status: closed({
          resourceRules: list(closed({ verbs: list(str()), apiGroups: list(str()), resources: list(str()), resourceNames: list(str()) })),
          nonResourceRules: list(closed({ verbs: list(str()), nonResourceURLs: list(str()) })),
          incomplete: bool(),
          evaluationError: str(),
        }),
      },
      { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectRulesReview' },
    ),
  ],
]);

const schemas: Record<string, Schema> = {
  ...shared,
  [`${core}Pod`]: kind(
    'A collection of containers that run on a host.',
    { spec: refTo(`${core}PodSpec`, 'Specification of the desired behavior of the pod.'), status: open('Most recently observed status of the pod.') },
    { group: '', version: 'v1', kind: 'Pod' },
  ),
  [`${core}Namespace`]: kind(
    'A scope for names.',
    { spec: closed({ finalizers: list(str(), 'Finalizers that must be empty before the namespace is removed.') }), status: open() },
    { group: '', version: 'v1', kind: 'Namespace' },
  ),
  [`${core}Node`]: kind('A worker node.', { spec: open('Node specification.'), status: open('Node status.') }, { group: '', version: 'v1', kind: 'Node' }),
  [`${core}Service`]: kind(
    'A named abstraction of a software service.',
    {
      spec: closed({
        ports: list(closed({ name: str(), protocol: str(), appProtocol: str(), port: int(), targetPort: intOrString(), nodePort: int() }, undefined, ['port'])),
        selector: stringMap('Route traffic to pods with these labels.'),
        clusterIP: str(),
        clusterIPs: list(str()),
        type: str('ClusterIP, NodePort, LoadBalancer or ExternalName.'),
        externalIPs: list(str()),
        sessionAffinity: str(),
        loadBalancerIP: str(),
        loadBalancerSourceRanges: list(str()),
        externalName: str(),
        externalTrafficPolicy: str(),
        healthCheckNodePort: int(),
        publishNotReadyAddresses: bool(),
        sessionAffinityConfig: open(),
        ipFamilies: list(str()),
        ipFamilyPolicy: str(),
        allocateLoadBalancerNodePorts: bool(),
        loadBalancerClass: str(),
        internalTrafficPolicy: str(),
        trafficDistribution: str(),
      }),
      status: open(),
    },
    { group: '', version: 'v1', kind: 'Service' },
  ),
  [`${core}Endpoints`]: kind('The endpoints of a service.', { subsets: list(open('A set of addresses and ports.')) }, { group: '', version: 'v1', kind: 'Endpoints' }),
  [`${core}ConfigMap`]: kind(
    'Configuration data for pods.',
    { immutable: bool(), data: stringMap('UTF-8 configuration data.'), binaryData: mapOf(bytes()) },
    { group: '', version: 'v1', kind: 'ConfigMap' },
  ),
  [`${core}Secret`]: kind(
    'Secret data.',
    { immutable: bool(), data: mapOf(bytes()), stringData: stringMap('Write-only convenience field merged into data.'), type: str() },
    { group: '', version: 'v1', kind: 'Secret' },
  ),
  [`${core}ServiceAccount`]: kind(
    'An identity for processes in pods.',
    { secrets: list(refTo(`${core}ObjectReference`)), imagePullSecrets: list(closed({ name: str() })), automountServiceAccountToken: bool() },
    { group: '', version: 'v1', kind: 'ServiceAccount' },
  ),
  [`${core}Event`]: kind(
    'A report of an event somewhere in the cluster.',
    {
      involvedObject: refTo(`${core}ObjectReference`, 'The object this event is about.'),
      reason: str(),
      message: str(),
      source: closed({ component: str(), host: str() }),
      firstTimestamp: time(),
      lastTimestamp: time(),
      count: int(),
      type: str(),
      eventTime: time(),
      series: open(),
      action: str(),
      related: refTo(`${core}ObjectReference`),
      reportingComponent: str(),
      reportingInstance: str(),
    },
    { group: '', version: 'v1', kind: 'Event' },
  ),
  'io.k8s.api.events.v1.Event': kind(
    'A report of an event somewhere in the cluster.',
    {
      eventTime: time(),
      series: open(),
      reportingController: str(),
      reportingInstance: str(),
      action: str(),
      reason: str(),
      regarding: refTo(`${core}ObjectReference`),
      related: refTo(`${core}ObjectReference`),
      note: str(),
      type: str(),
      deprecatedSource: closed({ component: str(), host: str() }),
      deprecatedFirstTimestamp: time(),
      deprecatedLastTimestamp: time(),
      deprecatedCount: int(),
    },
    { group: 'events.k8s.io', version: 'v1', kind: 'Event' },
  ),
  [`${apps}Deployment`]: kind(
    'Declarative updates for pods and replica sets.',
    {
      spec: closed(
        {
          replicas: int('Number of desired pods. Default 1.'),
          selector,
          template: podTemplate,
          strategy: closed({ type: str('Recreate or RollingUpdate.'), rollingUpdate }),
          minReadySeconds: int(),
          revisionHistoryLimit: int(),
          paused: bool('Whether the deployment is paused.'),
          progressDeadlineSeconds: int(),
        },
        'Specification of the desired behavior of the Deployment.',
        ['selector', 'template'],
      ),
      status: open(),
    },
    { group: 'apps', version: 'v1', kind: 'Deployment' },
  ),
  [`${apps}ReplicaSet`]: kind(
    'Ensures that a number of pod replicas are running.',
    { spec: closed({ replicas: int(), minReadySeconds: int(), selector, template: podTemplate }, undefined, ['selector']), status: open() },
    { group: 'apps', version: 'v1', kind: 'ReplicaSet' },
  ),
  [`${apps}StatefulSet`]: kind(
    'Pods with stable identities.',
    {
      spec: closed(
        {
          replicas: int(),
          selector,
          template: podTemplate,
          volumeClaimTemplates: list(open('A PersistentVolumeClaim template.')),
          serviceName: str(),
          podManagementPolicy: str('OrderedReady or Parallel.'),
          updateStrategy: closed({ type: str('RollingUpdate or OnDelete.'), rollingUpdate: closed({ partition: int(), maxUnavailable: intOrString() }) }),
          revisionHistoryLimit: int(),
          minReadySeconds: int(),
          persistentVolumeClaimRetentionPolicy: closed({ whenDeleted: str(), whenScaled: str() }),
          ordinals: closed({ start: int() }),
        },
        undefined,
        ['selector', 'template'],
      ),
      status: open(),
    },
    { group: 'apps', version: 'v1', kind: 'StatefulSet' },
  ),
  [`${apps}DaemonSet`]: kind(
    'A pod on every node.',
    {
      spec: closed(
        {
          selector,
          template: podTemplate,
          updateStrategy: closed({ type: str('RollingUpdate or OnDelete.'), rollingUpdate }),
          minReadySeconds: int(),
          revisionHistoryLimit: int(),
        },
        undefined,
        ['selector', 'template'],
      ),
      status: open(),
    },
    { group: 'apps', version: 'v1', kind: 'DaemonSet' },
  ),
  [`${apps}ControllerRevision`]: kind(
    'An immutable snapshot of state data.',
    { data: open('The serialized state.'), revision: int64() },
    { group: 'apps', version: 'v1', kind: 'ControllerRevision' },
  ),
  'io.k8s.api.batch.v1.Job': kind(
    'A single job: pods run to completion.',
    {
      spec: closed(
        {
          parallelism: int(),
          completions: int(),
          activeDeadlineSeconds: int64(),
          podFailurePolicy: open(),
          successPolicy: open(),
          backoffLimit: int(),
          backoffLimitPerIndex: int(),
          maxFailedIndexes: int(),
          selector,
          manualSelector: bool(),
          template: podTemplate,
          ttlSecondsAfterFinished: int(),
          completionMode: str(),
          suspend: bool(),
          podReplacementPolicy: str(),
          managedBy: str(),
        },
        undefined,
        ['template'],
      ),
      status: open(),
    },
    { group: 'batch', version: 'v1', kind: 'Job' },
  ),
  'io.k8s.api.coordination.v1.Lease': kind(
    'A lease.',
    {
      spec: closed({
        holderIdentity: str(),
        leaseDurationSeconds: int(),
        acquireTime: str(),
        renewTime: str(),
        leaseTransitions: int(),
        strategy: str(),
        preferredHolder: str(),
      }),
    },
    { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' },
  ),
  'io.k8s.api.discovery.v1.EndpointSlice': kind(
    'A subset of the endpoints of a service.',
    { addressType: str(), endpoints: list(open('An endpoint.')), ports: list(open('A port.')) },
    { group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice' },
  ),
  'io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration': kind(
    'Admission webhooks that may change objects.',
    { webhooks: list(open('A mutating webhook.')) },
    { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'MutatingWebhookConfiguration' },
  ),
  'io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration': kind(
    'Admission webhooks that accept or reject objects.',
    { webhooks: list(open('A validating webhook.')) },
    { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration' },
  ),
  'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy': kind(
    'A policy of CEL validations of admission requests.',
    { spec: open('The policy: what it matches, its variables and validations.'), status: open() },
    { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy' },
  ),
  'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding': kind(
    'Binds a ValidatingAdmissionPolicy to resources and parameters.',
    { spec: open('The policy bound, its parameters, the resources and the actions.') },
    { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicyBinding' },
  ),
  'io.k8s.api.policy.v1.PodDisruptionBudget': kind(
    'The disruption a collection of pods may take.',
    {
      spec: closed({
        minAvailable: intOrString('Pods that must remain available: a number or a percentage.'),
        selector: refTo(`${meta}LabelSelector`, 'The pods the budget covers.'),
        maxUnavailable: intOrString('Pods that may be unavailable: a number or a percentage.'),
        unhealthyPodEvictionPolicy: str('When unhealthy pods may be evicted: IfHealthyBudget or AlwaysAllow.'),
      }),
      status: closed({
        observedGeneration: int64('The generation the status was computed for.'),
        disruptedPods: mapOf(time(), 'Pods whose eviction was granted, until the controller sees them go.'),
        disruptionsAllowed: int('How many pods may be disrupted now.'),
        currentHealthy: int('Healthy pods now.'),
        desiredHealthy: int('Healthy pods needed.'),
        expectedPods: int('Pods the budget counts.'),
        conditions: list(open('A condition of the budget (DisruptionAllowed).'), 'The budget’s conditions.'),
      }),
    },
    { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget' },
  ),
  ...rbacSchemas,
  ...authorizationSchemas,
  'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler': kind(
    'Scales a workload to the metrics it tracks.',
    {
      spec: closed({
        scaleTargetRef: closed({ kind: str(), name: str(), apiVersion: str() }, 'The scaled object.'),
        minReplicas: int('The lower limit for the number of replicas.'),
        maxReplicas: int('The upper limit for the number of replicas.'),
        metrics: list(open('A metric and its target.')),
        behavior: open('How fast to scale up and down.'),
      }),
      status: open(),
    },
    { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
  ),
  'io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler': kind(
    'Scales a workload to its CPU utilization.',
    {
      spec: closed({
        scaleTargetRef: closed({ kind: str(), name: str(), apiVersion: str() }, 'The scaled object.'),
        minReplicas: int('The lower limit for the number of replicas.'),
        maxReplicas: int('The upper limit for the number of replicas.'),
        targetCPUUtilizationPercentage: int('The target average CPU utilization, in percent of the requested CPU.'),
      }),
      status: open(),
    },
    { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
  ),
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition': kind(
    'A resource served by the API server from a schema.',
    { spec: open('The resource and its versions.'), status: open() },
    { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
  ),
};

export const builtinSchemas: Readonly<Record<string, Schema>> = schemas;

/** The schema name of a built-in kind, e.g. `io.k8s.api.core.v1.Pod`. */
export function builtinSchemaName(group: string, version: string, kindName: string): string | undefined {
  for (const [name, schema] of Object.entries(schemas)) {
    const gvks = schema['x-kubernetes-group-version-kind'];
    if (Array.isArray(gvks) && gvks.some((g: { group: string; version: string; kind: string }) => g.group === group && g.version === version && g.kind === kindName)) {
      return name;
    }
  }
  return undefined;
}
