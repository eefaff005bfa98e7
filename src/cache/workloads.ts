// The workload facts GraceDelete, the surge bound and the pod-deletion controller decide on, read from the
// shared caches: a pod's ReplicaSet and its scale-down, a Deployment's ReplicaSets and pods, whether a
// StatefulSet still wants its pod gone. The pure core decides (src/lifecycle/scale-down.ts, surge.ts).
//
// Reads are from the caches, which this process's own writes reach at once (Informer.assume), so two decisions
// in a row see each other. A live GET stays where the cache cannot know yet: an object an owner reference names
// that the cache does not hold with that uid (a ReplicaSet created a moment ago).

import { appsControllerOf, type Deployment, type OwnerReference, type Pod, type ReplicaSet, type StatefulSet } from '../api/kube.ts';
import { unlessNotFound, type KubeClient } from '../kube/client.ts';
import type { Informer } from '../kube/informer.ts';
import { DEPLOYMENTS, REPLICASETS, type ResourceType } from '../kube/resources.ts';
import { scaleDown, statefulSetKeeps, type ScaleDown } from '../lifecycle/scale-down.ts';
import { deploymentOf } from '../lifecycle/surge.ts';
import { CONTROLLER_INDEX, type ClusterCaches } from './cluster-cache.ts';

/** The pod's controller, when it is a ReplicaSet. */
export const replicaSetOf = (pod: Pod): OwnerReference | undefined => appsControllerOf(pod, 'ReplicaSet');

/** The pod's controller, when it is a StatefulSet. */
export const statefulSetOf = (pod: Pod): OwnerReference | undefined => appsControllerOf(pod, 'StatefulSet');

type Named = { metadata: { uid?: string; resourceVersion?: string } };

/**
 * The object `owner` names: from the cache when it holds it with that uid; otherwise read live, since an owner
 * reference only names what exists or existed (a cache that lacks it is behind). Undefined when it is gone or is
 * another object by that name now. What is read live is assumed into the cache
 * (it then shows the newer object at once).
 */
async function ownerNamed<T extends Named>(informer: Informer<T>, client: KubeClient, type: ResourceType, namespace: string, owner: OwnerReference): Promise<T | undefined> {
  const cached = informer.get(namespace, owner.name);
  if (cached?.metadata.uid === owner.uid) return cached;
  // Cached under another uid: gone and made again, or the cache is behind a delete and create.
  const live = await unlessNotFound(client.get<T>(type, namespace, owner.name));
  if (live?.metadata.uid !== owner.uid) return undefined;
  informer.assume(live);
  return live;
}

export class WorkloadReads {
  readonly caches: ClusterCaches;
  readonly #client: KubeClient;

  constructor(caches: ClusterCaches, client: KubeClient) {
    this.caches = caches;
    this.#client = client;
  }

  /** The ReplicaSet an owner reference of a pod names. */
  replicaSet(namespace: string, owner: OwnerReference): Promise<ReplicaSet | undefined> {
    return ownerNamed(this.caches.replicaSets, this.#client, REPLICASETS, namespace, owner);
  }

  /** The Deployment controlling a ReplicaSet, if it has one. */
  async deploymentOf(replicaSet: ReplicaSet): Promise<Deployment | undefined> {
    const owner = deploymentOf(replicaSet);
    return owner && ownerNamed(this.caches.deployments, this.#client, DEPLOYMENTS, replicaSet.metadata.namespace ?? '', owner);
  }

  /** The Deployment a pod's ReplicaSet belongs to. */
  async deploymentOfPod(namespace: string, replicaSetOwner: OwnerReference): Promise<Deployment | undefined> {
    const replicaSet = await this.replicaSet(namespace, replicaSetOwner);
    return replicaSet && this.deploymentOf(replicaSet);
  }

  /** The Deployment's ReplicaSets and the controlled pods they own (the others count by number: surge.ts). */
  deploymentFamily(deployment: Deployment, also: readonly ReplicaSet[] = []): { replicaSets: ReplicaSet[]; pods: Pod[] } {
    const cached = this.caches.replicaSets.byIndex(CONTROLLER_INDEX, deployment.metadata.uid ?? '');
    const replicaSets = [...cached, ...also.filter((rs) => !cached.some((c) => c.metadata.uid === rs.metadata.uid))];
    return { replicaSets, pods: replicaSets.flatMap((rs) => this.podsOf(rs)) };
  }

  /** The controlled pods a ReplicaSet or StatefulSet controls. */
  podsOf(owner: { metadata: { uid?: string } }): Pod[] {
    return this.caches.pods.byIndex(CONTROLLER_INDEX, owner.metadata.uid ?? '');
  }

  /** The scale-down of the pod's ReplicaSet; undefined when the ReplicaSet is gone (or is another one by that name). */
  async scaleDown(namespace: string, owner: OwnerReference): Promise<(ScaleDown & { replicas: number }) | undefined> {
    const replicaSet = await this.replicaSet(namespace, owner);
    if (!replicaSet) return undefined;
    const replicas = replicaSet.spec?.replicas ?? 1;
    return { replicas, ...scaleDown(replicas, this.podsOf(replicaSet)) };
  }

  /** Why the pod's StatefulSet keeps it after all, or undefined while it wants it deleted (or is gone). */
  statefulSetKeeps(pod: Pod, owner: OwnerReference): string | undefined {
    const set: StatefulSet | undefined = this.caches.statefulSets.get(pod.metadata.namespace, owner.name);
    return set?.metadata.uid === owner.uid ? statefulSetKeeps(set, pod) : undefined;
  }
}
