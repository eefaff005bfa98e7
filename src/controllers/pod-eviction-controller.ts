// The pod-eviction controller: a controlled pod whose eviction was asked (labelled `to-evict` by the eviction
// webhook) goes through a `pod-eviction` lifecycle of type `evict`: traffic off, PodTransitionRules, then the
// operation is allowed and the eviction's next retry goes through (the API server deletes the pod). The
// lifecycle begins only while the pod's PodDisruptionBudgets have room, one namespace at a time, and is
// withdrawn when nobody has retried the eviction for a while, or when it allowed an eviction that did not come:
// then the deferral of the pod's evictions pauses, so that resent forged requests cannot keep it out of service
// (src/lifecycle/eviction.ts). Everything is read from the shared caches.

import type { Pod } from '../api/kube.ts';
import { EVICTION_PAUSED_UNTIL_ANNOTATION, EVICTION_REQUESTED_ANNOTATION, TO_EVICT_LABEL } from '../api/protocol.ts';
import { budgetSelected, budgetsRefuse } from '../cache/budgets.ts';
import type { ClusterCaches } from '../cache/cluster-cache.ts';
import { writeCachedPod } from '../cache/write-through.ts';
import { during, unlessNotFound } from '../kube/client.ts';
import { nowNanos } from '../kube/clock.ts';
import { Controller, type ControllerRuntimeOptions, forObjects, objectKey, watch, type Reconciler, type Request, type Result, type Trigger } from '../kube/controller.ts';
import { KeySerializer } from '../kube/key-serializer.ts';
import { DEFAULT_EVICTION_ABANDONED_AFTER_SECONDS, EVICTION_PAUSE_PERIODS, evictionAbandonment, untilEvictionAbandoned, wantsEviction } from '../lifecycle/eviction.ts';
import { isControlled, isDeleting } from '../lifecycle/pod.ts';
import { NANOS_PER_MILLI, NANOS_PER_SECOND, type Nanos } from '../lifecycle/time.ts';
import { begin, isDuringOps, podEvictionAdapter, withdraw } from '../sdk/operation.ts';
import type { PodReconcilerOptions } from './pod-reconciler-options.ts';

export const POD_EVICTION_CONTROLLER_NAME = 'podeviction-controller';

export interface PodEvictionOptions extends PodReconcilerOptions {
  /** How long an eviction nobody retries (or one allowed and not carried out) keeps its pod out of service before it is abandoned. */
  evictionAbandonedAfter?: Nanos;
}

/** kubectl drain retries every 5 s, the cluster autoscaler every 10 s: by default a minute of silence is a stopped drain. */
const DEFAULT_EVICTION_ABANDONED_AFTER = BigInt(DEFAULT_EVICTION_ABANDONED_AFTER_SECONDS) * NANOS_PER_SECOND;
/** How soon a pod waiting for room in its budgets is looked at again, should no budget change say so sooner. */
const BUDGET_RECHECK_MS = 5000;

const seconds = (nanos: Nanos): number => Number(nanos / NANOS_PER_MILLI) / 1000;

const wanted = (pod: Pod): boolean => isControlled(pod) && wantsEviction(pod);

export class PodEvictionReconciler implements Reconciler {
  readonly #options: PodEvictionOptions;
  /** Budget decisions, one namespace at a time: two pods of one budget are never both let out on its last room. */
  readonly #budgets = new KeySerializer();

  constructor(options: PodEvictionOptions) {
    this.#options = options;
  }

  async reconcile({ namespace, name }: Request, signal: AbortSignal): Promise<Result | void> {
    const { client, caches, events } = this.#options;
    const cached = caches.pods.get(namespace, name);
    if (!cached || isDeleting(cached) || !wanted(cached)) return;
    const now = (this.#options.now ?? nowNanos)();
    const after = this.#options.evictionAbandonedAfter ?? DEFAULT_EVICTION_ABANDONED_AFTER;
    const abandonment = evictionAbandonment(cached, now, after);
    if (abandonment) {
      const back = withdraw(podEvictionAdapter, cached, { label: TO_EVICT_LABEL, annotations: [EVICTION_REQUESTED_ANNOTATION] }).pod;
      if (abandonment === 'not-carried-out') (back.metadata.annotations ??= {})[EVICTION_PAUSED_UNTIL_ANNOTATION] = (now + EVICTION_PAUSE_PERIODS * after).toString();
      // A pod gone meanwhile has nothing left to do, here and below.
      if (!(await during(`return pod ${namespace}/${name} to service`, unlessNotFound(writeCachedPod(client, caches.pods, cached, back, signal))))) return;
      const message =
        abandonment === 'unretried'
          ? `nobody retried the eviction for ${seconds(after)} s: the pod returns to service`
          : `the eviction was allowed ${seconds(after)} s ago and did not come: the pod returns to service, and evictions that nothing vouches for are not deferred for ${seconds(EVICTION_PAUSE_PERIODS * after)} s`;
      events?.event(cached, 'Normal', abandonment === 'unretried' ? 'EvictionAbandoned' : 'EvictionNotCarriedOut', message);
      return;
    }
    const untilAbandoned = { requeueAfterMs: Math.max(1, Number(untilEvictionAbandoned(cached, now, after) / NANOS_PER_MILLI) + 1) };
    if (isDuringOps(podEvictionAdapter, cached)) return untilAbandoned;
    return this.#budgets.run(namespace, async () => {
      // Read again: another worker may just have begun a lifecycle (the cache holds this process's own writes).
      const pod = caches.pods.get(namespace, name);
      if (!pod || isDuringOps(podEvictionAdapter, pod) || !wantsEviction(pod)) return untilAbandoned;
      // The eviction's refusal says the lifecycle waits for the budgets; an event every recheck would be noise.
      if (budgetsRefuse(caches, pod) !== undefined) return { requeueAfterMs: Math.min(BUDGET_RECHECK_MS, untilAbandoned.requeueAfterMs) };
      const { pod: begun, changed } = begin(podEvictionAdapter, pod, now);
      if (changed) await during(`begin the pod-eviction lifecycle of pod ${namespace}/${name}`, unlessNotFound(writeCachedPod(client, caches.pods, pod, begun, signal)));
      return untilAbandoned;
    });
  }
}

/** The controlled pods whose eviction was asked, and those a changed PodDisruptionBudget selects (it may have room now). */
export const podEvictionTriggers = (caches: ClusterCaches): Trigger[] => [
  forObjects(caches.pods, wanted),
  watch(caches.podDisruptionBudgets, (budget) => budgetSelected(caches, budget).filter(wanted).map(objectKey)),
];

export function podEvictionController(options: PodEvictionOptions & ControllerRuntimeOptions): Controller {
  return new Controller({
    name: POD_EVICTION_CONTROLLER_NAME,
    workers: options.workers ?? 5,
    reconciler: new PodEvictionReconciler(options),
    triggers: podEvictionTriggers(options.caches),
    metrics: options.metrics,
    logger: options.logger,
  });
}
