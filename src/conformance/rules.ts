// PodTransitionRules as a scenario writes and reads them: created with a selector and rules, and waited for
// until the implementation lists the pods in status.targets (until then a rule does not hold a pod back in
// every implementation) or reports a pod's detail for a stage.

import { PTR_API_VERSION, PTR_KIND, type PodTransitionDetail, type PodTransitionRule, type TransitionRule } from '../api/podtransitionrule.ts';
import type { TransitionStage } from '../api/protocol.ts';
import { PODTRANSITIONRULES } from '../kube/resources.ts';
import type { ScenarioContext } from './context.ts';

/** The selector of a scenario's rules, unique to the run as its names are: the pods it creates for rules carry it. */
export const ruleSelected = (ctx: ScenarioContext): Record<string, string> => ({ app: ctx.name('web') });

/** The label a labelCheck rule of the scenarios requires (`=true`): a pod without it is held in the rule's stage. */
export const RELEASE_LABEL = 'conformance.podops.io/release';

/** A labelCheck rule requiring RELEASE_LABEL=true, in the stage given (PreCheck when none). */
export const releaseRule = (name: string, stage?: TransitionStage): TransitionRule => ({ name, ...(stage && { stage }), labelCheck: { requires: { matchLabels: { [RELEASE_LABEL]: 'true' } } } });

/** How a releaseRule rejects a pod without the label. */
export const releaseRejection = (ctx: ScenarioContext, pod: string): string => `block by label check policy, pod ${ctx.namespace}/${pod} labels not match ${RELEASE_LABEL}=true`;

export async function createRule(ctx: ScenarioContext, name: string, rules: TransitionRule[]): Promise<void> {
  const rule: PodTransitionRule = { apiVersion: PTR_API_VERSION, kind: PTR_KIND, metadata: { name, namespace: ctx.namespace }, spec: { selector: { matchLabels: ruleSelected(ctx) }, rules } };
  await ctx.client.create(PODTRANSITIONRULES, rule, { signal: ctx.signal });
}

export function waitForTargets(ctx: ScenarioContext, name: string, pods: string[]): Promise<PodTransitionRule> {
  return ctx.waitForObject<PodTransitionRule>(PODTRANSITIONRULES, name, `PodTransitionRule ${name} to list ${pods.join(', ')} in status.targets`, (rule) => {
    const targets = rule.status?.targets ?? [];
    return pods.filter((pod) => !targets.includes(pod)).map((pod) => `${pod} is not in status.targets ${JSON.stringify(targets)}`);
  });
}

const detailOf = (rule: PodTransitionRule, pod: string, stage: TransitionStage): PodTransitionDetail | undefined =>
  rule.status?.details?.find((d) => d.name === pod && d.stage === stage);

/** Waits until the rule rejects the pod in the stage with exactly this reason from this rule. */
export function waitForRejection(ctx: ScenarioContext, name: string, pod: string, stage: TransitionStage, ruleName: string, reason: string): Promise<PodTransitionRule> {
  return ctx.waitForObject<PodTransitionRule>(PODTRANSITIONRULES, name, `PodTransitionRule ${name} to reject ${pod} in ${stage}`, (rule) => {
    const detail = detailOf(rule, pod, stage);
    if (!detail) return [`no status.details entry for ${pod} in ${stage}`];
    if (detail.passed) return [`${pod} passed ${stage}`];
    const got = (detail.rejectInfo ?? []).map((r) => `${r.ruleName}: ${r.reason}`);
    return got.includes(`${ruleName}: ${reason}`) ? [] : [`rejectInfo ${JSON.stringify(got)}, expected "${ruleName}: ${reason}"`];
  });
}
