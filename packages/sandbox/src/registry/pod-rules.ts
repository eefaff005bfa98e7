// The pod registry's own rules: the grace period of a DELETE (CheckGracefulDelete) and what a write to
// `/ephemeralcontainers` may change. A pod waiting out its grace period stays, whatever its phase and
// finalizers, until a DELETE ends the wait (the kubelet's, with gracePeriodSeconds 0): kube-apiserver deletes
// an object during an update only once no grace period is pending.

import { isJsonObject, type JsonObject, type KubeObject } from '../meta/object.ts';

const terminalPhase = (pod: KubeObject): boolean => {
  const phase = isJsonObject(pod.status) ? pod.status.phase : undefined;
  return phase === 'Succeeded' || phase === 'Failed';
};

const nodeNameOf = (pod: KubeObject): string => (isJsonObject(pod.spec) && typeof pod.spec.nodeName === 'string' ? pod.spec.nodeName : '');

/** CheckGracefulDelete: the requested period, else terminationGracePeriodSeconds; 0 off a node or once terminal. */
export function podGracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec = isJsonObject(pod.spec) ? pod.spec : {};
  let period = requested ?? (typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 0);
  if (!nodeNameOf(pod) || terminalPhase(pod)) period = 0;
  return period;
}


/**
 * dropNonEphemeralContainerUpdates: the stored spec with the new ephemeral containers, the stored status,
 * and the metadata a status write may not change (ResetObjectMetaForStatus) taken from the stored pod.
 */
export function preparePodForEphemeralContainersUpdate(pod: KubeObject, old: KubeObject): void {
  const ephemeral = isJsonObject(pod.spec) ? pod.spec.ephemeralContainers : undefined;
  const spec: JsonObject = { ...(isJsonObject(old.spec) ? old.spec : {}) };
  if (ephemeral === undefined) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = ephemeral;
  pod.spec = spec;
  if (old.status === undefined) delete pod.status;
  else pod.status = old.status;
  for (const field of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
    if (old.metadata[field] === undefined) delete pod.metadata[field];
    else pod.metadata[field] = old.metadata[field] as never;
  }
}
