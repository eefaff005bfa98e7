// Whether a pod marked to leave (`to-delete`) begins its pod-delete lifecycle now, the one decision GraceDelete's
// webhook (which begins it in the same write as the mark, when it can) and the pod-deletion controller (which
// begins it otherwise, or brings the pod back) share. A scale-down's pods are decided one ReplicaSet at a time, so
// no two take the room of one pod; a user's deletes one namespace at a time, so no two take a budget's last room.
// Decisions read the shared caches, which hold this process's own writes at once.
//
// Webhooks of several podops replicas decide apart: two could begin two pods of one ReplicaSet for one pod's room.
// The pod-deletion controller, on the leader, then brings the surplus one back.

import type { OwnerReference, Pod } from '../api/kube.ts';
import { KeySerializer } from '../kube/key-serializer.ts';
import { leavesForScaleDown, leavesForStatefulSet, scaleDown } from '../lifecycle/scale-down.ts';
import { budgetsRefuse } from './budgets.ts';
import { replicaSetOf, statefulSetOf, type WorkloadReads } from './workloads.ts';

export type LeavingDecision =
  /** Begin the pod-delete lifecycle. */
  | { begin: true }
  /** Its workload keeps the pod after all: withdraw the mark. */
  | { begin: false; kept: string }
  /** Not yet: a budget of the pod has no room. */
  | { begin: false; waitFor: string };

export class LeavingDecisions {
  readonly #workloads: WorkloadReads;
  readonly #serializer = new KeySerializer();

  constructor(workloads: WorkloadReads) {
    this.#workloads = workloads;
  }

  /**
   * Decides for the marked pod `current()` gives (read when its turn comes: it may be the mark about to be
   * written) and runs `act` with it and the decision, after every earlier decision of the same ReplicaSet or
   * namespace (those of `pod`) has acted.
   */
  decide<T>(pod: Pod, act: (pod: Pod, decision: LeavingDecision) => Promise<T>, current: () => Pod = () => pod): Promise<T> {
    const replicaSet = leavesForScaleDown(pod) ? replicaSetOf(pod) : undefined;
    if (replicaSet) {
      return this.#serializer.run(`rs:${replicaSet.uid}`, async () => {
        const now = current();
        return act(now, await this.#scaleDown(now, replicaSet));
      });
    }
    const statefulSet = leavesForStatefulSet(pod) ? statefulSetOf(pod) : undefined;
    if (statefulSet) {
      const now = current();
      const kept = this.#workloads.statefulSetKeeps(now, statefulSet);
      return act(now, kept ? { begin: false, kept } : { begin: true });
    }
    return this.#serializer.run(`ns:${pod.metadata.namespace ?? ''}`, () => {
      const now = current();
      const refused = budgetsRefuse(this.#workloads.caches, now);
      return act(now, refused ? { begin: false, waitFor: refused } : { begin: true });
    });
  }

  /** A pod marked for its ReplicaSet's scale-down begins unless the pods leaving before it already cover the excess. */
  async #scaleDown(pod: Pod, owner: OwnerReference): Promise<LeavingDecision> {
    const replicaSet = await this.#workloads.replicaSet(pod.metadata.namespace ?? '', owner);
    if (!replicaSet) return { begin: true };
    const replicas = replicaSet.spec?.replicas ?? 1;
    const pods = [...this.#workloads.podsOf(replicaSet).filter((p) => p.metadata.uid !== pod.metadata.uid), pod];
    const { excess, leaving, surplus } = scaleDown(replicas, pods);
    if (!surplus.some((p) => p.metadata.uid === pod.metadata.uid)) return { begin: true };
    const before = leaving.filter((p) => !surplus.includes(p)).map((p) => p.metadata.name);
    return { begin: false, kept: `ReplicaSet ${owner.name} has ${excess} pod(s) beyond its ${replicas} replicas and ${before.join(', ') || 'no pod'} already leaving` };
  }
}
