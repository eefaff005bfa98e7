// The suite plays the two controllers the protocol expects besides the implementation, with plain label and
// finalizer writes: an operation controller (begin, finish, undo) and a cooperation controller (a load balancer
// that holds a protection finalizer while it routes to the pod, and lists it as expected); and, where a
// scenario needs one, a controller that has nothing to do with the protocol and writes the pod all the time.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Pod } from '../api/kube.ts';
import { AVAILABLE_CONDITIONS_ANNOTATION, ID_LABEL_WORDS, PROTECTION_FINALIZER_PREFIX, idLabelKey } from '../api/protocol.ts';
import { nowNanos } from '../kube/clock.ts';
import { PODS } from '../kube/resources.ts';
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

/** The annotation the unrelated writer counts in. */
export const UNRELATED_WRITE_ANNOTATION = 'conformance.podops.io/unrelated-write';

/**
 * A controller unrelated to the protocol writing the pod every `everyMs` (a merge patch of its own annotation, as
 * agents record a heartbeat), until stopped or the scenario's deadline. `stop` answers with the write refused,
 * if one was: the writing ends there.
 */
export function unrelatedWrites(ctx: ScenarioContext, pod: string, everyMs: number): { stop(): Promise<Error | undefined> } {
  let stopped = false;
  const writing = (async (): Promise<Error | undefined> => {
    for (let count = 1; !stopped && !ctx.signal.aborted; count++) {
      try {
        await ctx.client.patch(PODS, ctx.namespace, pod, 'merge', { metadata: { annotations: { [UNRELATED_WRITE_ANNOTATION]: String(count) } } }, { signal: ctx.signal });
      } catch (err) {
        return ctx.signal.aborted ? undefined : (err as Error);
      }
      await sleep(everyMs, undefined, { signal: ctx.signal }).catch(() => {});
    }
    return undefined;
  })();
  return {
    stop: () => {
      stopped = true;
      return writing;
    },
  };
}
