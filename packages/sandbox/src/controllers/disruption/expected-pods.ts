// The disruption controller's arithmetic (getExpectedPodCount): how many pods a budget expects and how
// many must stay healthy. An integer minAvailable counts the selected pods as they are; a percentage,
// or maxUnavailable, counts the scale of the pods' controllers (each counted once), found by the
// finders in kube-controller-manager's order: the Deployment of a ReplicaSet, a ReplicaSet of no
// Deployment, a StatefulSet, then any resource with a scale subresource (the ReplicationController
// finder comes first there; the sandbox serves none). Pods with no controller are reported as
// unmanaged; a controller that cannot be found, or has no scale, fails the sync.

import { isJsonObject, objectKey, readPath, type KubeObject, type OwnerReference } from '../../meta/object.ts';
import { controllerRefOf } from '../apps/controller-ref.ts';
import { specReplicas } from '../apps/workload-fields.ts';
import type { ControllerContext } from '../in-process-controller.ts';

export interface ExpectedPods {
  expectedCount: number;
  desiredHealthy: number;
  /** Names of selected pods without a controller. */
  unmanagedPods: string[];
}

interface ControllerScale {
  uid: string;
  scale: number;
}

type Lookup = Pick<ControllerContext, 'store' | 'registry'>;
type Finder = (lookup: Lookup, ref: OwnerReference, namespace: string) => ControllerScale | undefined;

/** schema.ParseGroupVersion's group. */
function groupOf(apiVersion: string): string {
  if (apiVersion === '' || apiVersion === '/') return '';
  const slashes = apiVersion.split('/').length - 1;
  if (slashes > 1) throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
  return slashes === 1 ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
}

const isKind = (ref: OwnerReference, kind: string, groups: readonly string[]): boolean => {
  const group = groupOf(ref.apiVersion);
  return ref.kind === kind && groups.includes(group);
};

/** The object a reference names in the namespace, if it still has the referenced uid. */
function referenced(lookup: Lookup, storage: string, namespace: string, ref: { name: string; uid: string }): KubeObject | undefined {
  const object = lookup.store.get(storage, objectKey(namespace, ref.name))?.object;
  return object?.metadata.uid === ref.uid ? object : undefined;
}

const replicaSetGroups = ['apps', 'extensions'];

const finders: readonly Finder[] = [
  (lookup, ref, namespace) => {
    if (!isKind(ref, 'ReplicaSet', replicaSetGroups)) return undefined;
    const rs = referenced(lookup, 'replicasets.apps', namespace, ref);
    const owner = rs && controllerRefOf(rs);
    if (!owner || !isKind(owner, 'Deployment', replicaSetGroups)) return undefined;
    const deployment = referenced(lookup, 'deployments.apps', namespace, owner);
    return deployment && { uid: owner.uid, scale: specReplicas(deployment) };
  },
  (lookup, ref, namespace) => {
    if (!isKind(ref, 'ReplicaSet', replicaSetGroups)) return undefined;
    const rs = referenced(lookup, 'replicasets.apps', namespace, ref);
    if (!rs || controllerRefOf(rs)?.kind === 'Deployment') return undefined;
    return { uid: ref.uid, scale: specReplicas(rs) };
  },
  (lookup, ref, namespace) => {
    if (!isKind(ref, 'StatefulSet', ['apps'])) return undefined;
    const set = referenced(lookup, 'statefulsets.apps', namespace, ref);
    return set && { uid: ref.uid, scale: specReplicas(set) };
  },
  scaleFinder,
];

/** getScaleController: the RESTMapping of the reference's kind, then its `/scale`. */
function scaleFinder(lookup: Lookup, ref: OwnerReference, namespace: string): ControllerScale | undefined {
  const group = groupOf(ref.apiVersion);
  const def = lookup.registry.byKind(ref.apiVersion, ref.kind);
  // ReplicationControllers are not served by the sandbox: none is ever found, as for a deleted one.
  if (!def && isKind(ref, 'ReplicationController', [''])) return undefined;
  if (!def) {
    const version = ref.apiVersion.slice(ref.apiVersion.indexOf('/') + 1);
    throw new Error(`no matches for kind ${JSON.stringify(ref.kind)} in version ${JSON.stringify(group ? `${group}/${version}` : version)}`);
  }
  if (!def.scale) throw new Error(`${def.group ? `${def.resource}.${def.group}` : def.resource} does not implement the scale subresource`);
  const object = referenced(lookup, def.storageKey, namespace, ref);
  if (!object) return undefined;
  const replicas = readPath(object, def.scale.specReplicasPath.replace(/^\./, '').split('.'));
  return { uid: ref.uid, scale: typeof replicas === 'number' ? replicas : 0 };
}

/** getExpectedScale: the sum of the scales of the selected pods' controllers. */
function expectedScale(lookup: Lookup, pods: readonly KubeObject[]): { expectedCount: number; unmanagedPods: string[] } {
  const scales = new Map<string, number>();
  const unmanagedPods: string[] = [];
  for (const pod of pods) {
    const ref = controllerRefOf(pod);
    if (!ref) {
      unmanagedPods.push(pod.metadata.name ?? '');
      continue;
    }
    if (scales.has(ref.uid)) continue;
    let found: ControllerScale | undefined;
    for (const finder of finders) {
      found = finder(lookup, ref, pod.metadata.namespace ?? '');
      if (found) break;
    }
    if (!found) throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata.name ?? '')}`);
    scales.set(found.uid, found.scale);
  }
  let expectedCount = 0;
  for (const scale of scales.values()) expectedCount += scale;
  return { expectedCount, unmanagedPods };
}

/** GetScaledValueFromIntOrPercent rounding up (validation admits only integers and `N%`). */
function scaled(value: unknown, total: number): number {
  if (typeof value === 'number') return value;
  return Math.ceil((Number.parseInt(String(value), 10) * total) / 100);
}

export function expectedPods(lookup: Lookup, pdb: KubeObject, pods: readonly KubeObject[]): ExpectedPods {
  const spec = isJsonObject(pdb.spec) ? pdb.spec : {};
  const { maxUnavailable, minAvailable } = spec;
  if (maxUnavailable !== undefined && maxUnavailable !== null) {
    const { expectedCount, unmanagedPods } = expectedScale(lookup, pods);
    return { expectedCount, desiredHealthy: Math.max(0, expectedCount - scaled(maxUnavailable, expectedCount)), unmanagedPods };
  }
  if (typeof minAvailable === 'number') return { expectedCount: pods.length, desiredHealthy: minAvailable, unmanagedPods: [] };
  if (typeof minAvailable === 'string') {
    const { expectedCount, unmanagedPods } = expectedScale(lookup, pods);
    return { expectedCount, desiredHealthy: scaled(minAvailable, expectedCount), unmanagedPods };
  }
  return { expectedCount: 0, desiredHealthy: 0, unmanagedPods: [] };
}
