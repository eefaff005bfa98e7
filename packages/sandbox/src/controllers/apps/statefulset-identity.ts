// The identity of a StatefulSet's pods: `<set>-<ordinal>` names, the pod-name and pod-index labels,
// hostname and subdomain (set once, on creation), the revision label, and the volumes that reference
// the per-pod claims of volumeClaimTemplates (`<claim>-<set>-<ordinal>`).

import { cloneJson, isJsonObject, readPath, type JsonObject, type KubeObject } from '../../meta/object.ts';
import { newControllerRef } from './controller-ref.ts';
import { podFromTemplate, sortedMap } from './pod-control.ts';
import { statefulSetKind } from './statefulset-spec.ts';

const podNameLabel = 'statefulset.kubernetes.io/pod-name';
const podIndexLabel = 'apps.kubernetes.io/pod-index';
const revisionLabel = 'controller-revision-hash';

const statefulPodName = /^(.*)-([0-9]+)$/;

/** getParentNameAndOrdinal: the set name and ordinal a pod name encodes (ordinal -1 when none). */
function parentAndOrdinal(pod: KubeObject): { parent: string; ordinal: number } {
  const match = statefulPodName.exec(pod.metadata.name ?? '');
  if (!match) return { parent: '', ordinal: -1 };
  const ordinal = Number(match[2]);
  return { parent: match[1] ?? '', ordinal: ordinal <= 2147483647 ? ordinal : -1 };
}

export const ordinalOf = (pod: KubeObject): number => parentAndOrdinal(pod).ordinal;
export const podName = (set: KubeObject, ordinal: number): string => `${set.metadata.name}-${ordinal}`;
export const isMemberOf = (set: KubeObject, pod: KubeObject): boolean => parentAndOrdinal(pod).parent === set.metadata.name;
export const podRevision = (pod: KubeObject): string => pod.metadata.labels?.[revisionLabel] ?? '';

/** identityMatches: name, namespace and pod-name label agree with the ordinal. */
export function identityMatches(set: KubeObject, pod: KubeObject): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod);
  return (
    ordinal >= 0 &&
    parent === set.metadata.name &&
    pod.metadata.name === podName(set, ordinal) &&
    pod.metadata.namespace === set.metadata.namespace &&
    pod.metadata.labels?.[podNameLabel] === pod.metadata.name
  );
}

function claimTemplates(set: KubeObject): JsonObject[] {
  const templates = readPath(set, ['spec', 'volumeClaimTemplates']);
  return Array.isArray(templates) ? templates.filter(isJsonObject) : [];
}

const claimName = (set: KubeObject, claim: JsonObject, ordinal: number): string => `${readPath(claim, ['metadata', 'name'])}-${set.metadata.name}-${ordinal}`;

/** storageMatches: every volumeClaimTemplate has its volume with this pod's claim. */
export function storageMatches(set: KubeObject, pod: KubeObject): boolean {
  const ordinal = ordinalOf(pod);
  if (ordinal < 0) return false;
  const volumes = readPath(pod, ['spec', 'volumes']);
  const byName = new Map((Array.isArray(volumes) ? volumes.filter(isJsonObject) : []).map((v) => [v.name, v]));
  return claimTemplates(set).every((claim) => {
    const volume = byName.get(readPath(claim, ['metadata', 'name']));
    return readPath(volume, ['persistentVolumeClaim', 'claimName']) === claimName(set, claim, ordinal);
  });
}

/** updateIdentity: the name and the pod-name and pod-index labels for the pod's ordinal. */
export function updateIdentity(set: KubeObject, pod: KubeObject): void {
  const ordinal = ordinalOf(pod);
  pod.metadata.name = podName(set, ordinal);
  pod.metadata.namespace = set.metadata.namespace;
  pod.metadata.labels = sortedMap({ ...pod.metadata.labels, [podNameLabel]: pod.metadata.name, [podIndexLabel]: String(ordinal) });
}

/** updateStorage: claim volumes first, then the pod's other volumes. */
export function updateStorage(set: KubeObject, pod: KubeObject): void {
  const templates = claimTemplates(set);
  if (!templates.length) return;
  const ordinal = ordinalOf(pod);
  const spec = (pod.spec ??= {}) as JsonObject;
  const names = new Set(templates.map((claim) => readPath(claim, ['metadata', 'name'])));
  const others = (Array.isArray(spec.volumes) ? spec.volumes : []).filter((v) => !(isJsonObject(v) && names.has(v.name)));
  spec.volumes = [
    ...templates.map((claim) => ({ name: readPath(claim, ['metadata', 'name']), persistentVolumeClaim: { claimName: claimName(set, claim, ordinal) } })),
    ...others,
  ];
}

/** newStatefulSetPod at a revision: the template of that revision with the ordinal's identity. */
export function newStatefulSetPod(set: KubeObject, template: JsonObject, revisionName: string, ordinal: number): KubeObject {
  const pod = podFromTemplate(cloneJson(template), set, newControllerRef(set, statefulSetKind));
  pod.metadata.name = podName(set, ordinal);
  updateIdentity(set, pod);
  const spec = pod.spec as JsonObject;
  spec.hostname = pod.metadata.name;
  const serviceName = readPath(set, ['spec', 'serviceName']);
  if (typeof serviceName === 'string' && serviceName) spec.subdomain = serviceName;
  updateStorage(set, pod);
  pod.metadata.labels = sortedMap({ ...pod.metadata.labels, [revisionLabel]: revisionName });
  return pod;
}
