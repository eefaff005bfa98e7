// PodTransitionRules gating PreCheck: an availablePolicy that lets one pod of two out at a time, a labelCheck
// that holds a pod until it carries a label, each blocking with its exact reason, then releasing; and a rule
// that holds only the pods of its own namespace.

import { PRE_CHECK_STAGE, idLabelKey } from '../../api/protocol.ts';
import { ID, begin, finish, podInService } from '../actors.ts';
import type { ScenarioContext } from '../context.ts';
import { RULES_MATCHED_BY_POD_NAME } from '../deviations.ts';
import { labelMismatches } from '../expect.ts';
import { RELEASE_LABEL, createRule, releaseRejection, releaseRule, ruleSelected, waitForRejection, waitForTargets } from '../rules.ts';
import type { Scenario } from '../scenario.ts';

const key = idLabelKey;

/** Lets a lifecycle that passed PreCheck run to its end: operate (no protection finalizer), finish, back in service. */
async function runToEnd(ctx: ScenarioContext, pod: string): Promise<void> {
  await ctx.waitForLabels(pod, `operate on ${pod}`, { [key('operate', ID)]: true });
  await finish(ctx, pod);
  await ctx.backInService(pod, [ID]);
}

/** A pod in service selected by a new rule requiring RELEASE_LABEL=true, once the rule lists it. */
async function podHeldByReleaseRule(ctx: ScenarioContext, pod: string, rule: string): Promise<void> {
  await podInService(ctx, pod, { labels: ruleSelected(ctx) });
  await createRule(ctx, rule, [releaseRule('released')]);
  await waitForTargets(ctx, rule, [pod]);
}

/** Begins a lifecycle that the rule rejects in PreCheck with the label check reason: the pod stays in pre-check. */
async function beginRejected(ctx: ScenarioContext, pod: string, rule: string): Promise<void> {
  await begin(ctx, pod);
  await waitForRejection(ctx, rule, pod, PRE_CHECK_STAGE, 'released', releaseRejection(ctx, pod));
  ctx.expectLabels(await ctx.readPod(pod), 'the rejected pod', { [key('pre-check', ID)]: true, [key('pre-checked', ID)]: false });
}

const availablePolicy: Scenario = {
  name: 'transition/available-policy',
  title: 'availablePolicy maxUnavailableValue 1 lets one of two pods through PreCheck, and the other once the first is back',
  requires: ['podTransitionRule'],
  async run(ctx) {
    const pods = [ctx.name('web-a'), ctx.name('web-b')];
    const rule = ctx.name('budget');
    await ctx.step('two pods in service, selected by a rule with maxUnavailableValue: 1', async () => {
      for (const pod of pods) await podInService(ctx, pod, { labels: ruleSelected(ctx) });
      await createRule(ctx, rule, [{ name: 'one-at-a-time', availablePolicy: { maxUnavailableValue: 1 } }]);
      await waitForTargets(ctx, rule, pods);
    });
    await ctx.step('begin on both', async () => {
      for (const pod of pods) await begin(ctx, pod);
    });
    const [passed, blocked] = await ctx.step('one passes PreCheck; the other is rejected with the max unavailable reason', async () => {
      const first = await ctx.waitFor(
        'one pod pre-checked',
        () => Promise.all(pods.map((pod) => ctx.readPod(pod))),
        (read) => (read.some((p) => labelMismatches(p, { [key('pre-checked', ID)]: true }).length === 0) ? [] : ['neither pod is pre-checked']),
        (read) => ({ kind: 'Object', name: 'the pods', state: read.map((p) => ({ name: p.metadata.name, labels: p.metadata.labels })) }),
      );
      const winner = first.find((p) => p.metadata.labels?.[key('pre-checked', ID)] !== undefined)!.metadata.name!;
      const other = pods.find((p) => p !== winner)!;
      await waitForRejection(ctx, rule, other, PRE_CHECK_STAGE, 'one-at-a-time', '[one-at-a-time] blocked by max unavailable policy: [max unavailable]=1/2, [current unavailable]=1/2');
      ctx.expectLabels(await ctx.readPod(other), `${other} while ${winner} is out`, { [key('pre-check', ID)]: true, [key('pre-checked', ID)]: false });
      return [winner, other] as const;
    });
    await ctx.step(`${passed} runs its lifecycle and returns to service`, () => runToEnd(ctx, passed));
    await ctx.step(`${blocked} passes PreCheck then, and runs its lifecycle too`, () => runToEnd(ctx, blocked));
  },
};

const labelCheck: Scenario = {
  name: 'transition/label-check',
  title: 'labelCheck holds a pod in PreCheck until it has the label required, with the label check reason',
  requires: ['podTransitionRule'],
  async run(ctx) {
    const pod = ctx.name('web');
    const rule = ctx.name('ready-check');
    await ctx.step(`a pod in service, selected by a rule requiring ${RELEASE_LABEL}=true`, () => podHeldByReleaseRule(ctx, pod, rule));
    await ctx.step('begin: the rule rejects the pod with the label check reason, and it stays in PreCheck', () => beginRejected(ctx, pod, rule));
    await ctx.step(`label the pod ${RELEASE_LABEL}=true: it passes PreCheck and runs its lifecycle`, async () => {
      await ctx.setLabels(pod, { [RELEASE_LABEL]: 'true' });
      await ctx.waitForLabels(pod, 'pre-checked', { [key('pre-checked', ID)]: true });
      await runToEnd(ctx, pod);
    });
  },
};

const namespaceScoped: Scenario = {
  name: 'transition/namespace-scoped',
  title: 'a rule holds the pods of its own namespace only: a pod of the same name and labels in another namespace passes PreCheck',
  requires: ['podTransitionRule'],
  async run(ctx) {
    const pod = ctx.name('web');
    const rule = ctx.name('hold');
    await ctx.step(`a pod in service, selected by a rule requiring ${RELEASE_LABEL}=true`, () => podHeldByReleaseRule(ctx, pod, rule));
    await ctx.step('begin: the rule rejects the pod, which stays in PreCheck', () => beginRejected(ctx, pod, rule));
    const other = await ctx.step('a pod of the same name and labels in service in another namespace, which has no rule', async () => {
      const there = await ctx.otherNamespace('the same-named pod');
      await podInService(there, pod, { labels: ruleSelected(there) });
      return there;
    });
    await ctx.step('begin on the pod in the other namespace: no rule of its namespace holds it, so it passes PreCheck', async () => {
      await begin(other, pod);
      await other.waitForLabels(pod, 'pre-checked', { [key('pre-checked', ID)]: true });
    }, { detects: RULES_MATCHED_BY_POD_NAME });
    await ctx.step('the pod in the other namespace runs its lifecycle and returns to service', () => runToEnd(other, pod));
  },
};

export const transitionScenarios: readonly Scenario[] = [availablePolicy, labelCheck, namespaceScoped];
