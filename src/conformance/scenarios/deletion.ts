// Pods leaving through the protocol: a DELETE refused by GraceDelete and turned into a pod-delete lifecycle,
// and an eviction deferred (429) until its pod-eviction lifecycle took the pod out of service. In both the
// suite's cooperation controller holds the pod in preparing until it lets go, and only then does it go.

import type { Node, Pod } from '../../api/kube.ts';
import {
  EVICTION_DEFERRED_MESSAGE,
  GRACE_DELETE_MESSAGE,
  GRACE_DELETE_WEBHOOK_NAME,
  OPERATION_TYPE_DELETE,
  OPERATION_TYPE_EVICT,
  POD_DELETE_LIFECYCLE_ID,
  POD_EVICTION_LIFECYCLE_ID,
  PREPARING_TO_DELETE_LABEL,
  TO_DELETE_LABEL,
  TO_EVICT_LABEL,
  idLabelKey,
} from '../../api/protocol.ts';
import { ApiError, isTooManyRequests, unlessNotFound } from '../../kube/client.ts';
import { NODES, PODS } from '../../kube/resources.ts';
import { PROTECTION_FINALIZER, podInService, removeFinalizer } from '../actors.ts';
import type { ScenarioContext } from '../context.ts';
import { denialMismatches, labelMismatches, serviceReadyMismatches } from '../expect.ts';
import { observedAnswer, observedPod, type Observed } from '../observe.ts';
import type { Scenario } from '../scenario.ts';

/** The lifecycle an implementation runs for a pod asked to leave: begun, and held in preparing by the finalizer. */
async function heldInPreparing(ctx: ScenarioContext, pod: string, id: string, type: string, mark: string): Promise<void> {
  await ctx.waitForPod(pod, `the ${id} lifecycle in preparing, the gate False`, (p) => [
    ...labelMismatches(p, { [mark]: true, [PREPARING_TO_DELETE_LABEL]: true, [idLabelKey('operation-type', id)]: type, [idLabelKey('preparing', id)]: true, [idLabelKey('operate', id)]: false }),
    ...serviceReadyMismatches(p, 'False'),
  ]);
}

const readOrGone = (ctx: ScenarioContext, pod: string): Promise<Pod | undefined> => unlessNotFound(ctx.readPod(pod));
const going = (pod: Pod | undefined): boolean => pod === undefined || pod.metadata.deletionTimestamp != null;
const observedOrGone = (pod: Pod | undefined): Observed => (pod ? observedPod(pod) : { kind: 'Object', name: 'the pod', state: 'gone' });

/** Drops the finalizer, and waits until the implementation allows the operation (or already deletes the pod). */
async function letGo(ctx: ScenarioContext, pod: string, id: string): Promise<void> {
  await removeFinalizer(ctx, pod);
  await ctx.waitFor(`operate on the ${id} lifecycle`, () => readOrGone(ctx, pod), (p) => (going(p) ? [] : labelMismatches(p!, { [idLabelKey('operate', id)]: true })), observedOrGone);
}

const waitGone = (ctx: ScenarioContext, pod: string): Promise<Pod | undefined> =>
  ctx.waitFor('the pod to be deleted', () => readOrGone(ctx, pod), (p) => (going(p) ? [] : ['the pod is neither gone nor terminating']), observedOrGone);

interface Departure {
  name: string;
  title: string;
  requires: Scenario['requires'];
  /** The request that asks the pod to leave, must be refused, and what is wrong with the refusal. */
  ask: { step: string; request: string; send(ctx: ScenarioContext, pod: string): Promise<unknown>; check(refusal: ApiError): string[] };
  /** The lifecycle the implementation runs, and the label that marks the pod for it. */
  id: string;
  type: string;
  mark: string;
  /** What makes the pod go once its lifecycle allows it. */
  end: { step: string; run(ctx: ScenarioContext, pod: string): Promise<unknown> };
}

/** A pod in service asked to leave: refused, taken out of service by a lifecycle held in preparing by the finalizer, then gone. */
const departure = (d: Departure): Scenario => ({
  name: d.name,
  title: d.title,
  requires: d.requires,
  async run(ctx) {
    const pod = ctx.name('web');
    await ctx.step('a pod in service behind the cooperation controller', () => podInService(ctx, pod, { finalizers: [PROTECTION_FINALIZER] }));
    await ctx.step(d.ask.step, async () => {
      const refusal = await ctx.expectRefusal(d.ask.request, () => d.ask.send(ctx, pod));
      ctx.expect(`the answer to ${d.ask.request}`, d.ask.check(refusal), observedAnswer(d.ask.request, refusal));
    });
    await ctx.step(`the pod is labelled ${d.mark}; its ${d.id} lifecycle is held in preparing by the finalizer`, () => heldInPreparing(ctx, pod, d.id, d.type, d.mark));
    await ctx.step('the cooperation controller drops its finalizer: the operation is allowed', () => letGo(ctx, pod, d.id));
    await ctx.step(d.end.step, () => d.end.run(ctx, pod));
  },
});

const evict = (ctx: ScenarioContext, pod: string) => ctx.client.evict(ctx.namespace, pod, { signal: ctx.signal });

/** A guarded patch refused because the object changed since (a failed JSON patch test is 422), or a conflict. */
/** A JSON patch whose `test` failed: kube-apiserver answers 422. */
const testFailed = (err: unknown): boolean => err instanceof ApiError && err.code === 422;

/**
 * Runs `request` with the pod's node cordoned, as kubectl drain cordons before it evicts, when the capability
 * probe found that podops defers an eviction only from a node being emptied (while it does not authenticate the
 * API server). The cordon lasts only the request (other scenarios schedule pods meanwhile), and is lifted even
 * after an interrupt, unless someone uncordoned it meanwhile; a node cordoned already is left as it is.
 */
async function whileCordoned<T>(ctx: ScenarioContext, pod: string, request: () => Promise<T>): Promise<T> {
  if (ctx.capabilities?.gracefulEviction.needsCordon !== true) return request();
  const nodeName = (await ctx.readPod(pod)).spec?.nodeName;
  if (typeof nodeName !== 'string' || nodeName === '') return request();
  const node = await ctx.client.get<Node>(NODES, undefined, nodeName, ctx.signal);
  if (node.spec?.unschedulable === true) return request();
  await ctx.client.patch<Node>(NODES, undefined, nodeName, 'merge', { spec: { unschedulable: true } }, { signal: ctx.signal });
  try {
    return await request();
  } finally {
    // Guarded by the field, not the resourceVersion: the kubelet's status updates change that all the time, and a
    // node left cordoned is worse than a cordon someone made in the same second lifted.
    const uncordon = [
      { op: 'test', path: '/spec/unschedulable', value: true },
      { op: 'remove', path: '/spec/unschedulable' },
    ];
    await ctx.client.patch(NODES, undefined, nodeName, 'json', uncordon, { signal: AbortSignal.timeout(30_000) }).catch((err: unknown) => {
      if (!testFailed(err)) throw err;
    });
  }
}

const graceDelete = departure({
  name: 'grace-delete/delete',
  title: 'a DELETE of a controlled pod is refused, the pod goes through a pod-delete lifecycle, and is deleted once out of service',
  requires: ['graceDelete'],
  ask: {
    step: 'DELETE: refused, naming the protection finalizer',
    request: 'the DELETE of the pod',
    send: (ctx, pod) => ctx.client.delete(PODS, ctx.namespace, pod, { signal: ctx.signal }),
    check: (refusal) => denialMismatches(refusal.status.message ?? refusal.message, GRACE_DELETE_WEBHOOK_NAME, `${GRACE_DELETE_MESSAGE} with finalizers: [${PROTECTION_FINALIZER}]`),
  },
  id: POD_DELETE_LIFECYCLE_ID,
  type: OPERATION_TYPE_DELETE,
  mark: TO_DELETE_LABEL,
  end: { step: 'the implementation deletes the pod', run: waitGone },
});

const eviction = departure({
  name: 'eviction/evict',
  title: 'an eviction of a controlled pod is deferred (429) until its pod-eviction lifecycle took it out of service, then goes through',
  requires: ['gracefulEviction'],
  ask: {
    step: 'evict (its node cordoned as kubectl drain cordons first, if podops defers only then): deferred with 429',
    request: 'the eviction of the pod',
    send: (ctx, pod) => whileCordoned(ctx, pod, () => evict(ctx, pod)),
    check: (refusal) => [
      ...(isTooManyRequests(refusal) ? [] : [`answered ${refusal.code}, expected 429`]),
      ...((refusal.status.message ?? '').includes(EVICTION_DEFERRED_MESSAGE) ? [] : [`the message does not say "${EVICTION_DEFERRED_MESSAGE}"`]),
    ],
  },
  id: POD_EVICTION_LIFECYCLE_ID,
  type: OPERATION_TYPE_EVICT,
  mark: TO_EVICT_LABEL,
  end: {
    step: 'the eviction is retried: accepted, and the pod goes',
    async run(ctx, pod) {
      await evict(ctx, pod);
      await waitGone(ctx, pod);
    },
  },
});

export const deletionScenarios: readonly Scenario[] = [graceDelete, eviction];
