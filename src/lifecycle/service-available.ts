// The pod-level `service-available` label: a pod is back in service once no lifecycle is left, it is Ready and
// every cooperation controller has put its expected finalizer back. The lifecycle controller adds it; the
// mutating webhook adds it in the same write that cleans up a pod's last lifecycle, under the same rule.

import type { Pod } from '../api/kube.ts';
import { POD_COMPLETING_LABEL, POD_CREATING_LABEL, SERVICE_AVAILABLE_LABEL, STAY_OFFLINE_LABEL } from '../api/protocol.ts';
import type { PodLifecycles } from './parse.ts';
import { isPodReady, missingExpectedFinalizers } from './pod.ts';

/** The pod-level marks `service-available` replaces: the pod is no longer being created or completing. */
export const SERVICE_AVAILABLE_REPLACES: readonly string[] = [POD_CREATING_LABEL, POD_COMPLETING_LABEL];

/**
 * Whether the pod, with `lifecycles` as its lifecycles, gets `service-available` now: none left, Ready, every
 * expected finalizer back, not kept out by `stay-offline`, and not labelled so already. Throws
 * InvalidAnnotationError for a malformed available-conditions annotation.
 */
export function becomesServiceAvailable(pod: Pod, lifecycles: PodLifecycles): boolean {
  const labels = pod.metadata.labels ?? {};
  if (lifecycles.byId.size > 0 || SERVICE_AVAILABLE_LABEL in labels || STAY_OFFLINE_LABEL in labels) return false;
  return isPodReady(pod) && missingExpectedFinalizers(pod).length === 0;
}
