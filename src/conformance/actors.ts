// The suite plays the two controllers the protocol expects besides the implementation, with plain label and
// finalizer writes: an operation controller (begin, finish, undo) and a cooperation controller (a load balancer
// that holds a protection finalizer while it routes to the pod, and lists it as expected).

import type { Pod } from '../api/kube.ts';
import { AVAILABLE_CONDITIONS_ANNOTATION, ID_LABEL_WORDS, PROTECTION_FINALIZER_PREFIX, idLabelKey } from '../api/protocol.ts';
import { nowNanos } from '../kube/clock.ts';
import type { PodOptions, ScenarioContext } from './context.ts';
import { inServiceMismatches } from './expect.ts';

/** The lifecycle ID and operation type scenarios use unless they need several. */
export const ID = 'conformance';
export const TYPE = 'update';

/** The suite's cooperation controller's protection finalizer. */
export const PROTECTION_FINALIZER = `${PROTECTION_FINALIZER_PREFIX}/conformance`;

/** begin: operating and operation-type (Unix nanoseconds, as every operation controller writes them). */
export const begin = (ctx: ScenarioContext, pod: string, id = ID, type = TYPE): Promise<Pod> =>
  ctx.setLabels(pod, { [idLabelKey('operating', id)]: String(nowNanos()), [idLabelKey('operation-type', id)]: type });

/** finish: removes operating only; the implementation does the rest. */
export const finish = (ctx: ScenarioContext, pod: string, id = ID): Promise<Pod> => ctx.setLabels(pod, { [idLabelKey('operating', id)]: null });

/** undo: asks the implementation to remove every label of the lifecycle. */
export const undo = (ctx: ScenarioContext, pod: string, id = ID, type = TYPE): Promise<Pod> => ctx.setLabels(pod, { [idLabelKey('undo-operation-type', id)]: type });

/** Every per-ID label of a lifecycle, expected absent. */
export const noLabelsOf = (id: string): Record<string, false> => Object.fromEntries(ID_LABEL_WORDS.map((word) => [idLabelKey(word, id), false]));

/**
 * The available-conditions annotation of a cooperation controller that expects `finalizer` on the pod. Its key
 * names a kind no implementation looks up (only Service entries are checked for staleness), so it stays.
 */
export const expectedFinalizer = (ctx: ScenarioContext, finalizer: string): Record<string, string> => ({
  [AVAILABLE_CONDITIONS_ANNOTATION]: JSON.stringify({ expectedFinalizers: { [`ConformanceLoadBalancer/${ctx.namespace}/conformance`]: finalizer } }),
});

/** The cooperation controller routes to the pod: its protection finalizer goes on. */
export const addFinalizer = (ctx: ScenarioContext, pod: string): Promise<Pod> =>
  ctx.updatePod(pod, (p) => {
    p.metadata.finalizers = [...(p.metadata.finalizers ?? []).filter((f) => f !== PROTECTION_FINALIZER), PROTECTION_FINALIZER];
  });

/** The cooperation controller deregistered the pod: its protection finalizer goes. */
export const removeFinalizer = (ctx: ScenarioContext, pod: string): Promise<Pod> =>
  ctx.updatePod(pod, (p) => {
    p.metadata.finalizers = (p.metadata.finalizers ?? []).filter((f) => f !== PROTECTION_FINALIZER);
  });

/** A controlled pod, created and waited for until it serves: the gate True, Ready, labelled service-available. */
export async function podInService(ctx: ScenarioContext, name: string, options: Omit<PodOptions, 'uncontrolled'> = {}): Promise<Pod> {
  await ctx.createControlledPod(name, options);
  return ctx.waitForPod(name, `pod ${name} in service`, inServiceMismatches);
}
