// The pod-deletion controller: a controlled pod labelled `collaset.kusionstack.io/to-delete` goes through a
// `pod-delete` lifecycle of type `delete` (traffic off, checks), and is deleted once that lifecycle allows it.
// GraceDelete turns `kubectl delete pod` into exactly this label. A pod marked for its ReplicaSet's scale-down
// is brought back instead when the scale-down no longer needs it (scaled up again, or other pods leaving cover
// it), and so is one its StatefulSet's controller deleted when the StatefulSet keeps it after all (scaled back
// up, rolled back): no pod leaves unless its deletion is still wanted. A pod deleted by anyone else (a user, or a
// forged review naming its uid) begins its lifecycle only while its PodDisruptionBudgets have room, as an
// eviction would: GraceDelete never costs more availability than an eviction could. Once a pod is deleted, its
// Deployment's ReplicaSets whose creates the surge bound refused are nudged to try again.
//
// Everything is read from the shared caches; a change of a ReplicaSet, StatefulSet or PodDisruptionBudget
// brings back the marked pods it concerns (a scale-up writes no pod).

import type { OwnerReference, Pod } from '../api/kube.ts';
import { GRACE_DELETE_REQUESTED_BY_ANNOTATION, GRACE_DELETE_TIMESTAMP_ANNOTATION, HELD_POD_DELETED_ANNOTATION, TO_DELETE_LABEL } from '../api/protocol.ts';
import { budgetSelected } from '../cache/budgets.ts';
import { CONTROLLER_INDEX, type ClusterCaches } from '../cache/cluster-cache.ts';
import type { LeavingDecision, LeavingDecisions } from '../cache/leaving.ts';
import { replicaSetOf, WorkloadReads } from '../cache/workloads.ts';
import { writeCachedPod } from '../cache/write-through.ts';
import { during, unlessNotFound } from '../kube/client.ts';
import { nowNanos } from '../kube/clock.ts';
import { Controller, type ControllerRuntimeOptions, forObjects, objectKey, watch, type Reconciler, type Request, type Result, type Trigger } from '../kube/controller.ts';
import { PODS, REPLICASETS } from '../kube/resources.ts';
import { isControlled, isDeleting } from '../lifecycle/pod.ts';
import { replicaSetsAwaitingRoom } from '../lifecycle/surge.ts';
import type { Nanos } from '../lifecycle/time.ts';
import { allowOps, isDuringOps, podDeleteAdapter, withdraw } from '../sdk/operation.ts';
import type { PodReconcilerOptions } from './pod-reconciler-options.ts';

export const POD_DELETION_CONTROLLER_NAME = 'poddeletion-controller';

/** How soon a pod waiting for room in its budgets is looked at again, should no budget change say so sooner. */
const BUDGET_RECHECK_MS = 5000;

const wantsDeletion = (pod: Pod): boolean => isControlled(pod) && pod.metadata.labels?.[TO_DELETE_LABEL] !== undefined;

export interface PodDeletionOptions extends PodReconcilerOptions {
  /** Shared with GraceDelete's webhook, which begins lifecycles in the same write as the mark. */
  leaving: LeavingDecisions;
}

export class PodDeletionReconciler implements Reconciler {
  readonly #options: PodDeletionOptions;
  readonly #workloads: WorkloadReads;

  constructor(options: PodDeletionOptions) {
    this.#options = options;
    this.#workloads = new WorkloadReads(options.caches, options.client);
  }

  async reconcile({ namespace, name }: Request, signal: AbortSignal): Promise<Result | void> {
    const { caches, leaving } = this.#options;
    const pod = caches.pods.get(namespace, name);
    if (!pod || isDeleting(pod) || !wantsDeletion(pod)) return;
    const now = (this.#options.now ?? nowNanos)();
    return leaving.decide(pod, now, (current, decision) => this.#step(current, decision, now, signal), () => caches.pods.get(namespace, name) ?? pod);
  }

  /** Brings the pod back when its workload keeps it after all; begins its lifecycle when it may; deletes it once the lifecycle allows. */
  async #step(pod: Pod, decision: LeavingDecision, now: Nanos, signal: AbortSignal): Promise<Result | void> {
    const { client, caches, events } = this.#options;
    if (isDeleting(pod) || !wantsDeletion(pod)) return;
    const key = objectKey(pod);
    if ('kept' in decision) {
      // A pod gone meanwhile has nothing left to do, here and below.
      if (!(await during(`bring back pod ${key}`, unlessNotFound(writeCachedPod(client, caches.pods, pod, keptBack(pod), signal))))) return;
      events?.event(pod, 'Normal', 'PodDeletionCancelled', `kept: ${decision.kept}`);
      return;
    }
    if (!isDuringOps(podDeleteAdapter, pod)) {
      if (!decision.begin) return { requeueAfterMs: BUDGET_RECHECK_MS };
      await during(`begin the pod-delete lifecycle of pod ${key}`, unlessNotFound(writeCachedPod(client, caches.pods, pod, decision.begun, signal)));
      return;
    }
    const { allowed, requeueAfterMs } = allowOps(podDeleteAdapter, 0, pod, now);
    if (!allowed) return requeueAfterMs ? { requeueAfterMs } : undefined;
    const deleted = await during(`delete pod ${key}`, unlessNotFound(client.delete(PODS, pod.metadata.namespace, pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid as string }, signal })));
    if (!deleted) return;
    events?.event(pod, 'Normal', 'PodDeletion', 'Deleted pod');
    // The pod no longer counts towards its Deployment's surge bound: a ReplicaSet refused for it may create now.
    const owner = replicaSetOf(pod);
    if (owner) await this.#nudgeReplicaSetsAwaitingRoom(pod.metadata.namespace ?? '', owner, now, signal);
  }

  /**
   * The ReplicaSet controller retries a failed sync with a backoff that doubles with each failure, so after a long
   * hold it would wait about as long again: a ReplicaSet of the pod's Deployment whose create failed is sent back
   * to work at once by a change (an annotation).
   */
  async #nudgeReplicaSetsAwaitingRoom(namespace: string, owner: OwnerReference, at: Nanos, signal: AbortSignal): Promise<void> {
    const deployment = await this.#workloads.deploymentOfPod(namespace, owner);
    if (!deployment) return;
    for (const replicaSet of replicaSetsAwaitingRoom(deployment, this.#workloads.deploymentFamily(deployment).replicaSets)) {
      const patch = { metadata: { annotations: { [HELD_POD_DELETED_ANNOTATION]: at.toString() } } };
      await during(`nudge ReplicaSet ${namespace}/${replicaSet.metadata.name}`, unlessNotFound(this.#options.client.patch(REPLICASETS, namespace, replicaSet.metadata.name ?? '', 'merge', patch, { signal })));
    }
  }
}

/** The pod with its deletion mark and pod-delete lifecycle withdrawn: it returns to service. */
const keptBack = (pod: Pod): Pod => withdraw(podDeleteAdapter, pod, { label: TO_DELETE_LABEL, annotations: [GRACE_DELETE_REQUESTED_BY_ANNOTATION, GRACE_DELETE_TIMESTAMP_ANNOTATION] }).pod;

/** The marked pods among `pods`, as keys. */
const markedKeys = (pods: readonly Pod[], wanted: (pod: Pod) => boolean): string[] => pods.filter(wanted).map(objectKey);

/**
 * The controlled pods marked for deletion; those of a ReplicaSet or StatefulSet that changes (its scale-down or
 * revision may no longer want them); those a changed PodDisruptionBudget selects (it may have room now).
 */
export const podDeletionTriggers = (caches: ClusterCaches): Trigger[] => [
  forObjects(caches.pods, wantsDeletion),
  ...[caches.replicaSets, caches.statefulSets].map((owners) => watch(owners as typeof caches.replicaSets, (owner) => markedKeys(caches.pods.byIndex(CONTROLLER_INDEX, owner.metadata.uid ?? ''), wantsDeletion))),
  watch(caches.podDisruptionBudgets, (budget) => markedKeys(budgetSelected(caches, budget), wantsDeletion)),
];

export function podDeletionController(options: PodDeletionOptions & ControllerRuntimeOptions): Controller {
  return new Controller({
    name: POD_DELETION_CONTROLLER_NAME,
    workers: options.workers ?? 16,
    reconciler: new PodDeletionReconciler(options),
    triggers: podDeletionTriggers(options.caches),
    metrics: options.metrics,
    logger: options.logger,
  });
}
