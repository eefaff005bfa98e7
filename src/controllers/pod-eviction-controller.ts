// The pod-eviction controller: a controlled pod whose eviction was asked (labelled `to-evict` by the eviction
// webhook) goes through a `pod-eviction` lifecycle of type `evict`: traffic off, PodTransitionRules, then the
// operation is allowed and the eviction's next retry goes through (the API server deletes the pod). The
// lifecycle begins only while the pod's PodDisruptionBudgets have room, one namespace at a time, and is
// withdrawn when nobody has retried the eviction for a while (src/lifecycle/eviction.ts).

import type { Pod } from '../api/kube.ts';
import { EVICTION_REQUESTED_ANNOTATION, TO_EVICT_LABEL } from '../api/protocol.ts';
import { compileLabelSelector, labelSelectorMatches } from '../api/selector.ts';
import { nowNanos } from '../kube/clock.ts';
import { Controller, type ControllerRuntimeOptions, forObjects, type Reconciler, type Request, type Result, type Trigger } from '../kube/controller.ts';
import type { Informer } from '../kube/informer.ts';
import { PODDISRUPTIONBUDGETS, PODS } from '../kube/resources.ts';
import { budgetRoom, DEFAULT_EVICTION_ABANDONED_AFTER_SECONDS, evictionAbandoned, untilEvictionAbandoned, wantsEviction, type PodDisruptionBudget } from '../lifecycle/eviction.ts';
import { isControlled, isDeleting } from '../lifecycle/pod.ts';
import { NANOS_PER_MILLI, NANOS_PER_SECOND, type Nanos } from '../lifecycle/time.ts';
import { begin, isDuringOps, podEvictionAdapter, withdraw } from '../sdk/operation.ts';
import { writePod } from '../sdk/write-pod.ts';
import { KeySerializer } from '../kube/key-serializer.ts';
import type { PodReconcilerOptions } from './pod-reconciler-options.ts';

export const POD_EVICTION_CONTROLLER_NAME = 'podeviction-controller';

export interface PodEvictionOptions extends PodReconcilerOptions {
  /** How long an eviction nobody retries keeps its pod out of service before it is abandoned. */
  evictionAbandonedAfter?: Nanos;
}

/** kubectl drain retries every 5 s, the cluster autoscaler every 10 s: by default a minute of silence is a stopped drain. */
const DEFAULT_EVICTION_ABANDONED_AFTER = BigInt(DEFAULT_EVICTION_ABANDONED_AFTER_SECONDS) * NANOS_PER_SECOND;
/** How soon a pod waiting for room in its budgets is looked at again (the budgets change without a pod write). */
const BUDGET_RECHECK_MS = 2000;

export class PodEvictionReconciler implements Reconciler {
  readonly #options: PodEvictionOptions;
  /** Budget decisions, one namespace at a time: two pods of one budget are never both let out on its last room. */
  readonly #budgets = new KeySerializer();

  constructor(options: PodEvictionOptions) {
    this.#options = options;
  }

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const cached = this.#options.pods.get(namespace, name);
    if (!cached || isDeleting(cached) || !isControlled(cached) || !wantsEviction(cached)) return;
    const now = (this.#options.now ?? nowNanos)();
    const abandonedAfter = this.#options.evictionAbandonedAfter ?? DEFAULT_EVICTION_ABANDONED_AFTER;
    if (evictionAbandoned(cached, now, abandonedAfter)) {
      const back = withdraw(podEvictionAdapter, cached, { label: TO_EVICT_LABEL, annotations: [EVICTION_REQUESTED_ANNOTATION] }).pod;
      await writePod(this.#options.client, cached, back);
      this.#options.events?.event(cached, 'Normal', 'EvictionAbandoned', `nobody retried the eviction for ${Number(abandonedAfter / NANOS_PER_MILLI) / 1000} s: the pod returns to service`);
      return;
    }
    const untilAbandoned = { requeueAfterMs: Math.max(1, Number(untilEvictionAbandoned(cached, now, abandonedAfter) / NANOS_PER_MILLI) + 1) };
    if (isDuringOps(podEvictionAdapter, cached)) return untilAbandoned;
    return this.#budgets.run(namespace ?? '', async () => {
      // Read live: the cache may not hold the lifecycle another worker just began.
      const pod = await this.#options.client.get<Pod>(PODS, namespace, name);
      if (isDuringOps(podEvictionAdapter, pod) || !wantsEviction(pod)) return untilAbandoned;
      // The eviction's refusal says the lifecycle waits for the budgets; an event every recheck would be noise.
      if (!(await this.#budgetsHaveRoom(pod))) return { requeueAfterMs: Math.min(BUDGET_RECHECK_MS, untilAbandoned.requeueAfterMs) };
      const { pod: begun, changed } = begin(podEvictionAdapter, pod, now);
      if (changed) await writePod(this.#options.client, pod, begun);
      return untilAbandoned;
    });
  }

  /** Whether every PodDisruptionBudget selecting the pod has room to take it out of service. */
  async #budgetsHaveRoom(pod: Pod): Promise<boolean> {
    const { client } = this.#options;
    const namespace = pod.metadata.namespace;
    const budgets = (await client.list<PodDisruptionBudget & { metadata: { name?: string } }>(PODDISRUPTIONBUDGETS, { namespace })).items.filter(
      (budget) => budget.spec?.selector !== undefined && labelSelectorMatches(budget.spec.selector, pod.metadata.labels),
    );
    if (budgets.length === 0) return true;
    const pods = (await client.list<Pod>(PODS, { namespace })).items;
    return budgets.every((budget) => {
      const selector = compileLabelSelector(budget.spec?.selector);
      return budgetRoom(budget, pod, pods.filter((p) => selector.matches(p.metadata.labels))).room;
    });
  }
}

/** The controlled pods whose eviction was asked. */
export const podEvictionTriggers = (pods: Informer<Pod>): Trigger[] => [forObjects(pods, (pod) => isControlled(pod) && wantsEviction(pod))];

export function podEvictionController(options: PodEvictionOptions & ControllerRuntimeOptions): Controller {
  return new Controller({
    name: POD_EVICTION_CONTROLLER_NAME,
    workers: options.workers ?? 5,
    reconciler: new PodEvictionReconciler(options),
    triggers: podEvictionTriggers(options.pods),
    metrics: options.metrics,
    logger: options.logger,
  });
}
