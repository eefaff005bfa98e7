// A held DaemonSet (OnDelete) is stepped by podops: it evicts old pods, and the DaemonSet controller
// replaces each with a pod of the new template. Never more at once than the user's maxUnavailable allows,
// counting pods already unavailable, and never past the point being stepped to.

import { resolveIntOrPercent } from '../api/kube.ts';
import type { JsonObject, Settings } from './workload.ts';

export interface DaemonPod {
  name: string;
  isNew: boolean;
  available: boolean;
  terminating: boolean;
}

/**
 * The user's maxUnavailable against the desired pods, rounded up as the DaemonSet controller does, at least 1
 * (a maxSurge-only update replaces one at a time here).
 */
export function daemonSetMaxUnavailable(user: Settings, desired: number): number {
  const strategy = (user.updateStrategy ?? {}) as JsonObject;
  const rollingUpdate = (strategy.rollingUpdate ?? {}) as JsonObject;
  return Math.max(1, resolveIntOrPercent(rollingUpdate.maxUnavailable, desired, true, '1'));
}

/** Old pods to evict now so that `count` pods run the new template. Unavailable old pods go first: replacing them costs nothing. */
export function daemonSetReplacements(pods: readonly DaemonPod[], count: number, maxUnavailable: number): string[] {
  const live = pods.filter((p) => !p.terminating);
  // A pod on its way out, new or old, is replaced with one of the new template.
  const wanted = count - live.filter((p) => p.isNew).length - pods.filter((p) => p.terminating).length;
  if (wanted <= 0) return [];
  const unavailable = pods.filter((p) => p.terminating || !p.available).length;
  const old = live.filter((p) => !p.isNew).sort((a, b) => Number(a.available) - Number(b.available) || a.name.localeCompare(b.name));
  const chosen: string[] = [];
  let budget = maxUnavailable - unavailable;
  for (const pod of old) {
    if (chosen.length >= wanted) break;
    if (pod.available) {
      if (budget <= 0) break;
      budget--;
    }
    chosen.push(pod.name);
  }
  return chosen;
}
