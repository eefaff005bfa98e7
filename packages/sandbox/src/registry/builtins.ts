// The built-in resources the sandbox serves, with their discovery facts, strategies and printers.

import { initialPodStatus } from '../defaults/index.ts';
import { validateEphemeralContainersUpdate } from '../validation/index.ts';
import type { ApiServerFeatureGates } from '../feature-gates.ts';
import { readPath, type KubeObject } from '../meta/object.ts';
import { formatLabelSelector } from '../tables/columns.ts';
import { configMapPrinter, endpointsPrinter, eventPrinter, namespacePrinter, nodePrinter, podPrinter, secretPrinter, serviceAccountPrinter, servicePrinter } from '../tables/core-printers.ts';
import {
  controllerRevisionPrinter,
  daemonSetPrinter,
  deploymentPrinter,
  horizontalPodAutoscalerPrinter,
  jobPrinter,
  replicaSetPrinter,
  statefulSetPrinter,
} from '../tables/workload-printers.ts';
import {
  clusterRoleBindingPrinter,
  podDisruptionBudgetPrinter,
  roleBindingPrinter,
  validatingAdmissionPolicyBindingPrinter,
  validatingAdmissionPolicyPrinter,
} from '../tables/access-printers.ts';
import { defaultPrinter, endpointSlicePrinter, leasePrinter, webhookConfigurationPrinter } from '../tables/cluster-printers.ts';
import { builtinRules } from './builtin-rules.ts';
import { customResourceDefinitionResource } from './crd-resource.ts';
import { allVerbs, defineResource } from './define.ts';
import { coreEventToEventsV1, eventsV1ToCoreEvent } from './event-conversion.ts';
import { hpaToV1, hpaToV2 } from './hpa-conversion.ts';
import { beginNamespaceDeletion, namespaceBlocksDeletion, prepareNamespaceForFinalize } from './namespace-rules.ts';
import { podGracePeriod, preparePodForEphemeralContainersUpdate } from './pod-rules.ts';
import { serviceAllocators, type ServiceAllocators, type StoredServices } from './service-allocation.ts';
import { makeStrategy, type GenerationRule, type KindRules, type StatusMetadataRule } from './strategy.ts';
import type { HandledSubresource, ResourceDefinition, ScaleSubresource, TablePrinter } from './types.ts';

const emptyStatus = (): Record<string, unknown> => ({});
/** The status the defaults module gave a new object (Services, Namespaces). */
const defaultedStatus = (o: KubeObject): unknown => o.status;

/** What core/v1 serves under pods besides status, as its discovery lists it. */
const podSubresources: HandledSubresource[] = [
  { name: 'attach', kind: 'PodAttachOptions', verbs: ['create', 'get'] },
  { name: 'binding', kind: 'Binding', verbs: ['create'] },
  { name: 'ephemeralcontainers', kind: 'Pod', verbs: ['get', 'patch', 'update'] },
  { name: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
  { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
  { name: 'log', kind: 'Pod', verbs: ['get'] },
  { name: 'portforward', kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
  { name: 'proxy', kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
];

const workloadScale: ScaleSubresource = {
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
  selectorOf: (o) => {
    const text = formatLabelSelector(readPath(o, ['spec', 'selector']));
    return text === '<none>' ? '' : text;
  },
};

interface Simple {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced?: boolean;
  shortNames?: string[];
  categories?: string[];
  table: TablePrinter;
  generation?: GenerationRule;
  status?: StatusMetadataRule;
  initialStatus?: (o: KubeObject) => unknown;
  scale?: ScaleSubresource;
  verbs?: readonly string[];
}

function simple(spec: Simple, allocators: ServiceAllocators, featureGates: ApiServerFeatureGates): ResourceDefinition {
  const rules = builtinRules({ group: spec.group, version: spec.version, kind: spec.kind }, allocators, featureGates);
  return defineResource({
    group: spec.group,
    version: spec.version,
    resource: spec.resource,
    kind: spec.kind,
    namespaced: spec.namespaced ?? true,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    verbs: spec.verbs ?? allVerbs,
    table: spec.table,
    ...(spec.scale ? { scale: spec.scale } : {}),
    strategy: makeStrategy({
      rules,
      ...(spec.generation ? { generation: spec.generation } : {}),
      ...(spec.status ? { status: spec.status, initialStatus: spec.initialStatus ?? emptyStatus } : {}),
    }),
  });
}

/**
 * Rules written for a view's shape (events.k8s.io field names) applied to objects kept in the
 * storage shape (core Events): converted for each check, and converted back after defaulting.
 */
function inViewShape(rules: KindRules, toView: (o: KubeObject) => KubeObject, toStorage: (o: KubeObject) => KubeObject): KindRules {
  return {
    applyDefaults(object, ctx) {
      const view = toView(object);
      rules.applyDefaults(view, { ...ctx, ...(ctx.old ? { old: toView(ctx.old) } : {}) });
      const stored = toStorage(view);
      for (const key of Object.keys(object)) delete object[key];
      Object.assign(object, stored);
    },
    validateCreate: (object) => rules.validateCreate(toView(object)),
    validateUpdate: (object, old) => rules.validateUpdate(toView(object), toView(old)),
    validateStatusUpdate: (object, old) => rules.validateStatusUpdate(toView(object), toView(old)),
    typeMismatch: (object) => rules.typeMismatch?.(toView(object)),
    dropUnknownFields(object) {
      const view = toView(object);
      const unknown = rules.dropUnknownFields?.(view) ?? [];
      if (unknown.length) {
        const stored = toStorage(view);
        for (const key of Object.keys(object)) delete object[key];
        Object.assign(object, stored);
      }
      return unknown;
    },
  };
}

export interface BuiltinDependencies {
  /** The stored services, for cluster IP and node port allocation. */
  services: StoredServices;
  /** Gates that change defaulting (e.g. StatefulSet maxUnavailable is dropped unless its gate is on). */
  featureGates?: ApiServerFeatureGates;
}

export function builtinResources(deps: BuiltinDependencies): ResourceDefinition[] {
  const allocators = serviceAllocators(deps.services);
  const gates = deps.featureGates ?? {};
  const rules = (group: string, kind: string): ReturnType<typeof builtinRules> => builtinRules({ group, version: 'v1', kind }, allocators, gates);
  const other = (s: Simple): ResourceDefinition => simple(s, allocators, gates);
  const core = (s: Omit<Simple, 'group' | 'version'>): ResourceDefinition => other({ group: '', version: 'v1', ...s });
  const apps = (s: Omit<Simple, 'group' | 'version'>): ResourceDefinition => other({ group: 'apps', version: 'v1', categories: ['all'], ...s });

  const pods = defineResource({
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    table: podPrinter,
    subresources: podSubresources,
    deleteReturnsObject: true,
    strategy: makeStrategy({
      rules: rules('', 'Pod'),
      status: 'keep-metadata-but-owners',
      initialStatus: initialPodStatus,
      extras: {
        gracePeriod: podGracePeriod,
        prepareForEphemeralContainersUpdate: preparePodForEphemeralContainersUpdate,
        validateEphemeralContainersUpdate: (pod, old) => validateEphemeralContainersUpdate({ group: '', version: 'v1', kind: 'Pod' }, pod, old),
      },
    }),
  });

  const namespaces = defineResource({
    group: '',
    version: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    table: namespacePrinter,
    deleteReturnsObject: true,
    strategy: makeStrategy({
      rules: rules('', 'Namespace'),
      status: 'keep-metadata',
      initialStatus: defaultedStatus,
      prepareForFinalize: prepareNamespaceForFinalize,
      extras: { beginDeletion: beginNamespaceDeletion, blocksDeletion: namespaceBlocksDeletion },
    }),
  });

  const services = defineResource({
    group: '',
    version: 'v1',
    resource: 'services',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    table: servicePrinter,
    deleteReturnsObject: true,
    strategy: makeStrategy({
      rules: rules('', 'Service'),
      status: 'keep-metadata',
      initialStatus: defaultedStatus,
    }),
  });

  const coreEvents = core({ resource: 'events', kind: 'Event', shortNames: ['ev'], table: eventPrinter });
  const eventsV1 = defineResource({
    group: 'events.k8s.io',
    version: 'v1',
    resource: 'events',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    storage: { group: '', version: 'v1', resource: 'events', kind: 'Event' },
    table: { columns: eventPrinter.columns, cells: (o, now) => eventPrinter.cells(eventsV1ToCoreEvent(o), now) },
    strategy: makeStrategy({ rules: inViewShape(rules('events.k8s.io', 'Event'), coreEventToEventsV1, eventsV1ToCoreEvent) }),
    toExternal: coreEventToEventsV1,
    toStorage: eventsV1ToCoreEvent,
  });

  const daemonSets = defineResource({
    group: 'apps',
    version: 'v1',
    resource: 'daemonsets',
    kind: 'DaemonSet',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    table: daemonSetPrinter,
    strategy: makeStrategy({
      rules: rules('apps', 'DaemonSet'),
      generation: 'spec',
      status: 'keep-metadata',
      initialStatus: emptyStatus,
    }),
  });

  const autoscaling = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler' };
  const hpaStrategy = makeStrategy({
    rules: builtinRules(autoscaling, allocators, gates),
    status: 'keep-metadata',
    initialStatus: () => ({ desiredReplicas: 0 }),
  });
  const hpa = (version: 'v2' | 'v1'): ResourceDefinition =>
    defineResource({
      ...autoscaling,
      version,
      namespaced: true,
      shortNames: ['hpa'],
      categories: ['all'],
      storage: autoscaling,
      table: version === 'v2' ? horizontalPodAutoscalerPrinter : { columns: horizontalPodAutoscalerPrinter.columns, cells: (o, now) => horizontalPodAutoscalerPrinter.cells(hpaToV2(o), now) },
      strategy: hpaStrategy,
      ...(version === 'v1' ? { toExternal: hpaToV1, toStorage: hpaToV2 } : {}),
    });

  // The access reviews: create only, never stored (apiserver/access-review.ts answers them).
  const review = (resource: string, kind: string, namespaced = false): ResourceDefinition =>
    defineResource({
      group: 'authorization.k8s.io',
      version: 'v1',
      resource,
      kind,
      namespaced,
      verbs: ['create'],
      notStored: true,
      table: defaultPrinter,
      strategy: makeStrategy({ rules: rules('authorization.k8s.io', kind) }),
    });

  const rbac = (resource: string, kind: string, namespaced: boolean, table: TablePrinter): ResourceDefinition =>
    other({ group: 'rbac.authorization.k8s.io', version: 'v1', resource, kind, namespaced, table });

  const jobs = defineResource({
    group: 'batch',
    version: 'v1',
    resource: 'jobs',
    kind: 'Job',
    namespaced: true,
    categories: ['all'],
    table: jobPrinter,
    strategy: makeStrategy({
      rules: rules('batch', 'Job'),
      generation: 'spec',
      status: 'keep-metadata',
      initialStatus: emptyStatus,
      extras: { defaultPropagation: 'Orphan' },
    }),
  });

  return [
    core({ resource: 'configmaps', kind: 'ConfigMap', shortNames: ['cm'], table: configMapPrinter }),
    core({ resource: 'endpoints', kind: 'Endpoints', shortNames: ['ep'], table: endpointsPrinter }),
    coreEvents,
    namespaces,
    core({
      resource: 'nodes',
      kind: 'Node',
      namespaced: false,
      shortNames: ['no'],
      table: nodePrinter,
      status: 'keep-metadata',
      initialStatus: (node) => node.status,
    }),
    pods,
    core({ resource: 'secrets', kind: 'Secret', table: secretPrinter }),
    core({ resource: 'serviceaccounts', kind: 'ServiceAccount', shortNames: ['sa'], table: serviceAccountPrinter }),
    services,
    apps({ resource: 'controllerrevisions', kind: 'ControllerRevision', categories: [], table: controllerRevisionPrinter }),
    daemonSets,
    apps({
      resource: 'deployments',
      kind: 'Deployment',
      shortNames: ['deploy'],
      table: deploymentPrinter,
      generation: 'spec-and-annotations',
      status: 'keep-metadata-but-labels',
      scale: workloadScale,
    }),
    apps({
      resource: 'replicasets',
      kind: 'ReplicaSet',
      shortNames: ['rs'],
      table: replicaSetPrinter,
      generation: 'spec',
      status: 'keep-metadata-but-labels',
      scale: workloadScale,
    }),
    apps({
      resource: 'statefulsets',
      kind: 'StatefulSet',
      shortNames: ['sts'],
      table: statefulSetPrinter,
      generation: 'spec',
      status: 'keep-metadata-but-labels',
      scale: workloadScale,
    }),
    eventsV1,
    review('localsubjectaccessreviews', 'LocalSubjectAccessReview', true),
    review('selfsubjectaccessreviews', 'SelfSubjectAccessReview'),
    review('selfsubjectrulesreviews', 'SelfSubjectRulesReview'),
    review('subjectaccessreviews', 'SubjectAccessReview'),
    hpa('v2'),
    hpa('v1'),
    jobs,
    other({
      group: 'policy',
      version: 'v1',
      resource: 'poddisruptionbudgets',
      kind: 'PodDisruptionBudget',
      shortNames: ['pdb'],
      table: podDisruptionBudgetPrinter,
      generation: 'spec',
      status: 'keep-metadata',
      initialStatus: () => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }),
    }),
    rbac('clusterrolebindings', 'ClusterRoleBinding', false, clusterRoleBindingPrinter),
    rbac('clusterroles', 'ClusterRole', false, defaultPrinter),
    rbac('rolebindings', 'RoleBinding', true, roleBindingPrinter),
    rbac('roles', 'Role', true, defaultPrinter),
    other({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      resource: 'mutatingwebhookconfigurations',
      kind: 'MutatingWebhookConfiguration',
      namespaced: false,
      categories: ['api-extensions'],
      table: webhookConfigurationPrinter,
      generation: 'all-but-metadata',
    }),
    other({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      resource: 'validatingwebhookconfigurations',
      kind: 'ValidatingWebhookConfiguration',
      namespaced: false,
      categories: ['api-extensions'],
      table: webhookConfigurationPrinter,
      generation: 'all-but-metadata',
    }),
    other({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      resource: 'validatingadmissionpolicies',
      kind: 'ValidatingAdmissionPolicy',
      namespaced: false,
      categories: ['api-extensions'],
      table: validatingAdmissionPolicyPrinter,
      generation: 'spec',
      // Its status strategy resets the metadata a status write may not change (ResetObjectMetaForStatus).
      status: 'status-only',
    }),
    other({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      resource: 'validatingadmissionpolicybindings',
      kind: 'ValidatingAdmissionPolicyBinding',
      namespaced: false,
      categories: ['api-extensions'],
      table: validatingAdmissionPolicyBindingPrinter,
      generation: 'spec',
    }),
    customResourceDefinitionResource(),
    other({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', table: leasePrinter }),
    other({
      group: 'discovery.k8s.io',
      version: 'v1',
      resource: 'endpointslices',
      kind: 'EndpointSlice',
      table: endpointSlicePrinter,
      generation: 'all-but-metadata',
    }),
  ];
}
