// The scale-down of a pod's ReplicaSet, read live from the API server (not a cache: two refused deletes in a
// row must each see the other's pod leaving).

import { appsControllerOf, type OwnerReference, type Pod, type ReplicaSet } from '../api/kube.ts';
import { labelSelectorString } from '../api/selector.ts';
import { unlessNotFound, type KubeClient } from '../kube/client.ts';
import { PODS, REPLICASETS } from '../kube/resources.ts';
import { scaleDown, type ScaleDown } from '../lifecycle/scale-down.ts';

/** The pod's controller, when it is a ReplicaSet. */
export const replicaSetOf = (pod: Pod): OwnerReference | undefined => appsControllerOf(pod, 'ReplicaSet');

/** The ReplicaSet an owner reference names, or undefined when it is gone (or is another one by that name). */
export async function readReplicaSet(client: KubeClient, namespace: string, owner: OwnerReference): Promise<ReplicaSet | undefined> {
  const replicaSet = await unlessNotFound(client.get<ReplicaSet>(REPLICASETS, namespace, owner.name));
  return replicaSet?.metadata.uid === owner.uid ? replicaSet : undefined;
}

/** The ReplicaSet's scale-down, or undefined when the ReplicaSet is gone (or is another one by that name). */
export async function readScaleDown(client: KubeClient, namespace: string, owner: OwnerReference): Promise<(ScaleDown & { replicas: number }) | undefined> {
  const replicaSet = await readReplicaSet(client, namespace, owner);
  if (!replicaSet) return undefined;
  const listed = await client.list<Pod>(PODS, { namespace, labelSelector: labelSelectorString(replicaSet.spec?.selector ?? {}) });
  const owned = listed.items.filter((pod) => pod.metadata.ownerReferences?.some((o) => o.controller === true && o.uid === owner.uid));
  const replicas = replicaSet.spec?.replicas ?? 1;
  return { replicas, ...scaleDown(replicas, owned) };
}
