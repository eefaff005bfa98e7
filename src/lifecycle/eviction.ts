// Graceful evictions (podops' addition): an eviction of a controlled pod is answered 429 until the pod's
// `pod-eviction` lifecycle has taken it out of service, and the eviction's retry then goes through. Two rules
// keep that from costing more than the eviction itself:
// - a PodDisruptionBudget's room is checked before a pod is taken out of service: a pod out of service is
//   unhealthy to its budget, and two taken out at once could leave a budget that allows one with none, so
//   neither eviction would ever pass (an unhealthy pod is evicted only while the budget holds);
// - an eviction nobody retries any more (the drain was stopped) is abandoned, and the pod comes back.
// And one rule keeps a forged review from starting it: unless the webhook authenticates the API server, an
// eviction counts only when the pod's node is being emptied (cordoned, or tainted for removal), which the
// tools that drain nodes do before they evict and which a caller of the webhook port cannot fake.

import type { Node, Pod } from '../api/kube.ts';
import { EVICTION_PAUSED_UNTIL_ANNOTATION, EVICTION_REQUESTED_ANNOTATION, POD_DELETE_LIFECYCLE_ID, POD_EVICTION_LIFECYCLE_ID, TO_EVICT_LABEL, idLabelKey } from '../api/protocol.ts';
import type { LabelSelector } from '../api/selector.ts';
import { isDeleting, isPodReady } from './pod.ts';
import { parseNanos, type Nanos } from './time.ts';

export interface PodDisruptionBudget {
  metadata: { name?: string; namespace?: string; generation?: number };
  spec?: { selector?: LabelSelector };
  status?: { observedGeneration?: number; desiredHealthy?: number; currentHealthy?: number };
}

export const wantsEviction = (pod: Pod): boolean => pod.metadata.labels?.[TO_EVICT_LABEL] !== undefined;

/** Leaving service for an eviction or a deletion: the lifecycle has begun, or the pod is already terminating. */
const leaving = (pod: Pod): boolean =>
  isDeleting(pod) || [POD_EVICTION_LIFECYCLE_ID, POD_DELETE_LIFECYCLE_ID].some((id) => pod.metadata.labels?.[idLabelKey('operation-type', id)] !== undefined);

/**
 * Whether `budget` has room to take `candidate` out of service now, given the controlled pods it selects (those
 * podops caches): the healthy pods that stay (Ready, not leaving) must still number `desiredHealthy` afterwards.
 * The pods it selects that podops does not see count by the budget's status: its healthy pods beyond the ones of
 * `selected` it may be counting (Ready, or leaving: a status a moment old still counts them). A budget whose
 * status is behind its spec has no known room.
 */
export function budgetRoom(budget: PodDisruptionBudget, candidate: Pod, selected: readonly Pod[]): { room: boolean; why: string } {
  const name = budget.metadata.name ?? '';
  if ((budget.status?.observedGeneration ?? -1) < (budget.metadata.generation ?? 0) || budget.status?.desiredHealthy === undefined) {
    return { room: false, why: `PodDisruptionBudget ${name} has not been processed by the disruption controller yet` };
  }
  const desired = budget.status.desiredHealthy;
  const possiblyCounted = selected.filter((pod) => isPodReady(pod) || leaving(pod)).length;
  const unseen = Math.max(0, (budget.status.currentHealthy ?? 0) - possiblyCounted);
  // The candidate counts only if it is healthy and staying now; taking it out leaves the others.
  const staying = selected.filter((pod) => pod.metadata.uid !== candidate.metadata.uid && isPodReady(pod) && !leaving(pod)).length + unseen;
  const room = staying >= desired;
  return { room, why: room ? '' : `PodDisruptionBudget ${name} needs ${desired} healthy pods and would have ${staying}` };
}

/**
 * Taints that announce a node's removal: the cluster autoscaler's, Karpenter's (v1, and v0.3x with the value
 * `disrupting`), and the out-of-service taint of a node shut down for good. A cordon adds
 * `node.kubernetes.io/unschedulable` as well as setting `spec.unschedulable`.
 */
const REMOVAL_TAINTS: readonly string[] = [
  'node.kubernetes.io/unschedulable',
  'ToBeDeletedByClusterAutoscaler',
  'karpenter.sh/disrupted',
  'karpenter.sh/disruption',
  'node.kubernetes.io/out-of-service',
];

/** Why the node is being emptied (cordoned, or tainted for removal), or undefined when it is not. */
export function nodeBeingEmptied(node: Node): string | undefined {
  if (node.spec?.unschedulable === true) return `node ${node.metadata.name ?? ''} is cordoned`;
  const taint = node.spec?.taints?.find((t) => REMOVAL_TAINTS.includes(t.key) && t.effect !== 'PreferNoSchedule');
  return taint && `node ${node.metadata.name ?? ''} has the taint ${taint.key}:${taint.effect}`;
}

/**
 * What vouches for an eviction review (that it came from the API server, so podops may act on it): an
 * authenticated API server, or the pod's node being emptied; undefined when nothing does.
 */
export const evictionVouchedFor = (apiServerAuthenticated: boolean, node: Node | undefined): string | undefined =>
  apiServerAuthenticated ? 'the API server is authenticated' : node && nodeBeingEmptied(node);

/** When the eviction was last asked for: the latest request, else the first. */
const lastEvictionRequest = (pod: Pod): Nanos | undefined => parseNanos(pod.metadata.annotations?.[EVICTION_REQUESTED_ANNOTATION] ?? pod.metadata.labels?.[TO_EVICT_LABEL]);

/** How long an eviction nobody retries keeps its pod out of service by default (`--eviction-abandoned-after`). */
export const DEFAULT_EVICTION_ABANDONED_AFTER_SECONDS = 60;

/** When the pod's eviction lifecycle allowed the eviction (`operate/pod-eviction`), if it has. */
const evictionAllowedAt = (pod: Pod): Nanos | undefined => parseNanos(pod.metadata.labels?.[idLabelKey('operate', POD_EVICTION_LIFECYCLE_ID)]);

/**
 * Why an eviction lifecycle is given up, `after` its last event: nobody has asked for the eviction since (a
 * stopped drain), or the lifecycle has allowed the eviction and none came (a drain retries every few seconds and
 * then evicts: a pod still there was kept out of service by requests that were not real evictions, or that the
 * API server refused). Undefined while neither is the case.
 */
export function evictionAbandonment(pod: Pod, now: Nanos, after: Nanos): 'unretried' | 'not-carried-out' | undefined {
  const last = lastEvictionRequest(pod);
  if (last !== undefined && now - last > after) return 'unretried';
  const allowedAt = evictionAllowedAt(pod);
  if (allowedAt !== undefined && now - allowedAt > after) return 'not-carried-out';
  return undefined;
}

/** How long until the eviction is abandoned for either reason (from `now` when no request time can be read). */
export function untilEvictionAbandoned(pod: Pod, now: Nanos, after: Nanos): Nanos {
  const unretried = (lastEvictionRequest(pod) ?? now) + after - now;
  const allowedAt = evictionAllowedAt(pod);
  return allowedAt === undefined || unretried < allowedAt + after - now ? unretried : allowedAt + after - now;
}

/** How many abandonment periods an eviction not carried out pauses the deferral of the pod's next ones. */
export const EVICTION_PAUSE_PERIODS = 5n;

/** How long, from `now`, evictions of the pod are not deferred again, or undefined when they are. */
export function evictionPaused(pod: Pod, now: Nanos): Nanos | undefined {
  const until = parseNanos(pod.metadata.annotations?.[EVICTION_PAUSED_UNTIL_ANNOTATION]);
  return until !== undefined && until > now ? until - now : undefined;
}

/**
 * The pod with this eviction request recorded: the first request as the `to-evict` label, the latest as an
 * annotation, refreshed at most every `refresh` (retries come every few seconds); undefined when nothing changes.
 */
export function markEvictionRequest(pod: Pod, at: Nanos, refresh: Nanos): Pod | undefined {
  const last = parseNanos(pod.metadata.annotations?.[EVICTION_REQUESTED_ANNOTATION]);
  if (wantsEviction(pod) && last !== undefined && at - last < refresh) return undefined;
  return {
    ...pod,
    metadata: {
      ...pod.metadata,
      labels: { ...pod.metadata.labels, [TO_EVICT_LABEL]: pod.metadata.labels?.[TO_EVICT_LABEL] ?? at.toString() },
      annotations: { ...withoutKey(pod.metadata.annotations, EVICTION_PAUSED_UNTIL_ANNOTATION), [EVICTION_REQUESTED_ANNOTATION]: at.toString() },
    },
  };
}

const withoutKey = (map: Record<string, string> | undefined, key: string): Record<string, string> => Object.fromEntries(Object.entries(map ?? {}).filter(([k]) => k !== key));
