// The surge bound of a Deployment's rolling update with GraceDelete: never more than `replicas + maxSurge` pods
// that are not terminating. The Deployment controller bounds the sum of its ReplicaSets' replicas, not their
// pods: a pod GraceDelete holds (marked to leave, still running until its lifecycle lets it go) stays active
// while the new ReplicaSet creates its replacement, and so does an old pod whose ReplicaSet was scaled down but
// not yet deleted by the ReplicaSet controller (the controllers' own race, which shows without podops too). So
// a create of a Deployment's pod by the ReplicaSet controller is admitted only while the Deployment's active
// pods, with those admitted but not stored yet, stay below the bound; a refused create is retried by the
// ReplicaSet controller, and a ReplicaSet whose create failed is nudged when a held pod is deleted.

import { appsControllerOf, resolveIntOrPercent, type Deployment, type OwnerReference, type Pod, type ReplicaSet } from '../api/kube.ts';
import { REPLICASET_CONTROLLER_USERS } from '../api/protocol.ts';
import { wantsEviction } from './eviction.ts';
import { isActive, isControlled, makesControlledPods } from './pod.ts';
import { markedForDeletion } from './scale-down.ts';

/** The ReplicaSet's controlling Deployment, if it has one. */
export const deploymentOf = (replicaSet: ReplicaSet): OwnerReference | undefined => appsControllerOf(replicaSet, 'Deployment');

/** Whether a pod create is held to its Deployment's surge bound: a controlled pod, made by the ReplicaSet controller. */
export const subjectToSurgeBound = (pod: Pod, username: string): boolean => isControlled(pod) && appsControllerOf(pod, 'ReplicaSet') !== undefined && REPLICASET_CONTROLLER_USERS.includes(username);

/** replicas + maxSurge of a RollingUpdate Deployment; undefined for Recreate, which never surges. */
export function surgeLimit(deployment: Deployment): number | undefined {
  const spec = deployment.spec;
  if ((spec?.strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return undefined;
  const replicas = spec?.replicas ?? 1;
  return replicas + resolveIntOrPercent(spec?.strategy?.rollingUpdate?.maxSurge, replicas, true, '25%');
}

/**
 * The active pods of the Deployment's ReplicaSets that make controlled pods, and how many active pods its other
 * ReplicaSets report (their pods, not controlled, are not among `pods`: counted by number, as the ReplicaSet says).
 */
function activePods(deployment: Deployment, replicaSets: readonly ReplicaSet[], pods: readonly Pod[]): { active: Pod[]; uncontrolled: number } {
  const owned = replicaSets.filter((rs) => deploymentOf(rs)?.uid === deployment.metadata.uid);
  const controlled = new Set(owned.filter(makesControlledPods).map((rs) => rs.metadata.uid));
  const uncontrolled = owned.filter((rs) => !makesControlledPods(rs)).reduce((sum, rs) => sum + (rs.status?.replicas ?? 0), 0);
  return { active: pods.filter((pod) => isActive(pod) && pod.metadata.ownerReferences?.some((owner) => owner.controller === true && controlled.has(owner.uid))), uncontrolled };
}

/** The names of pods admitted for creation that the listed pods do not show yet: still on their way to storage. */
export const notYetStored = (admitted: Iterable<string>, pods: readonly Pod[]): string[] => {
  const stored = new Set(pods.map((pod) => pod.metadata.name));
  return [...admitted].filter((name) => !stored.has(name));
};

export interface CreationRoom {
  allowed: boolean;
  /** Why not, for the refusal the ReplicaSet controller records. */
  why: string;
}

/**
 * Whether the Deployment has room for one more pod: its active pods and the `pending` creations admitted but not
 * stored yet stay below replicas + maxSurge. `pods` are the controlled ones (what podops caches); the pods of a
 * ReplicaSet whose template is not controlled count by its status. A Recreate Deployment always has room (its controller waits for the
 * old pods to be gone before it creates).
 */
export function creationRoom(deployment: Deployment, replicaSets: readonly ReplicaSet[], pods: readonly Pod[], pending: number): CreationRoom {
  const limit = surgeLimit(deployment);
  if (limit === undefined) return { allowed: true, why: '' };
  const { active, uncontrolled } = activePods(deployment, replicaSets, pods);
  const counted = active.length + uncontrolled + pending;
  if (counted < limit) return { allowed: true, why: '' };
  const leaving = active.filter((pod) => markedForDeletion(pod) || wantsEviction(pod)).length;
  const replicas = deployment.spec?.replicas ?? 1;
  return {
    allowed: false,
    why:
      `Deployment ${deployment.metadata.name ?? ''} has ${active.length + uncontrolled} pods not terminating` +
      `${pending > 0 ? ` and ${pending} being created` : ''}${leaving > 0 ? `, ${leaving} of them leaving through PodOpsLifecycle` : ''}; ` +
      `replicas ${replicas} + maxSurge ${limit - replicas} allow ${limit}: the pod is created once one is gone`,
  };
}

/**
 * The ReplicaSet's last sync failed and it still has pods to create: it waits out a backoff before it tries again.
 * Its ReplicaFailure condition keeps the reason of the first failure (kube-controller-manager sets it only when it
 * is absent): an old ReplicaSet whose deletes GraceDelete refused says FailedDelete even once it is scaled back up
 * and its creates are refused, so fewer pods than its replicas tell that case.
 */
const createFailed = (replicaSet: ReplicaSet): boolean =>
  replicaSet.status?.conditions?.some(
    (c) => c.type === 'ReplicaFailure' && c.status === 'True' && (c.reason === 'FailedCreate' || (replicaSet.status?.replicas ?? 0) < (replicaSet.spec?.replicas ?? 0)),
  ) ?? false;

/** The Deployment's ReplicaSets to nudge when one of its pods has gone: those whose create failed. */
export const replicaSetsAwaitingRoom = (deployment: Deployment, replicaSets: readonly ReplicaSet[]): ReplicaSet[] =>
  replicaSets.filter((rs) => deploymentOf(rs)?.uid === deployment.metadata.uid && createFailed(rs));
