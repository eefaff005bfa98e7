// Read-only facts about a pod that the protocol decisions are made of. Pure: no I/O, no clock.

import type { Pod, PodCondition } from '../api/kube.ts';
import {
  AVAILABLE_CONDITIONS_ANNOTATION,
  CONTROL_LABEL,
  CONTROL_LABEL_VALUE,
  PROTECTION_FINALIZER_PREFIX,
  SERVICE_READY_GATE,
} from '../api/protocol.ts';

export const isControlled = (pod: Pod): boolean => pod.metadata.labels?.[CONTROL_LABEL] === CONTROL_LABEL_VALUE;

/** Whether a workload's pod template makes controlled pods. */
export const makesControlledPods = (workload: { spec?: { template?: { metadata?: { labels?: Record<string, string> } } } }): boolean =>
  workload.spec?.template?.metadata?.labels?.[CONTROL_LABEL] === CONTROL_LABEL_VALUE;

export const isDeleting = (pod: Pod): boolean => pod.metadata.deletionTimestamp != null;

/** Counted by the ReplicaSet controller (and the Deployment's surge): neither terminating nor finished. */
export const isActive = (pod: Pod): boolean => !isDeleting(pod) && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';

export const findCondition = (pod: Pod, type: string): PodCondition | undefined =>
  pod.status?.conditions?.find((c) => c.type === type);

/** The kubelet's PodReady condition is True. */
export const isPodReady = (pod: Pod): boolean => findCondition(pod, 'Ready')?.status === 'True';

export const hasServiceReadyGate = (pod: Pod): boolean =>
  pod.spec?.readinessGates?.some((g) => g.conditionType === SERVICE_READY_GATE) ?? false;

export const serviceReadyCondition = (pod: Pod): PodCondition | undefined => findCondition(pod, SERVICE_READY_GATE);

export const protectionFinalizers = (pod: Pod): string[] =>
  (pod.metadata.finalizers ?? []).filter((f) => f.startsWith(PROTECTION_FINALIZER_PREFIX));

/**
 * Upstream's readyToOperate: true when the service-ready condition is missing; otherwise only when no
 * protection finalizer is left and the condition is False. Evaluated on the incoming object, which is why
 * the webhook also intercepts `pods/status`.
 */
export function readyToOperate(pod: Pod): boolean {
  const condition = serviceReadyCondition(pod);
  if (!condition) return true;
  if (protectionFinalizers(pod).length > 0) return false;
  return condition.status === 'False';
}

export class InvalidAnnotationError extends Error {
  readonly annotation: string;
  constructor(annotation: string, reason: string) {
    super(`invalid annotation ${annotation}: ${reason}`);
    this.name = 'InvalidAnnotationError';
    this.annotation = annotation;
  }
}

/**
 * The `expectedFinalizers` map of the available-conditions annotation (`"<Kind>/<ns>/<name>"` -> finalizer).
 * Absent annotation: empty map. Malformed JSON or wrong shape: InvalidAnnotationError.
 */
export function expectedFinalizers(pod: Pod): Record<string, string> {
  const raw = pod.metadata.annotations?.[AVAILABLE_CONDITIONS_ANNOTATION];
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new InvalidAnnotationError(AVAILABLE_CONDITIONS_ANNOTATION, (err as Error).message);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InvalidAnnotationError(AVAILABLE_CONDITIONS_ANNOTATION, 'must be a JSON object');
  }
  const map = (parsed as { expectedFinalizers?: unknown }).expectedFinalizers;
  if (map === undefined || map === null) return {};
  if (typeof map !== 'object' || Array.isArray(map)) {
    throw new InvalidAnnotationError(AVAILABLE_CONDITIONS_ANNOTATION, 'expectedFinalizers must be an object');
  }
  for (const [key, value] of Object.entries(map)) {
    if (typeof value !== 'string') {
      throw new InvalidAnnotationError(AVAILABLE_CONDITIONS_ANNOTATION, `expectedFinalizers["${key}"] must be a string`);
    }
  }
  // A copy by fromEntries, not assignment: a key `__proto__` is an entry like any other.
  return Object.fromEntries(Object.entries(map as Record<string, string>));
}

/** Expected-finalizer entries whose finalizer is not on the pod, as `[key, finalizer]` sorted by key. */
export function missingExpectedFinalizers(pod: Pod): [string, string][] {
  const present = new Set(pod.metadata.finalizers ?? []);
  return Object.entries(expectedFinalizers(pod))
    .filter(([, finalizer]) => !present.has(finalizer))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
