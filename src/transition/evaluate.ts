// One evaluation of a PodTransitionRule: select the pods, run each stage, and merge the stages into the
// new status (Kuperator's behaviour, docs/podtransitionrule.md). Pure: time, CollaSet lookups, poll results and the
// states of first requests (in flight or answered) are inputs; first requests to start, answers to keep
// and poll tasks to start or forget are outputs. webhook/driver.ts runs the I/O around it.

import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Pod } from '../api/kube.ts';
import type { PodTransitionDetail, PodTransitionRule, PodTransitionRuleStatus, RuleState } from '../api/podtransitionrule.ts';
import { TRANSITION_STAGES, type TransitionStage } from '../api/protocol.ts';
import { compileLabelSelector, LabelSelectorError } from '../api/selector.ts';
import { transitionStages } from '../lifecycle/reconcile.ts';
import { rfc3339FromNanos, type Nanos } from '../lifecycle/time.ts';
import type { CollaSetLookup } from './available.ts';
import { processStage, type RuleError } from './processor.ts';
import { skippedRuleNames, stageRules } from './rules.ts';
import type { IgnoredFailure, PollResults, PollTaskRef, PollTaskSpec, WebhookCall, WebhookCallOutcome } from './webhook-rule.ts';

export interface EvaluationInput {
  ptr: PodTransitionRule;
  /** Candidate pods: those of the rule's namespace matching spec.selector are its targets. */
  pods: readonly Pod[];
  now: Nanos;
  /** Rule types to ignore (SKIP_POD_TRANSITION_RULES, see parseSkipRuleTypes). */
  skipRuleTypes?: ReadonlySet<string>;
  /** CollaSet owners of the pods, for availablePolicy's missing-replica deficit. Default: none exist. */
  collaSets?: CollaSetLookup;
  /** The poll manager's results. Default: none (as after a restart). */
  polls?: PollResults;
  /** The first request of each webhook rule that has one in flight or answered, by rule index. */
  webhookOutcomes?: ReadonlyMap<number, WebhookCallOutcome>;
  /** Trace IDs of first requests. Default: random UUID v4. */
  newTraceId?: () => string;
}

export interface Evaluation {
  /** The new status, `updateTime` = now. */
  status: PodTransitionRuleStatus;
  /** The status differs from the previous one in anything but updateTime: write it. */
  changed: boolean;
  /** A rule failed: requeue with backoff. */
  requeue: boolean;
  /** The smallest interval a rule asked for. */
  requeueAfterMs?: number;
  errors: RuleError[];
  /** Problems that retrying does not fix (bad selector, bad skip annotation), for logs. */
  warnings: string[];
  /**
   * First requests to start in the background (each replaces its rule's answered call). Their pods wait,
   * rejected with `Waiting for webhook <key> response, traceId <t>`, until an evaluation gets the answer.
   */
  calls: WebhookCall[];
  /** Rules (by index) whose answered call stands: keep it. Every other answered call given is used up. */
  keptAnswers: number[];
  /** Pods whose detail is rejected only while they wait for a webhook answer: no decision yet. */
  waiting: { stage: TransitionStage; pod: string }[];
  /** Poll tasks to register with the poll manager (new tasks, and tasks whose result a restart lost). */
  startPolls: PollTaskSpec[];
  /** Poll tasks the manager can drop. */
  forgetPolls: PollTaskRef[];
  /** Pods passed by failurePolicy Ignore despite a failed call, for events. */
  ignored: IgnoredFailure[];
}

export function evaluate(input: EvaluationInput): Evaluation {
  const { ptr, now } = input;
  const warnings: string[] = [];
  const targets = selectTargets(ptr, input.pods, warnings);
  const targetNames = [...targets.keys()].sort();
  const passedBefore = new Map<string, Set<string>>();
  for (const detail of ptr.status?.details ?? []) {
    const name = detail.name ?? '';
    const rules = passedBefore.get(name) ?? new Set<string>();
    for (const rule of detail.passedRules ?? []) rules.add(rule);
    passedBefore.set(name, rules);
  }
  const skips = new Map<string, ReadonlySet<string>>();
  const skippedRules = (name: string): ReadonlySet<string> => {
    let names = skips.get(name);
    if (names === undefined) {
      try {
        names = skippedRuleNames(targets.get(name) as Pod);
      } catch (err) {
        warnings.push(`pod ${ptr.metadata.namespace ?? ''}/${name}: ${(err as Error).message}`);
        names = new Set();
      }
      skips.set(name, names);
    }
    return names;
  };
  const stagesOf = new Map(targetNames.map((name) => [name, transitionStages(targets.get(name) as Pod)]));

  const details: { stageIndex: number; detail: PodTransitionDetail }[] = [];
  const ruleStates: RuleState[] = [];
  const evaluation: Evaluation = {
    status: {},
    changed: false,
    requeue: false,
    errors: [],
    warnings,
    calls: [],
    keptAnswers: [],
    waiting: [],
    startPolls: [],
    forgetPolls: [],
    ignored: [],
  };
  TRANSITION_STAGES.forEach((stage, stageIndex) => {
    const result = processStage({
      ptr,
      stage,
      rules: stageRules(ptr.spec?.rules ?? [], stage, input.skipRuleTypes ?? new Set()),
      targets,
      inStage: targetNames.filter((name) => stagesOf.get(name)?.includes(stage)),
      passedBefore,
      skippedRules,
      now,
      collaSets: input.collaSets ?? (() => undefined),
      polls: input.polls ?? (() => undefined),
      webhookOutcomes: input.webhookOutcomes ?? new Map(),
      newTraceId: input.newTraceId ?? randomUUID,
    });
    for (const [name, rules] of result.passedRules) {
      const rejection = result.rejected.get(name);
      details.push({
        stageIndex,
        detail: {
          name,
          stage,
          passed: rejection === undefined,
          ...(rules.size > 0 ? { passedRules: [...rules].sort() } : {}),
          ...(rejection !== undefined ? { rejectInfo: [rejection] } : {}),
        },
      });
    }
    ruleStates.push(...result.ruleStates);
    evaluation.errors.push(...result.errors);
    if (result.intervalMs !== undefined) evaluation.requeueAfterMs = Math.min(evaluation.requeueAfterMs ?? Infinity, result.intervalMs);
    evaluation.calls.push(...result.calls);
    evaluation.keptAnswers.push(...result.keptAnswers);
    for (const pod of [...result.waiting].sort()) evaluation.waiting.push({ stage, pod });
    evaluation.startPolls.push(...result.startPolls);
    evaluation.forgetPolls.push(...result.forgetPolls);
    evaluation.ignored.push(...result.ignored);
  });
  details.sort((a, b) => compareNames(a.detail.name as string, b.detail.name as string) || a.stageIndex - b.stageIndex);

  const status: PodTransitionRuleStatus = {
    updateTime: rfc3339FromNanos(now),
    ...(ptr.metadata.generation ? { observedGeneration: ptr.metadata.generation } : {}),
    ...(targetNames.length > 0 ? { targets: targetNames } : {}),
    ...(ruleStates.length > 0 ? { ruleStates } : {}),
    ...(details.length > 0 ? { details: details.map((d) => d.detail) } : {}),
    summary: summarize(targetNames.length, details.map((d) => d.detail)),
  };
  evaluation.status = status;
  evaluation.changed = !isDeepStrictEqual(withoutUpdateTime(ptr.status), withoutUpdateTime(status));
  evaluation.requeue = evaluation.errors.length > 0;
  return evaluation;
}

const compareNames = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function withoutUpdateTime(status: PodTransitionRuleStatus | undefined): PodTransitionRuleStatus {
  const { updateTime: _ignored, ...rest } = status ?? {};
  return rest;
}

/** The pods of the rule's namespace its selector matches. A nil selector selects none; so does an invalid one (with a warning). */
function selectTargets(ptr: PodTransitionRule, pods: readonly Pod[], warnings: string[]): Map<string, Pod> {
  const namespace = ptr.metadata.namespace ?? '';
  let matches: (pod: Pod) => boolean;
  try {
    const selector = compileLabelSelector(ptr.spec?.selector);
    matches = (pod) => selector.matches(pod.metadata.labels);
  } catch (err) {
    if (!(err instanceof LabelSelectorError)) throw err;
    warnings.push(`invalid spec.selector, no pod selected: ${err.message}`);
    matches = () => false;
  }
  const targets = new Map<string, Pod>();
  for (const pod of pods) {
    if ((pod.metadata.namespace ?? '') === namespace && pod.metadata.name !== undefined && matches(pod)) targets.set(pod.metadata.name, pod);
  }
  return targets;
}

function summarize(targets: number, details: readonly PodTransitionDetail[]): NonNullable<PodTransitionRuleStatus['summary']> {
  const blocked = new Set<string>();
  const inStage = new Set<string>();
  for (const detail of details) {
    inStage.add(detail.name ?? '');
    if (!detail.passed) blocked.add(detail.name ?? '');
  }
  return { targets, checking: inStage.size, passed: inStage.size - blocked.size, blocked: blocked.size };
}
