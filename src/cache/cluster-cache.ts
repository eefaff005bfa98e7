// The operator's shared informer caches, as controller-runtime's manager holds them: every kind podops reads
// to decide on a pod operation (in its webhooks and its controllers alike) is listed once, watched, trimmed to
// what is read, and indexed, so a decision costs the API server nothing. Pods are the controlled ones only; the
// other kinds are cluster-wide, small once trimmed.

import type { Deployment, Node, Pod, ReplicaSet, Service, StatefulSet } from '../api/kube.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE } from '../api/protocol.ts';
import type { KubeClient } from '../kube/client.ts';
import { Informer } from '../kube/informer.ts';
import type { Logger } from '../kube/log.ts';
import { DEPLOYMENTS, NODES, PODDISRUPTIONBUDGETS, PODS, REPLICASETS, SERVICES, STATEFULSETS } from '../kube/resources.ts';
import type { PodDisruptionBudget } from '../lifecycle/eviction.ts';
import { replicaSetKept, trimDeployment, trimNode, trimPod, trimPodDisruptionBudget, trimReplicaSet, trimService, trimStatefulSet } from './trim.ts';

/** Pods and ReplicaSets by the uid of their controller (a ReplicaSet's pods, a Deployment's ReplicaSets). */
export const CONTROLLER_INDEX = 'controller-uid';

/** The CONTROLLER_INDEX indexer. */
export const controlledBy = (object: { metadata: { ownerReferences?: { controller?: boolean; uid: string }[] } }): string[] =>
  (object.metadata.ownerReferences ?? []).filter((owner) => owner.controller === true).map((owner) => owner.uid);

export type NamedPodDisruptionBudget = PodDisruptionBudget & { metadata: { name?: string; namespace?: string } };

export interface ClusterCaches {
  /** Controlled pods (`kusionstack.io/control=true`). */
  pods: Informer<Pod>;
  /** ReplicaSets making controlled pods, and the others while they have pods. */
  replicaSets: Informer<ReplicaSet>;
  deployments: Informer<Deployment>;
  statefulSets: Informer<StatefulSet>;
  nodes: Informer<Node>;
  podDisruptionBudgets: Informer<NamedPodDisruptionBudget>;
  services: Informer<Service>;
}

export function clusterCaches(client: KubeClient, logger?: Logger): ClusterCaches {
  const common = { client, ...(logger && { logger }) };
  const pods = new Informer<Pod>({ ...common, type: PODS, labelSelector: `${CONTROL_LABEL}=${CONTROL_LABEL_VALUE}`, transform: trimPod });
  const replicaSets = new Informer<ReplicaSet>({ ...common, type: REPLICASETS, transform: trimReplicaSet, keep: replicaSetKept });
  pods.addIndexer(CONTROLLER_INDEX, controlledBy);
  replicaSets.addIndexer(CONTROLLER_INDEX, controlledBy);
  return {
    pods,
    replicaSets,
    deployments: new Informer<Deployment>({ ...common, type: DEPLOYMENTS, transform: trimDeployment }),
    statefulSets: new Informer<StatefulSet>({ ...common, type: STATEFULSETS, transform: trimStatefulSet }),
    nodes: new Informer<Node>({ ...common, type: NODES, transform: trimNode }),
    podDisruptionBudgets: new Informer<NamedPodDisruptionBudget>({ ...common, type: PODDISRUPTIONBUDGETS, transform: trimPodDisruptionBudget }),
    services: new Informer<Service>({ ...common, type: SERVICES, transform: trimService }),
  };
}

/** The caches by name, as the manager runs them. */
export const namedCaches = (caches: ClusterCaches): [string, Informer<never>][] =>
  Object.entries(caches).map(([kind, informer]) => [`${kind.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}-informer`, informer as Informer<never>]);

/** Well inside a webhook's timeout (10 s). */
const SYNC_WAIT_MS = 3000;

/** Why a decision waits: the caches are not filled yet. */
export const CACHES_NOT_SYNCED = 'podops is starting: its caches are not synced yet; retry';

/** Whether every cache has synced, waiting briefly for them (a starting podops). */
export async function cachesSynced(caches: ClusterCaches): Promise<boolean> {
  const informers = Object.values(caches) as Informer<never>[];
  if (informers.every((informer) => informer.hasSynced())) return true;
  const signal = AbortSignal.timeout(SYNC_WAIT_MS);
  await Promise.all(informers.map((informer) => informer.waitForSync(signal)));
  return informers.every((informer) => informer.hasSynced());
}
