// Undo in each phase: the lifecycle is held in the phase (by a PodTransitionRule, the protection finalizer, an
// operation never finished, or an expected finalizer never added), undone, and every label of it goes in the
// undo write; the pod then returns to service.

import { AVAILABLE_CONDITIONS_ANNOTATION, PRE_CHECK_STAGE, POST_CHECK_STAGE, idLabelKey, operationPermissionKey, type IdLabelWord } from '../../api/protocol.ts';
import { ID, TYPE, addFinalizer, begin, expectedFinalizer, finish, noLabelsOf, podInService, undo } from '../actors.ts';
import type { ScenarioContext } from '../context.ts';
import { serviceReadyMismatches } from '../expect.ts';
import { createRule, releaseRejection, releaseRule, ruleSelected, waitForRejection, waitForTargets } from '../rules.ts';
import type { CapabilityName } from '../capabilities.ts';
import type { Scenario } from '../scenario.ts';

/** An expected finalizer nobody adds: the lifecycle cannot be cleaned up. */
const NEVER_ADDED = 'conformance.podops.io/never-added';

interface Hold {
  phase: string;
  /** The label of the ID that shows the lifecycle in the phase. */
  word: IdLabelWord;
  requires?: readonly CapabilityName[];
  /** Puts the hold in place on a pod in service. */
  hold(ctx: ScenarioContext, pod: string): Promise<unknown>;
  /** The operation is done before the phase. */
  finished: boolean;
  /** Waits until the hold is seen holding. */
  held(ctx: ScenarioContext, pod: string): Promise<unknown>;
  /** Takes the hold away after the undo, as its owner would once no lifecycle is left. */
  release?(ctx: ScenarioContext, pod: string): Promise<unknown>;
}

const ruleHold = (stage: typeof PRE_CHECK_STAGE | typeof POST_CHECK_STAGE, word: IdLabelWord, finished: boolean): Hold => ({
  phase: stage,
  word,
  finished,
  requires: ['podTransitionRule'],
  async hold(ctx, pod) {
    await createRule(ctx, ctx.name('hold'), [releaseRule('release', stage)]);
    await waitForTargets(ctx, ctx.name('hold'), [pod]);
  },
  held: (ctx, pod) => waitForRejection(ctx, ctx.name('hold'), pod, stage, 'release', releaseRejection(ctx, pod)),
});

const holds: Hold[] = [
  ruleHold(PRE_CHECK_STAGE, 'pre-check', false),
  {
    phase: 'Preparing',
    word: 'preparing',
    finished: false,
    // The cooperation controller keeps routing to the pod: its protection finalizer stays.
    hold: (ctx, pod) => addFinalizer(ctx, pod),
    held: (ctx, pod) => ctx.waitForPod(pod, 'the gate False', (p) => serviceReadyMismatches(p, 'False')),
  },
  { phase: 'Operating', word: 'operate', finished: false, hold: async () => {}, held: async () => {} },
  ruleHold(POST_CHECK_STAGE, 'post-check', true),
  {
    phase: 'Completing',
    word: 'completing',
    finished: true,
    hold: (ctx, pod) => ctx.updatePod(pod, (p) => void Object.assign((p.metadata.annotations ??= {}), expectedFinalizer(ctx, NEVER_ADDED))),
    held: (ctx, pod) => ctx.waitForPod(pod, 'the gate True', (p) => serviceReadyMismatches(p, 'True')),
    release: (ctx, pod) => ctx.updatePod(pod, (p) => void delete p.metadata.annotations?.[AVAILABLE_CONDITIONS_ANNOTATION]),
  },
];

const undoIn = (h: Hold): Scenario => ({
  name: `undo/${h.word}`,
  title: `undo in ${h.phase} removes every label of the lifecycle in the undo write, and the pod returns to service`,
  ...(h.requires && { requires: h.requires }),
  async run(ctx) {
    const pod = ctx.name('web');
    await ctx.step('a pod in service', () => podInService(ctx, pod, { labels: ruleSelected(ctx) }));
    await ctx.step(`hold the lifecycle in ${h.phase}`, () => h.hold(ctx, pod));
    await ctx.step(`begin${h.finished ? ', wait for operate, finish' : ''}`, async () => {
      await begin(ctx, pod);
      if (!h.finished) return;
      await ctx.waitForLabels(pod, 'operate', { [idLabelKey('operate', ID)]: true });
      await finish(ctx, pod);
    });
    await ctx.step(`the lifecycle is held in ${h.phase}`, async () => {
      await ctx.waitForLabels(pod, `${idLabelKey(h.word, ID)}`, { [idLabelKey(h.word, ID)]: true });
      await h.held(ctx, pod);
    });
    await ctx.step('undo: every label of the lifecycle goes in the undo write, with the permission of its type', async () => {
      const undone = await undo(ctx, pod);
      ctx.expectLabels(undone, 'the answer to the undo write', { ...noLabelsOf(ID), [operationPermissionKey(TYPE)]: false });
    });
    if (h.release) await ctx.step('the hold is taken away', () => h.release!(ctx, pod));
    await ctx.step('the pod returns to service: the gate True, Ready, service-available', () => ctx.backInService(pod, [ID]));
  },
});

export const undoScenarios: readonly Scenario[] = holds.map(undoIn);
