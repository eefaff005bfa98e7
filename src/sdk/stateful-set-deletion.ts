// Whether a pod's StatefulSet still wants the pod its controller deleted, read live from the API server (a
// scale-up or a rollback since the delete writes no pod).

import { appsControllerOf, type OwnerReference, type Pod, type StatefulSet } from '../api/kube.ts';
import { unlessNotFound, type KubeClient } from '../kube/client.ts';
import { STATEFULSETS } from '../kube/resources.ts';
import { statefulSetKeeps } from '../lifecycle/scale-down.ts';

/** The pod's controller, when it is a StatefulSet. */
export const statefulSetOf = (pod: Pod): OwnerReference | undefined => appsControllerOf(pod, 'StatefulSet');

/** Why the StatefulSet keeps the pod after all, or undefined while it wants it deleted (or is gone). */
export async function readStatefulSetKeeps(client: KubeClient, pod: Pod, owner: OwnerReference): Promise<string | undefined> {
  const set = await unlessNotFound(client.get<StatefulSet>(STATEFULSETS, pod.metadata.namespace ?? '', owner.name));
  return set?.metadata.uid === owner.uid ? statefulSetKeeps(set, pod) : undefined;
}
