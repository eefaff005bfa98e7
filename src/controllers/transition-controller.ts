// The PodTransitionRule controller: a driver of src/transition. Per rule it evaluates the selected pods
// (starting the webhook requests the evaluation asks for in the background: a reconcile never waits for
// a rule server, the call's end requeues the rule), writes the status through /status, mirrors each pod's
// detail into its `detail.podtransitionrule.kusionstack.io/<rule>` annotation, keeps the rule's finalizer
// so the annotations are cleaned when it is deleted, and records events when a pod's verdict changes.
// The lifecycle controller reads the verdicts from the same cache (TransitionRuleChecker).

import type { Pod } from '../api/kube.ts';
import { PTR_API_VERSION, PTR_KIND, type PodTransitionDetail, type PodTransitionRule } from '../api/podtransitionrule.ts';
import { TRANSITION_RULE_FINALIZER, transitionDetailAnnotation, type TransitionStage } from '../api/protocol.ts';
import { during, unlessNotFound, type KubeClient } from '../kube/client.ts';
import { nowNanos } from '../kube/clock.ts';
import { Controller, type ControllerRuntimeOptions, forObjects, keyOf, watch, type Reconciler, type Request, type Result, type Trigger } from '../kube/controller.ts';
import type { EventRecorder } from '../kube/events.ts';
import type { Informer } from '../kube/informer.ts';
import { silentLogger, type Logger } from '../kube/log.ts';
import { labelSelectorMatches } from '../api/selector.ts';
import { PODS, PODTRANSITIONRULES } from '../kube/resources.ts';
import type { TransitionVerdict } from '../lifecycle/reconcile.ts';
import type { Nanos } from '../lifecycle/time.ts';
import { parseSkipRuleTypes } from '../transition/rules.ts';
import { detailAnnotationValues, detailAnnotationWrites, transitionVerdict } from '../transition/verdict.ts';
import type { Evaluation } from '../transition/evaluate.ts';
import { evaluateWithWebhooks } from '../transition/webhook/driver.ts';
import type { CallManager } from '../transition/webhook/call-manager.ts';
import { ruleKeyOf, type PollManager } from '../transition/webhook/poll-manager.ts';
import type { TransitionChecker } from './lifecycle-controller.ts';

export const TRANSITION_CONTROLLER_NAME = 'podtransitionrule-controller';

/** The lifecycle controller's view of PodTransitionRules: the verdicts in the rules' cached status. */
export class TransitionRuleChecker implements TransitionChecker {
  readonly #rules: Informer<PodTransitionRule>;

  constructor(rules: Informer<PodTransitionRule>) {
    this.#rules = rules;
  }

  verdict(pod: Pod, stage: TransitionStage): TransitionVerdict {
    return transitionVerdict(this.#rules.list(pod.metadata.namespace), pod, stage);
  }
}

const selects = (rule: PodTransitionRule, pod: Pod): boolean => {
  try {
    return rule.spec?.selector != null && labelSelectorMatches(rule.spec.selector, pod.metadata.labels ?? {});
  } catch {
    return false;
  }
};

/** A pod's change concerns the rules of its namespace that select it (before or after) or list it. */
const rulesConcerning =
  (rulesIn: (namespace: string | undefined) => readonly PodTransitionRule[]) =>
  (pod: Pod, previous?: Pod): string[] =>
    rulesIn(pod.metadata.namespace)
      .filter((rule) => selects(rule, pod) || (previous !== undefined && selects(rule, previous)) || (rule.status?.targets ?? []).includes(pod.metadata.name ?? ''))
      .map((rule) => keyOf(rule.metadata.namespace, rule.metadata.name ?? ''));

/** Every rule, and the rules a pod's change concerns. */
export const transitionTriggers = (rules: Informer<PodTransitionRule>, pods: Informer<Pod>): Trigger[] => [
  forObjects(rules),
  watch(pods, rulesConcerning((namespace) => rules.list(namespace))),
];

export function transitionController(options: TransitionControllerOptions & ControllerRuntimeOptions): Controller {
  return new Controller({
    name: TRANSITION_CONTROLLER_NAME,
    workers: options.workers ?? 5,
    reconciler: new TransitionReconciler(options),
    triggers: transitionTriggers(options.rules, options.pods),
    metrics: options.metrics,
    logger: options.logger,
  });
}

export interface TransitionControllerOptions {
  client: KubeClient;
  rules: Informer<PodTransitionRule>;
  pods: Informer<Pod>;
  polls: PollManager;
  /** First requests; its onAnswered must requeue the rule. */
  calls: CallManager;
  events?: EventRecorder;
  /** The value of SKIP_POD_TRANSITION_RULES (rule types to ignore). */
  skipRuleTypes?: string;
  now?: () => Nanos;
  logger?: Logger;
}

const ANNOTATION_PATCHES_IN_FLIGHT = 8;

/** A pod's verdict: per stage, passed or the rules that reject it (not their reasons, which quote counts that change with every pod). */
const verdictOf = (details: readonly PodTransitionDetail[] | undefined, pod: string): string =>
  JSON.stringify((details ?? []).filter((d) => d.name === pod).map((d) => [d.stage, d.passed, (d.rejectInfo ?? []).map((r) => r.ruleName)]));

export class TransitionReconciler implements Reconciler {
  readonly #options: TransitionControllerOptions;
  readonly #skip: ReadonlySet<string>;
  readonly #log: Logger;

  constructor(options: TransitionControllerOptions) {
    this.#options = options;
    this.#skip = parseSkipRuleTypes(options.skipRuleTypes);
    this.#log = (options.logger ?? silentLogger()).child({ controller: TRANSITION_CONTROLLER_NAME });
  }

  async reconcile({ namespace, name }: Request, signal: AbortSignal): Promise<Result | void> {
    const key = keyOf(namespace, name);
    const rule = this.#options.rules.get(namespace, name);
    if (!rule) return;
    if (rule.metadata.deletionTimestamp != null) return await this.#finalize(rule, signal);
    if (!(rule.metadata.finalizers ?? []).includes(TRANSITION_RULE_FINALIZER)) {
      await this.#setFinalizers(rule, [...(rule.metadata.finalizers ?? []), TRANSITION_RULE_FINALIZER], 'add the finalizer', signal);
      return;
    }
    return await this.#evaluate(key, rule, signal);
  }

  async #evaluate(key: string, rule: PodTransitionRule, signal: AbortSignal): Promise<Result | void> {
    const { client, pods, polls, calls } = this.#options;
    const now = (this.#options.now ?? nowNanos)();
    const evaluation = evaluateWithWebhooks({ ptr: rule, pods: pods.list(rule.metadata.namespace), now, skipRuleTypes: this.#skip }, { polls, calls });
    for (const warning of evaluation.warnings) this.#log.warn({ rule: key, warning }, 'podtransitionrule problem');
    for (const ignored of evaluation.ignored) {
      const message = `rule ${ignored.rule}: ${ignored.error} (failurePolicy Ignore; pods passed: ${ignored.pods.join(', ')})`;
      this.#options.events?.event({ ...rule, apiVersion: PTR_API_VERSION, kind: PTR_KIND }, 'Warning', 'WebhookFailureIgnored', message);
    }
    let current = rule;
    if (evaluation.changed) {
      const next = { ...rule, apiVersion: PTR_API_VERSION, kind: PTR_KIND, status: evaluation.status };
      // A rule deleted meanwhile (its finalizer removed) has nothing left to write.
      const written = await during(`write the status of PodTransitionRule ${key}`, unlessNotFound(client.replace<PodTransitionRule>(PODTRANSITIONRULES, next, { subresource: 'status', signal })));
      if (!written) return;
      current = written;
      this.#options.rules.assume(written);
      this.#recordVerdictChanges(rule, evaluation);
    }
    evaluation.releaseAnswers();
    await this.#syncDetailAnnotations(rule.status?.targets ?? [], { ...current, status: evaluation.status }, signal);
    // As controller-runtime: a delay wins over a retry with backoff, which a failed rule asks for as an error (the
    // status says which rule failed and why).
    if (evaluation.requeueAfterMs !== undefined) return { requeueAfterMs: evaluation.requeueAfterMs };
    if (evaluation.requeue) throw new Error(`PodTransitionRule ${key}: ${evaluation.errors.map((e) => `rule ${e.rule} (${e.stage}): ${e.message}`).join('; ')}`);
  }

  /** An event per pod whose verdict changed; a pod that only waits for a webhook answer has no verdict yet. */
  #recordVerdictChanges(previous: PodTransitionRule, evaluation: Evaluation): void {
    const events = this.#options.events;
    if (!events) return;
    const ruleName = previous.metadata.name ?? '';
    const details = evaluation.status.details;
    const waiting = new Set(evaluation.waiting.map((w) => JSON.stringify([w.stage, w.pod])));
    for (const detail of details ?? []) {
      const podName = detail.name ?? '';
      if (verdictOf(previous.status?.details, podName) === verdictOf(details, podName)) continue;
      if (waiting.has(JSON.stringify([detail.stage, podName]))) continue;
      const cached = this.#options.pods.get(previous.metadata.namespace, podName);
      if (!cached) continue;
      const pod = { ...cached, apiVersion: 'v1', kind: 'Pod' };
      if (detail.passed) events.event(pod, 'Normal', 'TransitionPassed', `PodTransitionRule ${ruleName} passed stage ${detail.stage ?? ''}`);
      else {
        const reasons = (detail.rejectInfo ?? []).map((r) => `${r.ruleName ?? ''}: ${r.reason ?? ''}`).join('; ');
        events.event(pod, 'Warning', 'TransitionRejected', `PodTransitionRule ${ruleName} rejected stage ${detail.stage ?? ''}: ${reasons}`);
      }
    }
  }

  /** Every target carries its detail; pods that left the targets lose the annotation. */
  async #syncDetailAnnotations(previousTargets: readonly string[], rule: PodTransitionRule, signal: AbortSignal): Promise<void> {
    const annotation = transitionDetailAnnotation(rule.metadata.name ?? '');
    const targets = rule.status?.targets ?? [];
    const desired = new Map<string, string | null>(detailAnnotationValues(rule, targets));
    for (const pod of previousTargets) if (!desired.has(pod)) desired.set(pod, null);
    await this.#annotate(rule.metadata.namespace ?? '', annotation, desired, signal);
  }

  async #annotate(namespace: string, annotation: string, values: Map<string, string | null>, signal: AbortSignal): Promise<void> {
    const stale = detailAnnotationWrites(annotation, values, (podName) => this.#options.pods.get(namespace, podName));
    // A rule may select thousands of pods: a few patches in flight at once, not one round trip after another.
    let next = 0;
    const patchNext = async (): Promise<void> => {
      while (next < stale.length) {
        const [podName, value] = stale[next++] as [string, string | null];
        // A single annotation: a merge patch cannot lose anyone else's change, so no resourceVersion guard. A pod
        // gone meanwhile needs none.
        const patch = { metadata: { annotations: { [annotation]: value } } };
        await during(`write ${annotation} of pod ${namespace}/${podName}`, unlessNotFound(this.#options.client.patch(PODS, namespace, podName, 'merge', patch, { signal })));
      }
    };
    await Promise.all(Array.from({ length: Math.min(ANNOTATION_PATCHES_IN_FLIGHT, stale.length) }, patchNext));
  }

  /** A rule being deleted: drop its annotations from the pods, forget its calls and polls, release the finalizer. */
  async #finalize(rule: PodTransitionRule, signal: AbortSignal): Promise<void> {
    this.#options.calls.forget(rule);
    const namespace = rule.metadata.namespace ?? '';
    const annotation = transitionDetailAnnotation(rule.metadata.name ?? '');
    await this.#annotate(namespace, annotation, new Map((rule.status?.targets ?? []).map((pod) => [pod, null])), signal);
    for (const ruleState of rule.status?.ruleStates ?? []) {
      const ruleKey = ruleKeyOf({ namespace, name: rule.metadata.name ?? '', rule: ruleState.name ?? '' });
      for (const task of ruleState.webhookStatus?.taskStates ?? []) this.#options.polls.forget({ ruleKey, taskId: task.taskId ?? '' });
    }
    const finalizers = rule.metadata.finalizers ?? [];
    if (finalizers.includes(TRANSITION_RULE_FINALIZER)) await this.#setFinalizers(rule, finalizers.filter((f) => f !== TRANSITION_RULE_FINALIZER), 'remove the finalizer', signal);
  }

  /** A merge patch replaces the finalizer list whole: guarded by the version read. A rule gone meanwhile needs none. */
  async #setFinalizers(rule: PodTransitionRule, finalizers: string[], step: string, signal: AbortSignal): Promise<void> {
    const body = { metadata: { resourceVersion: rule.metadata.resourceVersion, finalizers } };
    const { namespace, name = '' } = rule.metadata;
    const written = await during(`${step} of PodTransitionRule ${keyOf(namespace, name)}`, unlessNotFound(this.#options.client.patch<PodTransitionRule>(PODTRANSITIONRULES, namespace, name, 'merge', body, { signal })));
    // The cache holds the write at once (assumed): the next reconcile starts from it, not from before it.
    if (written) this.#options.rules.assume(written);
  }
}
