// The lifecycle controller: a thin driver of src/lifecycle's reconcilePod. It reads the pod from the cache,
// asks the pure core for the next change, and sends the request the core builds for it (podWrite: one patch
// guarded by resourceVersion, through pods/status when the service-ready condition changes). The stored pod is
// assumed into the cache, so the next step starts from it without waiting for the watch.

import type { Pod, Service } from '../api/kube.ts';
import type { PodTransitionRule } from '../api/podtransitionrule.ts';
import { SERVICE_READY_EVENT_REASON, type TransitionStage } from '../api/protocol.ts';
import { during, unlessNotFound, type KubeClient } from '../kube/client.ts';
import { nowNanos } from '../kube/clock.ts';
import { Controller, type ControllerRuntimeOptions, forObjects, keyOf, watch, type Reconciler, type Request, type Result, type Trigger } from '../kube/controller.ts';
import type { EventRecorder } from '../kube/events.ts';
import type { Informer } from '../kube/informer.ts';
import { silentLogger, type Logger } from '../kube/log.ts';
import { applyReconcilePlan, reconcilePod, type ReconcilePlan, type TransitionVerdict } from '../lifecycle/reconcile.ts';
import { writeCachedPod } from '../cache/write-through.ts';
import { InvalidLabelError } from '../lifecycle/parse.ts';
import { InvalidAnnotationError } from '../lifecycle/pod.ts';
import type { Nanos } from '../lifecycle/time.ts';

/** The PodTransitionRule verdict for a pod in a stage. */
export interface TransitionChecker {
  verdict(pod: Pod, stage: TransitionStage): TransitionVerdict;
}

/** Until PodTransitionRules are installed, every stage passes. */
export const passAllTransitions: TransitionChecker = { verdict: () => ({ passed: true }) };

export interface LifecycleControllerOptions {
  client: KubeClient;
  pods: Informer<Pod>;
  /** For the dirty expected-finalizer check (a cooperation controller's Service gone or no longer selecting). */
  services: Informer<Service>;
  events?: EventRecorder;
  transitions?: TransitionChecker;
  now?: () => Nanos;
  logger?: Logger;
}

export const LIFECYCLE_CONTROLLER_NAME = 'podopslifecycle-controller';

/** Each pod's details in a rule's status, as text to compare. */
const detailsByPod = (rule: PodTransitionRule): Map<string, string> => {
  const byPod = new Map<string, unknown[]>();
  for (const detail of rule.status?.details ?? []) byPod.set(detail.name ?? '', [...(byPod.get(detail.name ?? '') ?? []), detail]);
  return new Map([...byPod].map(([pod, details]) => [pod, JSON.stringify(details)]));
};

/**
 * A rule's change concerns the lifecycles of the pods its verdict changed for: those it starts or stops listing
 * (a pod it let go passes) and those whose details changed; every pod it lists when it is new, is being deleted
 * or has a new spec. Not every target on every status write: a rule over thousands of pods changes one pod's
 * detail at a time.
 */
const ruleTargetKeys = (rule: PodTransitionRule, previous?: PodTransitionRule): Set<string> => {
  const targets = new Set([...(rule.status?.targets ?? []), ...(previous?.status?.targets ?? [])]);
  const changed =
    !previous || rule.metadata.generation !== previous.metadata.generation || (rule.metadata.deletionTimestamp ?? undefined) !== (previous.metadata.deletionTimestamp ?? undefined)
      ? targets
      : (() => {
          const before = new Set(previous.status?.targets ?? []);
          const after = new Set(rule.status?.targets ?? []);
          const [was, is] = [detailsByPod(previous), detailsByPod(rule)];
          return [...targets].filter((pod) => before.has(pod) !== after.has(pod) || was.get(pod) !== is.get(pod));
        })();
  return new Set([...changed].map((target) => keyOf(rule.metadata.namespace, target)));
};

/** Every controlled pod, and the targets of every PodTransitionRule that changes. */
export const lifecycleTriggers = (pods: Informer<Pod>, rules: Informer<PodTransitionRule>): Trigger[] => [forObjects(pods), watch(rules, ruleTargetKeys)];

export function lifecycleController(options: LifecycleControllerOptions & ControllerRuntimeOptions & { rules: Informer<PodTransitionRule> }): Controller {
  return new Controller({
    name: LIFECYCLE_CONTROLLER_NAME,
    workers: options.workers ?? 16,
    reconciler: new LifecycleReconciler(options),
    triggers: lifecycleTriggers(options.pods, options.rules),
    metrics: options.metrics,
    logger: options.logger,
  });
}

export class LifecycleReconciler implements Reconciler {
  readonly #options: LifecycleControllerOptions;
  readonly #log: Logger;

  constructor(options: LifecycleControllerOptions) {
    this.#options = options;
    this.#log = (options.logger ?? silentLogger()).child({ controller: LIFECYCLE_CONTROLLER_NAME });
  }

  async reconcile({ namespace, name }: Request, signal: AbortSignal): Promise<Result | void> {
    const key = keyOf(namespace, name);
    const pod = this.#options.pods.get(namespace, name);
    if (!pod) return;

    const now = (this.#options.now ?? nowNanos)();
    let plan: ReconcilePlan | undefined;
    try {
      const transitions = this.#options.transitions ?? passAllTransitions;
      plan = reconcilePod({
        pod,
        now,
        transition: (stage) => transitions.verdict(pod, stage),
        service: (ns, svc) => this.#options.services.get(ns, svc),
      });
    } catch (err) {
      if (err instanceof InvalidLabelError || err instanceof InvalidAnnotationError) {
        this.#options.events?.event(pod, 'Warning', 'InvalidLifecycle', err.message);
        this.#log.warn({ pod: key, err: err.message }, 'cannot reconcile a pod with invalid lifecycle labels');
        return;
      }
      throw err;
    }
    if (!plan) return;

    // The request is the pure core's (podWrite), the one the property tests apply. A pod gone meanwhile has nothing left to do.
    const written = await during(`write the ${plan.reason} step of pod ${key}`, unlessNotFound(writeCachedPod(this.#options.client, this.#options.pods, pod, applyReconcilePlan(pod, plan, now), signal)));
    if (!written) return;
    this.#log.debug({ pod: key, reason: plan.reason }, 'updated pod');
    if (plan.serviceReady) this.#options.events?.event(pod, 'Normal', SERVICE_READY_EVENT_REASON, plan.serviceReady.event);
    return;
  }
}
