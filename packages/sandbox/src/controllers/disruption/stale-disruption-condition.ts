// The disruption controller's second queue: a pod that got a DisruptionTarget condition (an eviction
// marks the pod before deleting it) but was not deleted after all has the condition set back to False
// once it has stood for 2 minutes. Conditions the kubelet set, and those of terminal pods, stay.

import { findStatusCondition } from '../../meta/conditions.ts';
import { cloneJson, isJsonObject, keyOf, readPath, type KubeObject } from '../../meta/object.ts';
import { formatTimestamp, parseTimestamp } from '../../meta/time.ts';
import { isNotFound, podsResource } from '../apps/pod-control.ts';
import { isPodTerminal } from '../apps/pod-state.ts';
import { DelayedKeys } from '../delayed-keys.ts';
import type { ControllerContext } from '../in-process-controller.ts';
import { SerialKeyQueue } from '../serial-key-queue.ts';

const stalePodDisruptionTimeoutMs = 120_000;

export interface StaleDisruptionCleanup {
  observe(pod: KubeObject): void;
  stop(): void;
}

export function staleDisruptionCleanup(ctx: ControllerContext): StaleDisruptionCleanup {
  /** nonTerminatingPodHasStaleDisruptionCondition: undefined, or the wait before the condition is stale. */
  const staleAfter = (pod: KubeObject): number | undefined => {
    if (pod.metadata.deletionTimestamp) return undefined;
    const condition = findStatusCondition(readPath(pod, ['status', 'conditions']), 'DisruptionTarget');
    if (!condition || condition.status !== 'True' || condition.reason === 'TerminationByKubelet' || isPodTerminal(pod)) return undefined;
    const since = parseTimestamp(condition.lastTransitionTime) ?? 0;
    return Math.max(0, stalePodDisruptionTimeoutMs - (ctx.clock() - since));
  };

  const sync = async (key: string): Promise<void> => {
    const pod = ctx.store.get('pods', key)?.object;
    const wait = pod && staleAfter(pod);
    if (!pod || wait === undefined) return;
    if (wait > 0) {
      delayed.addAfter(key, wait);
      return;
    }
    // UpdatePodCondition: the condition is replaced by {DisruptionTarget, False}, with a new transition time.
    const updated = cloneJson(pod);
    const status = isJsonObject(updated.status) ? updated.status : {};
    const conditions = Array.isArray(status.conditions) ? status.conditions : [];
    status.conditions = conditions.map((c: unknown) =>
      isJsonObject(c) && c.type === 'DisruptionTarget' ? { type: 'DisruptionTarget', status: 'False', lastProbeTime: null, lastTransitionTime: formatTimestamp(ctx.clock()) } : c,
    );
    await ctx.client.update(podsResource, { ...updated, status }, { namespace: pod.metadata.namespace, subresource: 'status' }).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  };

  const queue = new SerialKeyQueue(sync);
  const delayed = new DelayedKeys((key) => queue.add(key));
  return {
    observe(pod) {
      const wait = staleAfter(pod);
      if (wait !== undefined) delayed.addAfter(keyOf(pod), wait);
    },
    stop() {
      queue.stop();
      delayed.stop();
    },
  };
}
