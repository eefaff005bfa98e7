// What podops keeps in memory of each kind it caches: the fields its decisions read, nothing else (as
// controller-runtime's cache transforms do). Writes are patches of labels, annotations and conditions guarded by
// resourceVersion, never a PUT of a trimmed copy, so nothing dropped here can be lost.

import type { Deployment, Node, ObjectMeta, Pod, ReplicaSet, Service, StatefulSet } from '../api/kube.ts';
import { CONTROL_LABEL, SERVICE_READY_GATE } from '../api/protocol.ts';
import { makesControlledPods } from '../lifecycle/pod.ts';
import type { PodDisruptionBudget } from '../lifecycle/eviction.ts';

/** The identity, version and ownership of an object, and its labels when they are read. */
function basics(metadata: ObjectMeta, labels: boolean): ObjectMeta {
  const { name, namespace, uid, resourceVersion, generation, ownerReferences, deletionTimestamp } = metadata;
  return {
    name,
    ...(namespace !== undefined && { namespace }),
    uid,
    resourceVersion,
    ...(generation !== undefined && { generation }),
    ...(labels && metadata.labels && { labels: metadata.labels }),
    ...(ownerReferences && { ownerReferences }),
    ...(deletionTimestamp && { deletionTimestamp }),
  };
}

/** A controlled pod: all its metadata (the protocol lives in labels, annotations and finalizers), its gate, node, phase, Ready and gate conditions. */
export function trimPod(pod: Pod): Pod {
  const { managedFields: _managed, ...metadata } = pod.metadata;
  const trimmed: Pod = { apiVersion: pod.apiVersion ?? 'v1', kind: pod.kind ?? 'Pod', metadata };
  if (pod.spec) {
    trimmed.spec = {};
    if (pod.spec.readinessGates) trimmed.spec.readinessGates = pod.spec.readinessGates;
    if (pod.spec.nodeName) trimmed.spec.nodeName = pod.spec.nodeName;
  }
  if (pod.status) {
    trimmed.status = {};
    if (pod.status.phase) trimmed.status.phase = pod.status.phase;
    const conditions = pod.status.conditions?.filter((c) => c.type === 'Ready' || c.type === SERVICE_READY_GATE);
    if (conditions?.length) trimmed.status.conditions = conditions;
    if (pod.status.podIP) trimmed.status.podIP = pod.status.podIP;
  }
  return trimmed;
}

/** Of a template, only whether it is controlled. */
const templateMark = (workload: Deployment | ReplicaSet): { template?: { metadata: ObjectMeta } } => {
  const value = (workload.spec?.template as { metadata?: ObjectMeta } | undefined)?.metadata?.labels?.[CONTROL_LABEL];
  return value === undefined ? {} : { template: { metadata: { labels: { [CONTROL_LABEL]: value } } } };
};

export function trimReplicaSet(rs: ReplicaSet): ReplicaSet {
  const failure = rs.status?.conditions?.filter((c) => c.type === 'ReplicaFailure');
  return {
    metadata: basics(rs.metadata, false),
    spec: { replicas: rs.spec?.replicas, selector: rs.spec?.selector, ...templateMark(rs) },
    status: { replicas: rs.status?.replicas, ...(failure?.length && { conditions: failure }) },
  };
}

/**
 * ReplicaSets podops has a use for: those that make controlled pods (scale-downs, the surge bound), and the
 * others while they have pods (an uncontrolled ReplicaSet's pods count toward its Deployment's surge bound by
 * number). The old revisions of every other Deployment in the cluster are not kept.
 */
export const replicaSetKept = (rs: ReplicaSet): boolean => makesControlledPods(rs as never) || (rs.spec?.replicas ?? 1) > 0 || (rs.status?.replicas ?? 0) > 0;

export function trimDeployment(deployment: Deployment): Deployment {
  const { replicas, selector, strategy } = deployment.spec ?? {};
  return { metadata: basics(deployment.metadata, false), spec: { replicas, selector, ...(strategy && { strategy }), ...templateMark(deployment) } };
}

export function trimStatefulSet(set: StatefulSet): StatefulSet {
  const { replicas, ordinals, updateStrategy } = set.spec ?? {};
  const { observedGeneration, updateRevision, currentRevision } = set.status ?? {};
  return { metadata: basics(set.metadata, false), spec: { replicas, ...(ordinals && { ordinals }), ...(updateStrategy && { updateStrategy }) }, status: { observedGeneration, updateRevision, currentRevision } };
}

export function trimNode(node: Node): Node {
  return { metadata: basics(node.metadata, false), spec: { ...(node.spec?.unschedulable && { unschedulable: true }), ...(node.spec?.taints && { taints: node.spec.taints }) } };
}

export function trimPodDisruptionBudget(budget: PodDisruptionBudget & { metadata: ObjectMeta }): PodDisruptionBudget & { metadata: ObjectMeta } {
  const { observedGeneration, desiredHealthy, currentHealthy } = budget.status ?? {};
  return { metadata: basics(budget.metadata, false), spec: { ...(budget.spec?.selector && { selector: budget.spec.selector }) }, status: { observedGeneration, desiredHealthy, currentHealthy } };
}

export function trimService(service: Service): Service {
  return { metadata: basics(service.metadata, false), spec: { selector: service.spec?.selector ?? null } };
}
