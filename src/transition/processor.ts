// One stage of one PodTransitionRule (Kuperator's behaviour, docs/podtransitionrule.md): the rules of the stage run in order
// over the pods in the stage; a pod skipped by a rule (skip annotation or filter) re-enters the later
// rules, a rejected one does not; the last rejection of a pod is the one kept.

import type { Pod } from '../api/kube.ts';
import type { PodTransitionRule, RejectInfo, RuleState } from '../api/podtransitionrule.ts';
import type { TransitionStage } from '../api/protocol.ts';
import { compileLabelSelector, LabelSelectorError } from '../api/selector.ts';
import type { Nanos } from '../lifecycle/time.ts';
import { availablePolicyRule, type CollaSetLookup } from './available.ts';
import { labelCheckRule } from './labelcheck.ts';
import type { RuleContext, RuleResult } from './result.ts';
import type { IndexedRule } from './rules.ts';
import {
  webhookRule,
  type IgnoredFailure,
  type PollResults,
  type PollTaskRef,
  type PollTaskSpec,
  type WebhookCall,
  type WebhookCallOutcome,
} from './webhook-rule.ts';

export interface RuleError {
  stage: TransitionStage;
  rule: string;
  message: string;
}

export interface StageInput {
  ptr: PodTransitionRule;
  stage: TransitionStage;
  rules: readonly IndexedRule[];
  targets: ReadonlyMap<string, Pod>;
  /** Selected pods in this stage, sorted by name. */
  inStage: readonly string[];
  /** Rules each pod passed in the previous status. */
  passedBefore: ReadonlyMap<string, ReadonlySet<string>>;
  /** Rule names each pod's skip annotation names. */
  skippedRules: (podName: string) => ReadonlySet<string>;
  now: Nanos;
  collaSets: CollaSetLookup;
  polls: PollResults;
  /** The state of each webhook rule's first request, by rule index. */
  webhookOutcomes: ReadonlyMap<number, WebhookCallOutcome>;
  newTraceId: () => string;
}

export interface StageResult {
  /** In-stage pod -> names of the rules it passed. */
  passedRules: Map<string, Set<string>>;
  rejected: Map<string, RejectInfo>;
  ruleStates: RuleState[];
  errors: RuleError[];
  intervalMs?: number;
  calls: WebhookCall[];
  /** Rule indices whose answered call stands for later evaluations. */
  keptAnswers: number[];
  /** In-stage pods whose rejection is a wait for a webhook answer. */
  waiting: Set<string>;
  startPolls: PollTaskSpec[];
  forgetPolls: PollTaskRef[];
  ignored: IgnoredFailure[];
}

export function processStage(input: StageInput): StageResult {
  const { ptr, stage } = input;
  const namespace = ptr.metadata.namespace ?? '';
  const result: StageResult = {
    passedRules: new Map(input.inStage.map((name) => [name, new Set<string>()])),
    rejected: new Map(),
    ruleStates: [],
    errors: [],
    calls: [],
    keptAnswers: [],
    waiting: new Set(),
    startPolls: [],
    forgetPolls: [],
    ignored: [],
  };
  let processing = new Set(input.inStage);
  const skipped = new Set<string>();

  for (const { index, rule, type } of input.rules) {
    const ruleName = rule.name ?? '';
    for (const name of processing) {
      if (input.skippedRules(name).has(ruleName)) {
        skipped.add(name);
        processing.delete(name);
      }
    }
    let filterError: string | undefined;
    if (rule.filter?.labelSelector != null) {
      try {
        const filter = compileLabelSelector(rule.filter.labelSelector);
        for (const name of processing) {
          if (!filter.matches(input.targets.get(name)?.metadata.labels)) {
            skipped.add(name);
            processing.delete(name);
          }
        }
      } catch (err) {
        if (!(err instanceof LabelSelectorError)) throw err;
        filterError = `[${ruleName}] invalid filter.labelSelector: ${err.message}`;
      }
    }
    const context: RuleContext = {
      namespace,
      ruleKey: `${namespace}/${ptr.metadata.name ?? ''}/${ruleName}`,
      ruleName,
      subjects: input.inStage.filter((name) => processing.has(name)),
      targets: input.targets,
      passedBefore: (name) => input.passedBefore.get(name)?.has(ruleName) ?? false,
    };
    let outcome: RuleResult;
    let waiting: ReadonlySet<string> = new Set();
    if (filterError !== undefined) {
      outcome = { passed: new Set(), rejected: new Map(context.subjects.map((name) => [name, filterError])), error: filterError };
    } else if (type === 'webhook') {
      const webhook = webhookRule({
        rule,
        ruleIndex: index,
        stage,
        ptrName: ptr.metadata.name ?? '',
        context,
        previous: ptr.status?.ruleStates?.find((state) => state.name === ruleName),
        now: input.now,
        polls: input.polls,
        outcome: input.webhookOutcomes.get(index),
        newTraceId: input.newTraceId,
      });
      result.ruleStates.push(webhook.ruleState);
      if (webhook.call) result.calls.push(webhook.call);
      if (webhook.keepAnswer) result.keptAnswers.push(index);
      waiting = webhook.waiting;
      result.startPolls.push(...webhook.startPolls);
      result.forgetPolls.push(...webhook.forgetPolls);
      result.ignored.push(...webhook.ignored);
      outcome = webhook;
    } else if (context.subjects.length === 0) {
      outcome = { passed: new Set(), rejected: new Map() };
    } else if (type === 'availablePolicy') {
      outcome = availablePolicyRule(rule.availablePolicy ?? {}, context, input.collaSets);
    } else {
      outcome = labelCheckRule(rule.labelCheck ?? {}, context);
    }

    if (outcome.error !== undefined) result.errors.push({ stage, rule: ruleName, message: outcome.error });
    if (outcome.intervalMs !== undefined) result.intervalMs = Math.min(result.intervalMs ?? Infinity, outcome.intervalMs);
    for (const name of outcome.passed) result.passedRules.get(name)?.add(ruleName);
    for (const [name, reason] of outcome.rejected) {
      result.rejected.set(name, { ruleName, reason });
      if (waiting.has(name)) result.waiting.add(name);
      else result.waiting.delete(name);
    }
    processing = new Set([...outcome.passed, ...skipped]);
  }
  return result;
}
