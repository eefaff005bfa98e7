// What one rule decides for its subjects in one stage, and the facts every rule reads.

import type { Pod } from '../api/kube.ts';

export interface RuleResult {
  passed: Set<string>;
  /** Pod name -> reject reason. */
  rejected: Map<string, string>;
  /** The rule could not decide (bad value, failed call): the controller retries with backoff. */
  error?: string;
  /** Evaluate again after this many milliseconds. */
  intervalMs?: number;
}

export interface RuleContext {
  /** Namespace of the PodTransitionRule. */
  namespace: string;
  /** `<namespace>/<ptr>/<rule>`, as upstream's reject reasons and poll keys name a rule. */
  ruleKey: string;
  ruleName: string;
  /** The pods the rule decides on, sorted by name. */
  subjects: readonly string[];
  /** Every selected pod by name (availability counts all of them). */
  targets: ReadonlyMap<string, Pod>;
  /** The pod passed this rule in the previous status: the decision is sticky while the pod stays in the stage. */
  passedBefore: (podName: string) => boolean;
}

/** Rejects every subject not passed yet with one reason, and records it as the rule's error. */
export function rejectAll(context: RuleContext, result: RuleResult, reason: string): RuleResult {
  for (const name of context.subjects) if (!result.passed.has(name) && !result.rejected.has(name)) result.rejected.set(name, reason);
  return { ...result, error: reason };
}

export const emptyResult = (): RuleResult => ({ passed: new Set(), rejected: new Map() });
