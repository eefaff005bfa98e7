// The validating webhook's rejections of controlled pods, each with its exact message. The pods are never
// admitted, so nothing runs; labels are chosen so that no lifecycle begins (no operating, operate or operated
// label except where the rule needs one), which keeps the mutation out of the way.

import { AVAILABLE_CONDITIONS_ANNOTATION, LIFECYCLE_WEBHOOK_NAME, idLabelKey, idLabelPrefix, operationPermissionKey, OPERATION_PERMISSION_PREFIX } from '../../api/protocol.ts';
import { begin } from '../actors.ts';
import type { PodOptions, ScenarioContext } from '../context.ts';
import { denialMismatches } from '../expect.ts';
import { observedAnswer } from '../observe.ts';
import type { Scenario } from '../scenario.ts';

/** A write the webhook must deny with `error` (exactly, or as the start of the message). */
async function deniedWrite(ctx: ScenarioContext, request: string, write: () => Promise<unknown>, error: string, exact: boolean): Promise<void> {
  const refusal = await ctx.expectRefusal(request, write);
  ctx.expect(`the answer to ${request}`, denialMismatches(refusal.status.message ?? refusal.message, LIFECYCLE_WEBHOOK_NAME, error, exact), observedAnswer(request, refusal));
}

const denied = (ctx: ScenarioContext, base: string, options: PodOptions, error: string, exact = true): Promise<void> => {
  const pod = ctx.name(base);
  return deniedWrite(ctx, `create pod ${pod}`, () => ctx.createPod(pod, options), error, exact);
};

const NOT_JSON = '{"expectedFinalizers":';

// Both implementations also read the annotation while mutating a pod with no lifecycle operating, and their JSON
// parsers word errors differently: a create is refused by whichever webhook reads it first, a write to a pod in a
// lifecycle by the validation, whose error text after the prefix is the implementation's own.
const availableConditions: Scenario = {
  name: 'validation/available-conditions',
  title: `${AVAILABLE_CONDITIONS_ANNOTATION} must be JSON: a create is refused, an update of a pod in a lifecycle is denied by the validation`,
  async run(ctx) {
    await ctx.step(`create a pod whose ${AVAILABLE_CONDITIONS_ANNOTATION} is not JSON: refused by the webhooks`, async () => {
      const pod = ctx.name('bad-json');
      const request = `create pod ${pod}`;
      const refusal = await ctx.expectRefusal(request, () => ctx.createPod(pod, { annotations: { [AVAILABLE_CONDITIONS_ANNOTATION]: NOT_JSON } }));
      const message = refusal.status.message ?? refusal.message;
      ctx.expect(`the answer to ${request}`, message.includes('admission webhook') ? [] : [`the answer ${JSON.stringify(message)} is no webhook's`], observedAnswer(request, refusal));
    });
    await ctx.step('update a pod in a lifecycle to carry it: denied', async () => {
      const pod = ctx.name('updated');
      await ctx.createControlledPod(pod);
      await begin(ctx, pod);
      const write = () => ctx.updatePod(pod, (p) => void ((p.metadata.annotations ??= {})[AVAILABLE_CONDITIONS_ANNOTATION] = NOT_JSON));
      await deniedWrite(ctx, `update pod ${pod}`, write, '', false);
    });
  },
};

const invalidLabel: Scenario = {
  name: 'validation/invalid-label',
  title: 'a key of a per-ID label family needs an ID: invalid label <key>',
  async run(ctx) {
    const bare = idLabelPrefix('post-check');
    await ctx.step(`create a pod labelled ${bare} (no ID): denied`, () => denied(ctx, 'bare-key', { labels: { [bare]: '1' } }, `invalid label ${bare}`));
  },
};

const operatedPair: Scenario = {
  name: 'validation/operated-pair',
  title: 'operated and done-operation-type of an ID come in pairs: not found label <key>',
  async run(ctx) {
    await ctx.step('create a pod with operated but no done-operation-type: denied', () =>
      denied(ctx, 'operated-only', { labels: { [idLabelKey('operated', 'x')]: '1' } }, `not found label ${idLabelKey('done-operation-type', 'x')}`),
    );
    await ctx.step('create a pod with done-operation-type but no operated: denied', () =>
      denied(ctx, 'done-only', { labels: { [idLabelKey('done-operation-type', 'x')]: 'update' } }, `not found label ${idLabelKey('operated', 'x')}`),
    );
  },
};

const permissionPair: Scenario = {
  name: 'validation/permission-pair',
  title: 'some pre-checked exists exactly when some operation-permission does: not found the expected label prefixes',
  async run(ctx) {
    await ctx.step('create a pod with pre-checked but no operation-permission: denied', () =>
      denied(ctx, 'pre-checked-only', { labels: { [idLabelKey('pre-checked', 'x')]: '1' } }, `not found the expected label prefixes: map[${OPERATION_PERMISSION_PREFIX}:{}]`),
    );
    await ctx.step('create a pod with operation-permission but no pre-checked: denied', () =>
      denied(ctx, 'permission-only', { labels: { [operationPermissionKey('update')]: '1' } }, `not found the expected label prefixes: map[${idLabelPrefix('pre-checked')}:{}]`),
    );
  },
};

export const validationScenarios: readonly Scenario[] = [availableConditions, invalidLabel, operatedPair, permissionPair];
