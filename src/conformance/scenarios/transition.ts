// PodTransitionRules gating PreCheck: an availablePolicy that lets one pod of two out at a time, and a
// labelCheck that holds a pod until it carries a label. Each blocks with its exact reason, then releases.

import { PRE_CHECK_STAGE, SERVICE_AVAILABLE_LABEL, idLabelKey } from '../../api/protocol.ts';
import { ID, begin, finish, noLabelsOf, podInService } from '../actors.ts';
import type { ScenarioContext } from '../context.ts';
import { labelMismatches } from '../expect.ts';
import { RELEASE_LABEL, RULE_POD_LABELS, createRule, releaseRejection, releaseRule, waitForRejection, waitForTargets } from '../rules.ts';
import type { Scenario } from '../scenario.ts';

const key = idLabelKey;

/** Lets a lifecycle that passed PreCheck run to its end: operate (no protection finalizer), finish, service-available. */
async function runToEnd(ctx: ScenarioContext, pod: string): Promise<void> {
  await ctx.waitForLabels(pod, `operate on ${pod}`, { [key('operate', ID)]: true });
  await finish(ctx, pod);
  await ctx.waitForLabels(pod, `${pod} service-available`, { ...noLabelsOf(ID), [SERVICE_AVAILABLE_LABEL]: true });
}

const availablePolicy: Scenario = {
  name: 'transition/available-policy',
  title: 'availablePolicy maxUnavailableValue 1 lets one of two pods through PreCheck, and the other once the first is back',
  requires: ['podTransitionRule'],
  async run(ctx) {
    const pods = ['web-a', 'web-b'];
    await ctx.step('two pods in service, selected by a rule with maxUnavailableValue: 1', async () => {
      for (const pod of pods) await podInService(ctx, pod, { labels: RULE_POD_LABELS });
      await createRule(ctx, 'budget', [{ name: 'one-at-a-time', availablePolicy: { maxUnavailableValue: 1 } }]);
      await waitForTargets(ctx, 'budget', pods);
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
      await waitForRejection(ctx, 'budget', other, PRE_CHECK_STAGE, 'one-at-a-time', '[one-at-a-time] blocked by max unavailable policy: [max unavailable]=1/2, [current unavailable]=1/2');
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
    const pod = 'web';
    await ctx.step(`a pod in service, selected by a rule requiring ${RELEASE_LABEL}=true`, async () => {
      await podInService(ctx, pod, { labels: RULE_POD_LABELS });
      await createRule(ctx, 'ready-check', [releaseRule('released')]);
      await waitForTargets(ctx, 'ready-check', [pod]);
    });
    await ctx.step('begin: the rule rejects the pod with the label check reason, and it stays in PreCheck', async () => {
      await begin(ctx, pod);
      await waitForRejection(ctx, 'ready-check', pod, PRE_CHECK_STAGE, 'released', releaseRejection(ctx, pod));
      ctx.expectLabels(await ctx.readPod(pod), 'the rejected pod', { [key('pre-check', ID)]: true, [key('pre-checked', ID)]: false });
    });
    await ctx.step(`label the pod ${RELEASE_LABEL}=true: it passes PreCheck and runs its lifecycle`, async () => {
      await ctx.setLabels(pod, { [RELEASE_LABEL]: 'true' });
      await ctx.waitForLabels(pod, 'pre-checked', { [key('pre-checked', ID)]: true });
      await runToEnd(ctx, pod);
    });
  },
};

export const transitionScenarios: readonly Scenario[] = [availablePolicy, labelCheck];
