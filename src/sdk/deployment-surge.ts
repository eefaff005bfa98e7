// A Deployment's ReplicaSets and pods, read live from the API server for its surge bound (two creates in a row
// must each see the other's pod), and the nudge that sends a ReplicaSet whose create was refused back to work
// as soon as a held pod is deleted: the ReplicaSet controller retries a failed sync with a backoff that doubles
// with each failure, so after a long hold it would wait about as long again.

import type { Deployment, OwnerReference, Pod, ReplicaSet } from '../api/kube.ts';
import { HELD_POD_DELETED_ANNOTATION } from '../api/protocol.ts';
import { labelSelectorString } from '../api/selector.ts';
import { unlessNotFound, type KubeClient } from '../kube/client.ts';
import { DEPLOYMENTS, PODS, REPLICASETS } from '../kube/resources.ts';
import { deploymentOf, replicaSetsAwaitingRoom } from '../lifecycle/surge.ts';
import type { Nanos } from '../lifecycle/time.ts';
import { readReplicaSet } from './replica-set-scale-down.ts';

/** The Deployment controlling the ReplicaSet the reference names; undefined when there is none. */
export async function readDeploymentOf(client: KubeClient, namespace: string, replicaSetOwner: OwnerReference): Promise<Deployment | undefined> {
  const replicaSet = await readReplicaSet(client, namespace, replicaSetOwner);
  const owner = replicaSet && deploymentOf(replicaSet);
  if (!owner) return undefined;
  const deployment = await unlessNotFound(client.get<Deployment>(DEPLOYMENTS, namespace, owner.name));
  return deployment?.metadata.uid === owner.uid ? deployment : undefined;
}

const selectedBy = (deployment: Deployment) => ({ namespace: deployment.metadata.namespace ?? '', labelSelector: labelSelectorString(deployment.spec?.selector ?? {}) });

/** The ReplicaSets and pods the Deployment's selector selects (whose they are, the pure core tells by owner). */
export async function readDeploymentPods(client: KubeClient, deployment: Deployment): Promise<{ replicaSets: ReplicaSet[]; pods: Pod[] }> {
  const [replicaSets, pods] = await Promise.all([client.list<ReplicaSet>(REPLICASETS, selectedBy(deployment)), client.list<Pod>(PODS, selectedBy(deployment))]);
  return { replicaSets: replicaSets.items, pods: pods.items };
}

/** After a pod of a ReplicaSet's Deployment was deleted: nudges the Deployment's ReplicaSets whose create failed; their names. */
export async function nudgeReplicaSetsAwaitingRoom(client: KubeClient, namespace: string, replicaSetOwner: OwnerReference, at: Nanos): Promise<string[]> {
  const deployment = await readDeploymentOf(client, namespace, replicaSetOwner);
  if (!deployment) return [];
  const awaiting = replicaSetsAwaitingRoom(deployment, (await client.list<ReplicaSet>(REPLICASETS, selectedBy(deployment))).items);
  const nudged: string[] = [];
  for (const replicaSet of awaiting) {
    const name = replicaSet.metadata.name ?? '';
    const patched = await unlessNotFound(client.patch(REPLICASETS, namespace, name, 'merge', { metadata: { annotations: { [HELD_POD_DELETED_ANNOTATION]: at.toString() } } }));
    if (patched) nudged.push(name);
  }
  return nudged;
}
