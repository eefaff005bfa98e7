// Which rules of a PodTransitionRule run in a stage, and in what order (Kuperator's behaviour, docs/podtransitionrule.md).

import type { Pod } from '../api/kube.ts';
import type { TransitionRule } from '../api/podtransitionrule.ts';
import { PRE_CHECK_STAGE, SKIP_RULE_CONDITIONS_ANNOTATION, TRANSITION_STAGES, type TransitionStage } from '../api/protocol.ts';

/** The rule definitions, in upstream's precedence: a rule holding several runs the first. */
export const RULE_TYPES = ['availablePolicy', 'labelCheck', 'webhook'] as const;
export type RuleType = (typeof RULE_TYPES)[number];

/** Upstream's sort weights: availability first, then label checks, then the (slow) webhook. */
const WEIGHT: Record<RuleType, number> = { availablePolicy: 1, labelCheck: 3, webhook: 5 };

/** The definition a rule runs, or undefined when it has none (such a rule never runs). */
export const ruleType = (rule: TransitionRule): RuleType | undefined => RULE_TYPES.find((type) => rule[type] != null);

/** Every definition a rule holds (validation allows exactly one). */
export const ruleDefinitions = (rule: TransitionRule): RuleType[] => RULE_TYPES.filter((type) => rule[type] != null);

/** A rule's stage: its explicit `stage`, else PreCheck (the first registered stage; no rule type has its own default). */
export const ruleStage = (rule: TransitionRule): string => rule.stage ?? PRE_CHECK_STAGE;

export const isLifecycleStage = (stage: string): stage is TransitionStage => (TRANSITION_STAGES as readonly string[]).includes(stage);

/** A rule with its position in `spec.rules`, which identifies it within one evaluation. */
export interface IndexedRule {
  index: number;
  rule: TransitionRule;
  type: RuleType;
}

/**
 * The rules that run in `stage`, sorted by weight. The sort is stable, so rules of the same kind keep
 * their spec order (upstream's sort is not). Disabled rules, rules without a definition, and rules
 * holding any definition named in `skipTypes` (SKIP_POD_TRANSITION_RULES) do not run.
 */
export function stageRules(rules: readonly TransitionRule[], stage: TransitionStage, skipTypes: ReadonlySet<string>): IndexedRule[] {
  const selected: IndexedRule[] = [];
  rules.forEach((rule, index) => {
    const type = ruleType(rule);
    if (type === undefined || rule.disabled === true || ruleStage(rule) !== stage) return;
    if (ruleDefinitions(rule).some((t) => skipTypes.has(t))) return;
    selected.push({ index, rule, type });
  });
  return selected.sort((a, b) => WEIGHT[a.type] - WEIGHT[b.type]);
}

/** The rule types listed in SKIP_POD_TRANSITION_RULES (a comma list; blanks ignored). The driver reads the variable. */
export function parseSkipRuleTypes(value: string | undefined): Set<string> {
  return new Set((value ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0));
}

/**
 * Rule names the pod's skip annotation (`{"skipRules":[...]}`) names. Throws an Error naming the
 * annotation when it is not that JSON; upstream then skips nothing, and so do the callers.
 */
export function skippedRuleNames(pod: Pod): Set<string> {
  const raw = pod.metadata.annotations?.[SKIP_RULE_CONDITIONS_ANNOTATION];
  if (raw === undefined || raw === '') return new Set();
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new Error(`invalid annotation ${SKIP_RULE_CONDITIONS_ANNOTATION}: ${(err as Error).message}`, { cause: err });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`invalid annotation ${SKIP_RULE_CONDITIONS_ANNOTATION}: must be a JSON object`);
  }
  const names = (parsed as { skipRules?: unknown }).skipRules;
  if (names == null) return new Set();
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
    throw new Error(`invalid annotation ${SKIP_RULE_CONDITIONS_ANNOTATION}: skipRules must be a list of strings`);
  }
  return new Set(names);
}
