// Whether a pod marked to leave (`to-delete`) begins its pod-delete lifecycle now, the one decision GraceDelete's
// webhook (which begins it in the same write as the mark, when it can) and the pod-deletion controller (which
// begins it otherwise, or brings the pod back) share. No two decisions take the room of one pod: a scale-down
// counts the pods leaving its ReplicaSet, a user's delete the room of the pod's PodDisruptionBudgets, and both
// count, beside the shared caches (which hold this process's own writes once they are answered), the pods decided
// a moment ago whose writes are still on their way. A decision is taken without waiting, so the webhook's answers
// to a ReplicaSet controller deleting dozens of pods at once never queue behind each other's writes.
//
// Webhooks of several podops replicas decide apart: two could begin two pods of one ReplicaSet for one pod's room.
// The pod-deletion controller, on the leader, then brings the surplus one back.

import type { OwnerReference, Pod } from '../api/kube.ts';
import { leavesForScaleDown, leavesForStatefulSet, scaleDown } from '../lifecycle/scale-down.ts';
import type { Nanos } from '../lifecycle/time.ts';
import { begin, OperationTypeConflictError, podDeleteAdapter } from '../sdk/operation.ts';
import { budgetsRefuse } from './budgets.ts';
import { replicaSetOf, statefulSetOf, type WorkloadReads } from './workloads.ts';

export type LeavingDecision =
  /** Begin the pod-delete lifecycle: `begun` is the pod with it begun (itself when it already runs). */
  | { begin: true; begun: Pod }
  /** Its workload keeps the pod after all: withdraw the mark. */
  | { begin: false; kept: string }
  /** Not yet: a budget of the pod has no room. */
  | { begin: false; waitFor: string };

export class LeavingDecisions {
  readonly #workloads: WorkloadReads;
  /** By uid: the pods decided to begin whose writes are not answered yet, as they will be stored. */
  readonly #inFlight = new Map<string, Pod>();

  constructor(workloads: WorkloadReads) {
    this.#workloads = workloads;
  }

  /**
   * Decides for the marked pod `current()` gives (read when the decision is taken: it may be the mark about to be
   * written) and runs `act` with it and the decision; until `act` ends, a pod decided to begin counts as leaving
   * for every other decision.
   */
  async decide<T>(pod: Pod, now: Nanos, act: (pod: Pod, decision: LeavingDecision) => Promise<T>, current: () => Pod = () => pod): Promise<T> {
    const owner = leavesForScaleDown(pod) ? replicaSetOf(pod) : undefined;
    const replicaSet = owner && (await this.#workloads.replicaSet(pod.metadata.namespace ?? '', owner));
    // From here to act, nothing waits: the decision and its place among the pods in flight are one step.
    const candidate = current();
    const scaleDown = owner && { owner, replicaSet: replicaSet && { replicas: replicaSet.spec?.replicas ?? 1, uid: replicaSet.metadata.uid ?? '' } };
    const decision = this.#decision(candidate, now, scaleDown);
    const uid = candidate.metadata.uid ?? '';
    if (decision.begin) this.#inFlight.set(uid, decision.begun);
    try {
      return await act(candidate, decision);
    } finally {
      if (decision.begin && this.#inFlight.get(uid) === decision.begun) this.#inFlight.delete(uid);
    }
  }

  /** For a scale-down's pod, its ReplicaSet (undefined once gone: then the pod goes). */
  #decision(pod: Pod, now: Nanos, scaleDown: { owner: OwnerReference; replicaSet: { replicas: number; uid: string } | undefined } | undefined): LeavingDecision {
    if (scaleDown?.replicaSet) {
      const kept = this.#surplus(pod, scaleDown.owner, scaleDown.replicaSet);
      if (kept) return { begin: false, kept };
    }
    const statefulSet = leavesForStatefulSet(pod) ? statefulSetOf(pod) : undefined;
    if (statefulSet) {
      const kept = this.#workloads.statefulSetKeeps(pod, statefulSet);
      if (kept) return { begin: false, kept };
    }
    if (!scaleDown && !statefulSet) {
      const refused = budgetsRefuse(this.#workloads.caches, pod, (p) => this.#inFlight.get(p.metadata.uid ?? '') ?? p);
      if (refused) return { begin: false, waitFor: refused };
    }
    return { begin: true, begun: begun(pod, now) };
  }

  /** Why a pod marked for its ReplicaSet's scale-down is not needed to leave: the pods leaving before it cover the excess. */
  #surplus(pod: Pod, owner: OwnerReference, { replicas, uid }: { replicas: number; uid: string }): string | undefined {
    const pods = this.#workloads
      .podsOf({ metadata: { uid } })
      .filter((p) => p.metadata.uid !== pod.metadata.uid)
      .map((p) => this.#inFlight.get(p.metadata.uid ?? '') ?? p);
    const { excess, leaving, surplus } = scaleDown(replicas, [...pods, pod]);
    if (!surplus.some((p) => p.metadata.uid === pod.metadata.uid)) return undefined;
    const before = leaving.filter((p) => !surplus.includes(p)).map((p) => p.metadata.name);
    return `ReplicaSet ${owner.name} has ${excess} pod(s) beyond its ${replicas} replicas and ${before.join(', ') || 'no pod'} already leaving`;
  }
}

/** The marked pod with its pod-delete lifecycle begun; only marked when another lifecycle of that type runs already. */
function begun(pod: Pod, now: Nanos): Pod {
  try {
    return begin(podDeleteAdapter, pod, now).pod;
  } catch (err) {
    if (err instanceof OperationTypeConflictError) return pod;
    throw err;
  }
}
