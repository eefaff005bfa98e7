// The lifecycle controller: a thin driver of src/lifecycle's reconcilePod. It reads the pod from the cache,
// asks the pure core for the next change, and sends the request the core builds for it (podWrite: one patch
// guarded by resourceVersion, through pods/status when the service-ready condition changes).

import type { Pod, Service } from '../api/kube.ts';
import type { PodTransitionRule } from '../api/podtransitionrule.ts';
import { SERVICE_READY_EVENT_REASON, type TransitionStage } from '../api/protocol.ts';
import { isNotFound, type KubeClient } from '../kube/client.ts';
import { nowNanos } from '../kube/clock.ts';
import { Controller, type ControllerRuntimeOptions, forObjects, keyOf, watch, type Reconciler, type Request, type Result, type Trigger } from '../kube/controller.ts';
import type { EventRecorder } from '../kube/events.ts';
import type { Informer } from '../kube/informer.ts';
import { silentLogger, type Logger } from '../kube/log.ts';
import { SERVICES } from '../kube/resources.ts';
import { applyReconcilePlan, reconcilePod, type ReconcilePlan, type TransitionVerdict } from '../lifecycle/reconcile.ts';
import { writePod } from '../sdk/write-pod.ts';
import { InvalidLabelError } from '../lifecycle/parse.ts';
import { InvalidAnnotationError, missingExpectedFinalizers } from '../lifecycle/pod.ts';
import type { Nanos } from '../lifecycle/time.ts';
import { ResourceVersionExpectations } from './expectations.ts';

/** The PodTransitionRule verdict for a pod in a stage. */
export interface TransitionChecker {
  verdict(pod: Pod, stage: TransitionStage): TransitionVerdict;
}

/** Until PodTransitionRules are installed, every stage passes. */
export const passAllTransitions: TransitionChecker = { verdict: () => ({ passed: true }) };

export interface LifecycleControllerOptions {
  client: KubeClient;
  pods: Informer<Pod>;
  events?: EventRecorder;
  transitions?: TransitionChecker;
  now?: () => Nanos;
  logger?: Logger;
}

export const LIFECYCLE_CONTROLLER_NAME = 'podopslifecycle-controller';

/** A rule's change concerns the lifecycles of the pods it lists, before and after (a pod it let go passes). */
const ruleTargetKeys = (rule: PodTransitionRule, previous?: PodTransitionRule): Set<string> =>
  new Set([...(rule.status?.targets ?? []), ...(previous?.status?.targets ?? [])].map((target) => keyOf(rule.metadata.namespace, target)));

/** Every controlled pod, and the targets of every PodTransitionRule that changes. */
export const lifecycleTriggers = (pods: Informer<Pod>, rules: Informer<PodTransitionRule>): Trigger[] => [forObjects(pods), watch(rules, ruleTargetKeys)];

export function lifecycleController(options: LifecycleControllerOptions & ControllerRuntimeOptions & { rules: Informer<PodTransitionRule> }): Controller {
  return new Controller({
    name: LIFECYCLE_CONTROLLER_NAME,
    workers: options.workers ?? 5,
    reconciler: new LifecycleReconciler(options),
    triggers: lifecycleTriggers(options.pods, options.rules),
    metrics: options.metrics,
    logger: options.logger,
  });
}

export class LifecycleReconciler implements Reconciler {
  readonly #options: LifecycleControllerOptions;
  readonly #expectations = new ResourceVersionExpectations();
  readonly #log: Logger;

  constructor(options: LifecycleControllerOptions) {
    this.#options = options;
    this.#log = (options.logger ?? silentLogger()).child({ controller: LIFECYCLE_CONTROLLER_NAME });
  }

  async reconcile({ namespace, name }: Request): Promise<Result | void> {
    const key = keyOf(namespace, name);
    const pod = this.#options.pods.get(namespace, name);
    if (!pod) {
      this.#expectations.forget(key);
      return;
    }
    // Our last write is not in the cache yet: its watch event will bring the pod back here.
    if (!this.#expectations.satisfied(key, pod.metadata.resourceVersion)) return;

    const now = (this.#options.now ?? nowNanos)();
    let plan: ReconcilePlan | undefined;
    try {
      const services = await this.#servicesFor(pod);
      const transitions = this.#options.transitions ?? passAllTransitions;
      plan = reconcilePod({
        pod,
        now,
        transition: (stage) => transitions.verdict(pod, stage),
        service: (ns, svc) => services.get(keyOf(ns, svc)),
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

    // The request is the pure core's (podWrite), the one the property tests apply.
    const written = await writePod(this.#options.client, pod, applyReconcilePlan(pod, plan, now));
    this.#expectations.expect(key, written.metadata.resourceVersion);
    this.#log.debug({ pod: key, reason: plan.reason }, 'updated pod');
    if (plan.serviceReady) this.#options.events?.event(pod, 'Normal', SERVICE_READY_EVENT_REASON, plan.serviceReady.event);
    return;
  }

  /** The Services named by missing expected finalizers, for the dirty-entry check; others are not needed. */
  async #servicesFor(pod: Pod): Promise<Map<string, Service>> {
    const services = new Map<string, Service>();
    for (const [entry] of missingExpectedFinalizers(pod)) {
      const [kind, namespace, name] = entry.split('/');
      if (kind !== 'Service' || !namespace || !name) continue;
      try {
        services.set(keyOf(namespace, name), await this.#options.client.get<Service>(SERVICES, namespace, name));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    return services;
  }
}
