// Whether a workload controller's deletion, held by GraceDelete, is still wanted.
//
// A ReplicaSet's scale-down: the ReplicaSet controller deletes `active - replicas` pods and, when GraceDelete
// refuses a delete, tries again, possibly on another pod: without a count, each refused pod would start a
// pod-delete lifecycle of its own and leave, more than the scale-down asked. So a deletion asked by the
// ReplicaSet controller is wanted only while the pods already leaving do not cover the excess; pods a user
// deletes always leave, and count towards it. Marks come from webhook calls that may run at once; what binds is
// the lifecycle: the pod-deletion controller begins a scale-down pod's lifecycle (the step that can take it out
// of traffic) only when it is not surplus, one ReplicaSet at a time.
//
// A StatefulSet's: its controller names the pod it means (an ordinal beyond the replicas, or a pod at an old
// revision in a rolling update), so one delete marks one pod; but the reason can go away while the pod is held
// (scaled back up, rolled back), and then the pod stays.

import { CONTROLLER_REVISION_HASH_LABEL, type Pod, type StatefulSet } from '../api/kube.ts';
import { GRACE_DELETE_REQUESTED_BY_ANNOTATION, POD_DELETE_LIFECYCLE_ID, REPLICASET_CONTROLLER_USERS, STATEFULSET_CONTROLLER_USERS, TO_DELETE_LABEL, idLabelKey } from '../api/protocol.ts';
import { isActive } from './pod.ts';

const requestedBy = (pod: Pod): string => pod.metadata.annotations?.[GRACE_DELETE_REQUESTED_BY_ANNOTATION] ?? '';

/**
 * kube-controller-manager's own identity, which every one of its controllers writes as when they do not have
 * their own credentials (`--use-service-account-credentials=false`): the ReplicaSet and StatefulSet controllers,
 * but also the garbage collector and the taint-eviction controller.
 */
export const SHARED_CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';
/** Who is recorded as asking for a delete by that identity which the pod's workload does not want: another of its controllers. */
export const OTHER_CONTROLLER_REQUESTER = `${SHARED_CONTROLLER_MANAGER_USER} (not the workload's controller)`;

/**
 * Who to record as asking for a pod's deletion: the request's user, except that the shared identity stands for
 * the pod's workload controller only while the workload wants the pod gone (a ReplicaSet with pods beyond its
 * replicas, a StatefulSet that no longer keeps the pod); otherwise another controller asked (a garbage
 * collection, a taint eviction), and the pod leaves as for a user's delete.
 */
export const deletionRequester = (username: string, wantedByWorkload: boolean): string =>
  username === SHARED_CONTROLLER_MANAGER_USER && !wantedByWorkload ? OTHER_CONTROLLER_REQUESTER : username;

/** Whether a delete came from a workload controller, which asks for a count or a reason, not for the pod itself. */
export const isWorkloadController = (user: string): boolean => REPLICASET_CONTROLLER_USERS.includes(user) || STATEFULSET_CONTROLLER_USERS.includes(user);

/** Marked to leave by GraceDelete (`to-delete`), whoever asked. */
export const markedForDeletion = (pod: Pod): boolean => pod.metadata.labels?.[TO_DELETE_LABEL] !== undefined;

/** Whether the pod leaves because its ReplicaSet controller deleted it (a scale-down), not a user. */
export const leavesForScaleDown = (pod: Pod): boolean => REPLICASET_CONTROLLER_USERS.includes(requestedBy(pod));

/** Whether the pod leaves because its StatefulSet controller deleted it (a scale-in or a rolling update), not a user. */
export const leavesForStatefulSet = (pod: Pod): boolean => STATEFULSET_CONTROLLER_USERS.includes(requestedBy(pod));

const BEGUN_LABEL = idLabelKey('operation-type', POD_DELETE_LIFECYCLE_ID);

/** The pod-delete lifecycle has begun: from then on the pod may be out of traffic. */
const begun = (pod: Pod): boolean => pod.metadata.labels?.[BEGUN_LABEL] !== undefined;

/**
 * Leaving pods in the order they go: those whose lifecycle has begun (marks come from concurrent webhook calls,
 * and a later-stored mark may carry an earlier time), then by the time of the mark, then by name. The keys are
 * read once per pod: a large scale-down sorts often.
 */
function inLeavingOrder(pods: readonly Pod[]): Pod[] {
  const keyed = pods.map((pod) => {
    const mark = pod.metadata.labels?.[TO_DELETE_LABEL] ?? '';
    return { pod, begun: begun(pod), at: /^\d+$/.test(mark) ? BigInt(mark) : 0n, name: pod.metadata.name ?? '' };
  });
  keyed.sort((a, b) => (a.begun !== b.begun ? (a.begun ? -1 : 1) : a.at !== b.at ? (a.at < b.at ? -1 : 1) : a.name.localeCompare(b.name)));
  return keyed.map((k) => k.pod);
}

export interface ScaleDown {
  /** How many pods the ReplicaSet has beyond its replicas. */
  excess: number;
  /** Pods marked to leave (not yet terminating): those whose pod-delete lifecycle began first, then in the order asked. */
  leaving: Pod[];
  /** Of those asked by the ReplicaSet controller, the ones beyond the excess: to be brought back, not begun. */
  surplus: Pod[];
}

/** The scale-down of a ReplicaSet of `replicas`, from its pods. */
export function scaleDown(replicas: number, pods: readonly Pod[]): ScaleDown {
  const active = pods.filter(isActive);
  const excess = Math.max(0, active.length - replicas);
  const leaving = inLeavingOrder(active.filter(markedForDeletion));
  // Users' deletions go first: they leave whatever the count says.
  const byUsers = leaving.filter((pod) => !leavesForScaleDown(pod));
  const forScaleDown = leaving.filter(leavesForScaleDown);
  return { excess, leaving, surplus: forScaleDown.slice(Math.max(0, excess - byUsers.length)) };
}

/** Whether one more pod should start leaving for the scale-down (the ReplicaSet controller's delete of a pod not leaving yet). */
export const scaleDownWantsMore = ({ excess, leaving }: ScaleDown): boolean => leaving.length < excess;


/**
 * Why the StatefulSet controller no longer wants its pod deleted, or undefined while it does: the pod's ordinal
 * is outside the set's range (a scale-in), the pod finished (it is replaced), or, in a RollingUpdate, the pod is at
 * or above the partition with a revision other than the update revision. A set whose status is behind its spec
 * (the controller deletes before it writes its status) cannot tell yet: the deletion stands until it can.
 */
export function statefulSetKeeps(set: StatefulSet, pod: Pod): string | undefined {
  const setName = set.metadata.name ?? '';
  const match = /^(.*)-(\d+)$/.exec(pod.metadata.name ?? '');
  if (!match || match[1] !== setName) return undefined;
  if ((set.status?.observedGeneration ?? 0) < (set.metadata.generation ?? 0)) return undefined;
  const index = Number(match[2]) - (set.spec?.ordinals?.start ?? 0);
  const replicas = set.spec?.replicas ?? 1;
  if (index < 0 || index >= replicas || !isActive(pod)) return undefined;
  const revision = pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL];
  const updateRevision = set.status?.updateRevision;
  const rolling = (set.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  const partition = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  if (rolling && index >= partition && (revision === undefined || updateRevision === undefined || revision !== updateRevision)) return undefined;
  return `StatefulSet ${setName} has ${replicas} replicas and ${pod.metadata.name} is ${rolling && index >= partition ? `at its update revision ${updateRevision}` : 'not due for an update'}`;
}
