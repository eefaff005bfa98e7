// The pod registry's deletion rules: the grace period of a DELETE (CheckGracefulDelete), and when
// removing the last finalizer deletes a pod that was waiting for its grace period.

import { isJsonObject, type KubeObject } from '../meta/object.ts';

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

/** A pod no kubelet will finish (unscheduled or terminal) goes as soon as its last finalizer does. */
export const podDeletableDespiteGrace = (pod: KubeObject): boolean => !nodeNameOf(pod) || terminalPhase(pod);
