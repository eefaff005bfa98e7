// The DaemonSet status (updateDaemonSetStatus): per node that should run the daemon, whether it has a
// pod, whether the oldest one is ready, available and at the current revision; pods on nodes that
// should not run it are misscheduled. Written through /status (one retry on a conflict) when a count
// or the observed generation changed.

import type { LocalClient } from '../../apiserver/local-client.ts';
import { StatusError } from '../../errors.ts';
import { isJsonObject, readPath, type JsonObject, type KubeObject } from '../../meta/object.ts';
import { parseTimestamp } from '../../meta/time.ts';
import { daemonSetKind } from './daemonset-history.ts';
import { isPodUpdated, templateGeneration } from './daemonset-pod-template.ts';
import { isPodAvailable, isPodReady } from './pod-state.ts';
import { minReadySecondsOf } from './workload-fields.ts';

export interface DaemonSetCounts {
  desiredNumberScheduled: number;
  currentNumberScheduled: number;
  numberMisscheduled: number;
  numberReady: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
  numberUnavailable: number;
}

/** podByCreationTimestampAndPhase: scheduled pods first, then the oldest (name breaks ties). */
export function compareDaemonPods(a: KubeObject, b: KubeObject): number {
  const scheduled = (p: KubeObject): number => (readPath(p, ['spec', 'nodeName']) ? 0 : 1);
  if (scheduled(a) !== scheduled(b)) return scheduled(a) - scheduled(b);
  const ta = parseTimestamp(a.metadata.creationTimestamp) ?? 0;
  const tb = parseTimestamp(b.metadata.creationTimestamp) ?? 0;
  if (ta !== tb) return ta - tb;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
}

export function countDaemonPods(
  ds: KubeObject,
  nodes: readonly KubeObject[],
  nodeToPods: ReadonlyMap<string, KubeObject[]>,
  shouldRun: (node: KubeObject) => boolean,
  hash: string,
  now: number,
): DaemonSetCounts {
  const minReady = minReadySecondsOf(ds);
  const generation = templateGeneration(ds);
  const counts: DaemonSetCounts = {
    desiredNumberScheduled: 0,
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    numberReady: 0,
    updatedNumberScheduled: 0,
    numberAvailable: 0,
    numberUnavailable: 0,
  };
  for (const node of nodes) {
    const pods = nodeToPods.get(node.metadata.name ?? '') ?? [];
    if (!shouldRun(node)) {
      if (pods.length) counts.numberMisscheduled++;
      continue;
    }
    counts.desiredNumberScheduled++;
    const [oldest] = [...pods].sort(compareDaemonPods);
    if (!oldest) continue;
    counts.currentNumberScheduled++;
    if (isPodReady(oldest)) {
      counts.numberReady++;
      if (isPodAvailable(oldest, minReady, now)) counts.numberAvailable++;
    }
    if (isPodUpdated(oldest, hash, generation)) counts.updatedNumberScheduled++;
  }
  counts.numberUnavailable = counts.desiredNumberScheduled - counts.numberAvailable;
  return counts;
}

/** DaemonSetStatus in its Go field order, zero omitempty fields left out. */
function statusJson(old: JsonObject, counts: DaemonSetCounts, observedGeneration: number | undefined): JsonObject {
  const status: JsonObject = {
    currentNumberScheduled: counts.currentNumberScheduled,
    numberMisscheduled: counts.numberMisscheduled,
    desiredNumberScheduled: counts.desiredNumberScheduled,
    numberReady: counts.numberReady,
  };
  const generation = observedGeneration ?? (typeof old.observedGeneration === 'number' ? old.observedGeneration : 0);
  if (generation) status.observedGeneration = generation;
  if (counts.updatedNumberScheduled) status.updatedNumberScheduled = counts.updatedNumberScheduled;
  if (counts.numberAvailable) status.numberAvailable = counts.numberAvailable;
  if (counts.numberUnavailable) status.numberUnavailable = counts.numberUnavailable;
  if (typeof old.collisionCount === 'number') status.collisionCount = old.collisionCount;
  if (Array.isArray(old.conditions) && old.conditions.length) status.conditions = old.conditions;
  return status;
}

/** storeDaemonSetStatus: writes the counts unless they and the observed generation are current. */
export async function storeDaemonSetStatus(client: LocalClient, ds: KubeObject, counts: DaemonSetCounts, updateObservedGeneration: boolean, latest: () => KubeObject | undefined): Promise<void> {
  const old = isJsonObject(ds.status) ? ds.status : {};
  const generation = ds.metadata.generation ?? 0;
  const unchanged =
    (Object.keys(counts) as (keyof DaemonSetCounts)[]).every((field) => (typeof old[field] === 'number' ? old[field] : 0) === counts[field]) &&
    (typeof old.observedGeneration === 'number' ? old.observedGeneration : 0) >= generation;
  if (unchanged) return;
  let target = ds;
  for (let attempt = 0; ; attempt++) {
    const current = isJsonObject(target.status) ? target.status : {};
    const status = statusJson(current, counts, updateObservedGeneration ? generation : undefined);
    try {
      await client.update(daemonSetKind, { ...target, status }, { namespace: ds.metadata.namespace, subresource: 'status' });
      return;
    } catch (err) {
      const fresh = latest();
      if (attempt >= 1 || !(err instanceof StatusError) || !fresh) throw err;
      target = fresh;
    }
  }
}
