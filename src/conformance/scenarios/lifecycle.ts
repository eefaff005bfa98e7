// The lifecycle itself: the readiness gate on a new pod, one lifecycle through every phase with the suite as
// operation and cooperation controller, two lifecycles meeting at operated, the per-type permission, and a
// lifecycle's clean end while another controller keeps writing the pod.

import { CONTROL_LABEL, SERVICE_AVAILABLE_LABEL, SERVICE_READY_GATE, idLabelKey, operationPermissionKey, OPERATION_PERMISSION_PREFIX } from '../../api/protocol.ts';
import { nowNanos } from '../../kube/clock.ts';
import { ID, PROTECTION_FINALIZER, TYPE, addFinalizer, begin, expectedFinalizer, finish, noLabelsOf, podInService, removeFinalizer, undo, unrelatedWrites } from '../actors.ts';
import { ORPHAN_POST_CHECKED } from '../deviations.ts';
import { inServiceMismatches, labelMismatches, labelsWithPrefix, readyMismatches, serviceReadyMismatches } from '../expect.ts';
import { observedPod } from '../observe.ts';
import type { Scenario } from '../scenario.ts';

const key = idLabelKey;

const readinessGate: Scenario = {
  name: 'lifecycle/readiness-gate',
  title: 'a controlled pod gets the service-ready gate on create, the gate turns True and the pod becomes service-available',
  async run(ctx) {
    const gated = ctx.name('gated');
    await ctx.step('create a controlled pod: the service-ready gate is injected', () => ctx.createControlledPod(gated));
    await ctx.step('create a controlled pod that already has the gate: it is not added twice', async () => {
      const pod = await ctx.createControlledPod(ctx.name('has-gate'), { withGate: true });
      const gates = (pod.spec?.readinessGates ?? []).filter((g) => g.conditionType === SERVICE_READY_GATE).length;
      ctx.expect('the created pod', gates === 1 ? [] : [`${gates} readiness gates ${SERVICE_READY_GATE}, expected 1`], observedPod(pod));
    });
    await ctx.step(`create a pod without ${CONTROL_LABEL}: it is left alone`, async () => {
      const pod = await ctx.createPod(ctx.name('uncontrolled'), { uncontrolled: true });
      ctx.expect('the created pod', (pod.spec?.readinessGates ?? []).length > 0 ? [`readiness gates ${JSON.stringify(pod.spec?.readinessGates)}, expected none`] : [], observedPod(pod));
    });
    await ctx.step(`the implementation sets ${SERVICE_READY_GATE} True, the pod becomes Ready and is labelled service-available`, () =>
      ctx.waitForPod(gated, 'the pod in service', inServiceMismatches),
    );
  },
};

const oneLifecycle: Scenario = {
  name: 'lifecycle/one-id',
  title: 'one lifecycle through PreCheck, Preparing, Operating, PostCheck and Completing back to service-available',
  async run(ctx) {
    const pod = ctx.name('web');
    await ctx.step('a new pod is service-available only once the finalizer its cooperation controller expects is on it', async () => {
      await ctx.createControlledPod(pod, { annotations: expectedFinalizer(ctx, PROTECTION_FINALIZER) });
      const ready = await ctx.waitForPod(pod, 'the pod Ready', (p) => [...serviceReadyMismatches(p, 'True'), ...readyMismatches(p, true)]);
      ctx.expectLabels(ready, 'the Ready pod without its expected finalizer', { [SERVICE_AVAILABLE_LABEL]: false });
      await addFinalizer(ctx, pod);
      await ctx.waitForLabels(pod, 'service-available', { [SERVICE_AVAILABLE_LABEL]: true });
    });
    const operating = await ctx.step('begin (operating, operation-type): the implementation adds pre-check in that write', async () => {
      const begun = await begin(ctx, pod);
      ctx.expectLabels(begun, 'the answer to the begin write', { [key('operation-type', ID)]: TYPE, [key('operating', ID)]: true, [key('pre-check', ID)]: true, [key('pre-checked', ID)]: false });
      return begun.metadata.labels?.[key('operating', ID)];
    });
    await ctx.step('PreCheck passes: pre-checked, operation-permission of the type, preparing; service-available goes; the gate turns False', async () => {
      const preparing = await ctx.waitForLabels(pod, 'preparing', { [key('preparing', ID)]: true });
      ctx.expectLabels(preparing, 'the pod in preparing', {
        [key('pre-check', ID)]: false,
        [key('pre-checked', ID)]: true,
        [operationPermissionKey(TYPE)]: true,
        [SERVICE_AVAILABLE_LABEL]: false,
        [key('operating', ID)]: operating ?? true,
      });
      await ctx.waitForPod(pod, 'the gate False', (p) => serviceReadyMismatches(p, 'False'));
    });
    await ctx.step('the protection finalizer holds the pod in preparing', async () => {
      ctx.expectLabels(await ctx.readPod(pod), 'the pod with the gate False and the protection finalizer on', { [key('preparing', ID)]: true, [key('operate', ID)]: false });
    });
    await ctx.step('the cooperation controller drops its protection finalizer: operate in that write', async () => {
      const released = await removeFinalizer(ctx, pod);
      ctx.expectLabels(released, 'the answer to the write that removed the finalizer', { [key('operate', ID)]: true, [key('preparing', ID)]: false });
    });
    await ctx.step('finish (operating removed): operated, done-operation-type and post-check in that write; the permission goes', async () => {
      const finished = await finish(ctx, pod);
      ctx.expectLabels(finished, 'the answer to the finish write', {
        [key('operated', ID)]: true,
        [key('done-operation-type', ID)]: TYPE,
        [key('post-check', ID)]: true,
        [key('operate', ID)]: false,
        [key('pre-checked', ID)]: false,
        [key('operation-type', ID)]: false,
        [operationPermissionKey(TYPE)]: false,
      });
    });
    await ctx.step('PostCheck passes: post-checked, completing; the gate turns True; cleanup waits for the expected finalizer', async () => {
      const completing = await ctx.waitForLabels(pod, 'completing', { [key('completing', ID)]: true });
      ctx.expectLabels(completing, 'the pod in completing', { [key('post-check', ID)]: false, [key('post-checked', ID)]: true });
      const ready = await ctx.waitForPod(pod, 'the gate True and the pod Ready', (p) => [...serviceReadyMismatches(p, 'True'), ...readyMismatches(p, true)]);
      ctx.expectLabels(ready, 'the Ready pod still without its expected finalizer', {
        [key('completing', ID)]: true,
        [key('operated', ID)]: true,
        [key('done-operation-type', ID)]: TYPE,
        [SERVICE_AVAILABLE_LABEL]: false,
      });
    });
    await ctx.step('the cooperation controller puts its finalizer back: every label of the lifecycle goes in that write', async () => {
      const cleaned = await addFinalizer(ctx, pod);
      ctx.expectLabels(cleaned, 'the answer to the write that added the finalizer', noLabelsOf(ID));
      ctx.expect('the answer to the write that added the finalizer', labelsWithPrefix(cleaned, OPERATION_PERMISSION_PREFIX).map((k) => `${k} is there, expected absent`), observedPod(cleaned));
    });
    await ctx.step('service-available again', () => ctx.waitForLabels(pod, 'service-available', { [SERVICE_AVAILABLE_LABEL]: true }));
  },
};

const twoLifecycles: Scenario = {
  name: 'lifecycle/two-ids',
  title: 'two lifecycles of different types wait for each other at operated and end together',
  async run(ctx) {
    const pod = ctx.name('web');
    const [a, b] = [
      { id: 'upgrade', type: 'update' },
      { id: 'restart', type: 'restart' },
    ] as const;
    await ctx.step('a pod in service', () => podInService(ctx, pod));
    await ctx.step(`begin ${a.id} (${a.type}) and ${b.id} (${b.type})`, async () => {
      await begin(ctx, pod, a.id, a.type);
      await begin(ctx, pod, b.id, b.type);
    });
    await ctx.step('both reach operate (no protection finalizer holds them)', () =>
      ctx.waitForLabels(pod, 'operate for both', { [key('operate', a.id)]: true, [key('operate', b.id)]: true }),
    );
    await ctx.step(`finish ${a.id}: it stays in operate while ${b.id} is operating`, async () => {
      const first = await finish(ctx, pod, a.id);
      ctx.expectLabels(first, `the answer to finishing ${a.id}`, { [key('operate', a.id)]: true, [key('operated', a.id)]: false, [key('post-check', a.id)]: false });
    });
    await ctx.step(`finish ${b.id}: both become operated in that write`, async () => {
      const second = await finish(ctx, pod, b.id);
      ctx.expectLabels(second, `the answer to finishing ${b.id}`, {
        [key('operated', a.id)]: true,
        [key('operated', b.id)]: true,
        [key('done-operation-type', a.id)]: a.type,
        [key('done-operation-type', b.id)]: b.type,
        [key('post-check', a.id)]: true,
        [key('post-check', b.id)]: true,
      });
    });
    await ctx.step('both complete and are cleaned up: back in service', () => ctx.backInService(pod, [a.id, b.id]));
  },
};

const operationPermission: Scenario = {
  name: 'lifecycle/operation-permission',
  title: 'operation-permission is granted per type with pre-checked, stays while an ID of the type is pre-checked, and goes at operated',
  async run(ctx) {
    const pod = ctx.name('web');
    const [a, b] = ['first', 'second'];
    await ctx.step('a pod in service behind the cooperation controller', async () => {
      await podInService(ctx, pod, { finalizers: [PROTECTION_FINALIZER] });
    });
    await ctx.step(`begin ${a} and ${b}, both of type ${TYPE}, in one write`, () =>
      ctx.updatePod(pod, (p) => {
        const now = String(nowNanos());
        for (const id of [a, b]) Object.assign((p.metadata.labels ??= {}), { [key('operating', id)]: now, [key('operation-type', id)]: TYPE });
      }),
    );
    await ctx.step(`both are pre-checked, with one operation-permission for ${TYPE}, and held in preparing`, async () => {
      const preparing = await ctx.waitForLabels(pod, 'both in preparing', { [key('preparing', a)]: true, [key('preparing', b)]: true });
      ctx.expectLabels(preparing, 'the pod in preparing', { [key('pre-checked', a)]: true, [key('pre-checked', b)]: true });
      const permissions = labelsWithPrefix(preparing, OPERATION_PERMISSION_PREFIX);
      ctx.expect('the pod in preparing', permissions.length === 1 && permissions[0] === operationPermissionKey(TYPE) ? [] : [`operation-permission labels ${JSON.stringify(permissions)}, expected ["${operationPermissionKey(TYPE)}"]`], observedPod(preparing));
    });
    await ctx.step(`undo ${a}: its labels go, the permission stays for ${b}`, async () => {
      const undone = await undo(ctx, pod, a, TYPE);
      ctx.expectLabels(undone, `the answer to undoing ${a}`, { ...noLabelsOf(a), [key('pre-checked', b)]: true, [operationPermissionKey(TYPE)]: true });
    });
    await ctx.step(`release ${b} (the finalizer goes) and finish it: the permission goes when it becomes operated`, async () => {
      await removeFinalizer(ctx, pod);
      await ctx.waitForLabels(pod, `operate for ${b}`, { [key('operate', b)]: true });
      const finished = await finish(ctx, pod, b);
      ctx.expectLabels(finished, `the answer to finishing ${b}`, { [key('operated', b)]: true, [operationPermissionKey(TYPE)]: false });
    });
    await ctx.step('the lifecycle ends: back in service', () => ctx.backInService(pod, [a, b]));
  },
};

/** How many lifecycles the clean-end scenario runs one after the other, with the same ID. */
const CLEAN_END_ROUNDS = 2;
/** How often its unrelated writes land: several in the moment a lifecycle is cleaned up. */
const UNRELATED_WRITE_MS = 20;
/** How long it watches an ended lifecycle for a label coming back, the writes still landing. */
const CLEAN_END_WATCH_MS = 1000;

const cleanEnd: Scenario = {
  name: 'lifecycle/clean-end',
  title: 'no label of an ended lifecycle is left or comes back while unrelated writes land, and the next lifecycle of the ID goes through PostCheck',
  async run(ctx) {
    const pod = ctx.name('web');
    await ctx.step('a pod in service', () => podInService(ctx, pod));
    for (let round = 1; round <= CLEAN_END_ROUNDS; round++) {
      const which = `lifecycle ${round} of ${CLEAN_END_ROUNDS}`;
      await ctx.step(`${which}: begin; operate`, async () => {
        await begin(ctx, pod);
        await ctx.waitForLabels(pod, 'operate', { [key('operate', ID)]: true });
      });
      const writes = unrelatedWrites(ctx, pod, UNRELATED_WRITE_MS);
      let refused: Error | undefined;
      try {
        // A post-checked the previous lifecycle left behind makes this one skip PostCheck. Finished with a merge
        // patch: an update guarded by the resourceVersion would conflict with the writes again and again.
        await ctx.step(`${which}: finish, with unrelated writes landing every ${UNRELATED_WRITE_MS} ms from now on: post-check in that write`, async () => {
          const finished = await ctx.patchLabels(pod, { [key('operating', ID)]: null });
          ctx.expectLabels(finished, 'the answer to the finish write', { [key('operated', ID)]: true, [key('post-check', ID)]: true, [key('post-checked', ID)]: false });
        }, round > 1 ? { detects: ORPHAN_POST_CHECKED } : {});
        // Back in service, a conforming implementation has removed every label of the ID (service-available comes
        // back only once the lifecycle is cleaned up), so a label of it from now on is one put back.
        await ctx.step(`${which}: back in service; no label of the ID is left, and none comes back within ${CLEAN_END_WATCH_MS / 1000} s of writes`, async () => {
          await ctx.waitForPod(pod, 'the pod back in service', inServiceMismatches);
          await ctx.podStays(pod, `no label of the ID is left or comes back within ${CLEAN_END_WATCH_MS / 1000} s`, CLEAN_END_WATCH_MS, (p) => labelMismatches(p, noLabelsOf(ID)));
        }, { detects: ORPHAN_POST_CHECKED });
      } finally {
        refused = await writes.stop();
      }
      await ctx.step(`${which}: every unrelated write was accepted`, async () => ctx.expect('the unrelated writes', refused ? [`one was refused: ${refused.message}`] : []));
    }
  },
};

export const lifecycleScenarios: readonly Scenario[] = [readinessGate, oneLifecycle, twoLifecycles, operationPermission, cleanEnd];
