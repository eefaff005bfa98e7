// The service-ready readiness gate: when the lifecycle controller wants it True or False, and the
// condition it writes (type pod.kusionstack.io/service-ready, message "updated by PodOpsLifecycle", no reason).

import type { Pod, PodCondition } from '../api/kube.ts';
import { SERVICE_READY_GATE, SERVICE_READY_MESSAGE } from '../api/protocol.ts';
import type { Lifecycle, PodLifecycles } from './parse.ts';
import { hasServiceReadyGate, serviceReadyCondition } from './pod.ts';
import { rfc3339FromNanos, type Nanos } from './time.ts';

export type ServiceReadyStatus = 'True' | 'False';

/** Preparing, operating and post-checking: the phases where the pod must stay out of traffic. */
export const holdsTrafficOff = ({ labels }: Lifecycle): boolean =>
  labels.preparing !== undefined || labels.operate !== undefined || (labels.operated !== undefined && labels.completing === undefined);

/**
 * The service-ready status the lifecycles call for, or undefined to leave the condition as it is.
 * False while any ID holds traffic off; True once every ID is completing.
 *
 * Divergence from upstream (kuperator#248): upstream sets True as soon as no ID is preparing and some ID is
 * completing, so with two lifecycles the gate goes True while the other one is still operating or
 * post-checking, and flaps. Cleanup waits for every ID to be completing anyway, so turning traffic on
 * earlier only exposes a pod that is still being operated. With one lifecycle both rules agree.
 */
export function lifecycleServiceReady(lifecycles: PodLifecycles): ServiceReadyStatus | undefined {
  let allCompleting = lifecycles.byId.size > 0;
  for (const lifecycle of lifecycles.byId.values()) {
    if (holdsTrafficOff(lifecycle)) return 'False';
    if (lifecycle.labels.completing === undefined) allCompleting = false;
  }
  return allCompleting ? 'True' : undefined;
}

export interface ServiceReadyUpdate {
  conditions: PodCondition[];
  /** The ServiceReady event message, as upstream words it. */
  event: string;
}

/**
 * The pod's conditions with service-ready set to `status`, or undefined when nothing is to be written
 * (the gate is not in the spec, or the condition already has that status).
 */
export function serviceReadyUpdate(pod: Pod, status: ServiceReadyStatus, now: Nanos): ServiceReadyUpdate | undefined {
  if (!hasServiceReadyGate(pod)) return undefined;
  const existing = serviceReadyCondition(pod);
  if (existing?.status === status) return undefined;
  const lastTransitionTime = rfc3339FromNanos(now);
  const conditions = pod.status?.conditions ?? [];
  if (!existing) {
    return {
      conditions: [
        ...conditions,
        { type: SERVICE_READY_GATE, status, lastProbeTime: null, lastTransitionTime, message: SERVICE_READY_MESSAGE },
      ],
      event: `append service readiness gate to: ${status}`,
    };
  }
  return {
    conditions: conditions.map((c) =>
      c.type === SERVICE_READY_GATE ? { ...c, status, lastTransitionTime, message: SERVICE_READY_MESSAGE } : c,
    ),
    event: `update service readiness gate to: ${status}`,
  };
}
