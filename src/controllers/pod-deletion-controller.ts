// The pod-deletion controller: a controlled pod labelled `collaset.kusionstack.io/to-delete` goes through a
// `pod-delete` lifecycle of type `delete` (traffic off, checks), and is deleted once that lifecycle allows it.
// GraceDelete turns `kubectl delete pod` into exactly this label. A pod marked for its ReplicaSet's scale-down
// is brought back instead when the scale-down no longer needs it (scaled up again, or other pods leaving cover
// it), and so is one its StatefulSet's controller deleted when the StatefulSet keeps it after all (scaled back
// up, rolled back): no pod leaves unless its deletion is still wanted. Once a pod is deleted, its Deployment's
// ReplicaSets whose creates the surge bound refused are nudged to try again.

import type { OwnerReference, Pod } from '../api/kube.ts';
import { GRACE_DELETE_REQUESTED_BY_ANNOTATION, GRACE_DELETE_TIMESTAMP_ANNOTATION, TO_DELETE_LABEL } from '../api/protocol.ts';
import { nowNanos } from '../kube/clock.ts';
import { Controller, type ControllerRuntimeOptions, forObjects, type Reconciler, type Request, type Result, type Trigger } from '../kube/controller.ts';
import type { Informer } from '../kube/informer.ts';
import { PODS } from '../kube/resources.ts';
import { isControlled, isDeleting } from '../lifecycle/pod.ts';
import { leavesForScaleDown, leavesForStatefulSet } from '../lifecycle/scale-down.ts';
import { writePod } from '../sdk/write-pod.ts';
import { KeySerializer } from '../kube/key-serializer.ts';
import type { PodReconcilerOptions } from './pod-reconciler-options.ts';
import { allowOps, begin, isDuringOps, podDeleteAdapter, withdraw } from '../sdk/operation.ts';
import { nudgeReplicaSetsAwaitingRoom } from '../sdk/deployment-surge.ts';
import { readScaleDown, replicaSetOf } from '../sdk/replica-set-scale-down.ts';
import { readStatefulSetKeeps, statefulSetOf } from '../sdk/stateful-set-deletion.ts';

export const POD_DELETION_CONTROLLER_NAME = 'poddeletion-controller';

/** How often a pod leaving for its workload's controller is checked against the workload (a scale-up writes no pod). */
const WORKLOAD_RECHECK_MS = 2000;

const wantsDeletion = (pod: Pod): boolean => isControlled(pod) && pod.metadata.labels?.[TO_DELETE_LABEL] !== undefined;

export class PodDeletionReconciler implements Reconciler {
  readonly #options: PodReconcilerOptions;
  /** Scale-down decisions, one ReplicaSet (uid) at a time. */
  readonly #scaleDowns = new KeySerializer();

  constructor(options: PodReconcilerOptions) {
    this.#options = options;
  }

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const pod = this.#options.pods.get(namespace, name);
    if (!pod || isDeleting(pod) || !wantsDeletion(pod)) return;
    const replicaSet = leavesForScaleDown(pod) ? replicaSetOf(pod) : undefined;
    // One ReplicaSet's scale-down pods are decided one at a time: two workers must never both begin a lifecycle
    // the count has room for once.
    if (replicaSet) return this.#scaleDowns.run(replicaSet.uid, () => this.#stepUnlessKept(pod, () => this.#surplusForScaleDown(pod, replicaSet)));
    const statefulSet = leavesForStatefulSet(pod) ? statefulSetOf(pod) : undefined;
    if (statefulSet) return this.#stepUnlessKept(pod, () => readStatefulSetKeeps(this.#options.client, pod, statefulSet));
    return this.#step(pod);
  }

  /** Brings the pod back when its workload keeps it after all; otherwise steps on, and looks again in a while. */
  async #stepUnlessKept(pod: Pod, keptBecause: () => Promise<string | undefined>): Promise<Result | void> {
    const kept = await keptBecause();
    if (!kept) return (await this.#step(pod)) ?? { requeueAfterMs: WORKLOAD_RECHECK_MS };
    await writePod(this.#options.client, pod, keptBack(pod));
    this.#options.events?.event(pod, 'Normal', 'PodDeletionCancelled', `kept: ${kept}`);
  }

  /** Begins the pod-delete lifecycle, or deletes the pod once it allows. */
  async #step(pod: Pod): Promise<Result | void> {
    const now = (this.#options.now ?? nowNanos)();
    if (!isDuringOps(podDeleteAdapter, pod)) {
      const { pod: begun, changed } = begin(podDeleteAdapter, pod, now);
      if (changed) await writePod(this.#options.client, pod, begun);
      return;
    }
    const { allowed, requeueAfterMs } = allowOps(podDeleteAdapter, 0, pod, now);
    if (!allowed) return requeueAfterMs ? { requeueAfterMs } : undefined;
    await this.#options.client.delete(PODS, pod.metadata.namespace, pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid as string } });
    this.#options.events?.event(pod, 'Normal', 'PodDeletion', 'Deleted pod');
    // The pod no longer counts towards its Deployment's surge bound: a ReplicaSet refused for it may create now.
    const owner = replicaSetOf(pod);
    if (owner) await nudgeReplicaSetsAwaitingRoom(this.#options.client, pod.metadata.namespace ?? '', owner, now);
    return;
  }

  /** Why a pod marked for its ReplicaSet's scale-down is no longer needed to leave, if it is not. */
  async #surplusForScaleDown(pod: Pod, owner: OwnerReference): Promise<string | undefined> {
    const scaleDown = await readScaleDown(this.#options.client, pod.metadata.namespace ?? '', owner);
    if (!scaleDown?.surplus.some((p) => p.metadata.uid === pod.metadata.uid)) return undefined;
    return `ReplicaSet ${owner.name} has ${scaleDown.excess} pod(s) beyond its ${scaleDown.replicas} replicas, covered by the ${scaleDown.leaving.length - scaleDown.surplus.length} already leaving`;
  }
}

/** The pod with its deletion mark and pod-delete lifecycle withdrawn: it returns to service. */
const keptBack = (pod: Pod): Pod => withdraw(podDeleteAdapter, pod, { label: TO_DELETE_LABEL, annotations: [GRACE_DELETE_REQUESTED_BY_ANNOTATION, GRACE_DELETE_TIMESTAMP_ANNOTATION] }).pod;

/** The controlled pods marked for deletion. */
export const podDeletionTriggers = (pods: Informer<Pod>): Trigger[] => [forObjects(pods, wantsDeletion)];

export function podDeletionController(options: PodReconcilerOptions & ControllerRuntimeOptions): Controller {
  return new Controller({
    name: POD_DELETION_CONTROLLER_NAME,
    workers: options.workers ?? 5,
    reconciler: new PodDeletionReconciler(options),
    triggers: podDeletionTriggers(options.pods),
    metrics: options.metrics,
    logger: options.logger,
  });
}
