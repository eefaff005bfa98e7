// What a ReplicaSet's scale-down still asks for. The ReplicaSet controller deletes `active - replicas` pods and,
// when GraceDelete refuses a delete, tries again, possibly on another pod: without a count, each refused pod
// would start a pod-delete lifecycle of its own and leave, more than the scale-down asked. So a deletion asked
// by the ReplicaSet controller is wanted only while the pods already leaving do not cover the excess; pods a
// user deletes always leave, and count towards it. Marks come from webhook calls that may run at once; what
// binds is the lifecycle: the pod-deletion controller begins a scale-down pod's lifecycle (the step that can
// take it out of traffic) only when it is not surplus, one ReplicaSet at a time.

import type { Pod } from '../api/kube.ts';
import { GRACE_DELETE_REQUESTED_BY_ANNOTATION, POD_DELETE_LIFECYCLE_ID, REPLICASET_CONTROLLER_USERS, TO_DELETE_LABEL, idLabelKey } from '../api/protocol.ts';
import { isActive } from './pod.ts';

const isLeaving = (pod: Pod): boolean => pod.metadata.labels?.[TO_DELETE_LABEL] !== undefined;

/** Whether the pod leaves because its ReplicaSet controller deleted it (a scale-down), not a user. */
export const leavesForScaleDown = (pod: Pod): boolean => REPLICASET_CONTROLLER_USERS.includes(pod.metadata.annotations?.[GRACE_DELETE_REQUESTED_BY_ANNOTATION] ?? '');

/** The pod-delete lifecycle has begun: from then on the pod may be out of traffic. */
const begun = (pod: Pod): boolean => pod.metadata.labels?.[idLabelKey('operation-type', POD_DELETE_LIFECYCLE_ID)] !== undefined;

/**
 * Which leaving pods go first: those whose lifecycle has begun (marks come from concurrent webhook calls, and a
 * later-stored mark may carry an earlier time), then by the time of the mark, then by name.
 */
const inLeavingOrder = (a: Pod, b: Pod): number => {
  if (begun(a) !== begun(b)) return begun(a) ? -1 : 1;
  const at = (pod: Pod): bigint => BigInt(/^\d+$/.test(pod.metadata.labels?.[TO_DELETE_LABEL] ?? '') ? pod.metadata.labels![TO_DELETE_LABEL]! : '0');
  const diff = at(a) - at(b);
  return diff !== 0n ? (diff < 0n ? -1 : 1) : (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
};

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
  const leaving = active.filter(isLeaving).sort(inLeavingOrder);
  // Users' deletions go first: they leave whatever the count says.
  const byUsers = leaving.filter((pod) => !leavesForScaleDown(pod));
  const forScaleDown = leaving.filter(leavesForScaleDown);
  return { excess, leaving, surplus: forScaleDown.slice(Math.max(0, excess - byUsers.length)) };
}

/** Whether one more pod should start leaving for the scale-down (the ReplicaSet controller's delete of a pod not leaving yet). */
export const scaleDownWantsMore = ({ excess, leaving }: ScaleDown): boolean => leaving.length < excess;
