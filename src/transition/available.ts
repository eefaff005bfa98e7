// availablePolicy: at most maxUnavailable selected pods out of service, at least minAvailable in
// service (Kuperator's behaviour, docs/podtransitionrule.md). The arithmetic is upstream's; the choice of which subjects pass
// goes by pod name (upstream: map order).

import type { Pod } from '../api/kube.ts';
import { COLLASET_API_VERSION, COLLASET_KIND, type AvailableRule, type IntOrString } from '../api/podtransitionrule.ts';
import { SERVICE_AVAILABLE_LABEL } from '../api/protocol.ts';
import { emptyResult, rejectAll, type RuleContext, type RuleResult } from './result.ts';

/** What availablePolicy reads of a CollaSet owning selected pods. */
export interface CollaSetReplicas {
  uid: string;
  /** spec.replicas; unset counts as 1. */
  replicas?: number | null;
}

/** Looks a CollaSet up in the pod's namespace; undefined when it does not exist. May throw on a lookup failure. */
export type CollaSetLookup = (namespace: string, name: string) => CollaSetReplicas | undefined;

/** "Unavailable" in kuperator: the pod lacks the service-available label. */
export const isUnavailable = (pod: Pod): boolean => pod.metadata.labels?.[SERVICE_AVAILABLE_LABEL] === undefined;

/**
 * apimachinery's GetScaledValueFromIntOrPercent: an integer as is, `N%` of `total` rounded up or down.
 * Returns the error text (`invalid value for IntOrString: ...`) for anything else.
 */
export function scaledIntOrPercent(value: IntOrString, total: number, roundUp: boolean): number | string {
  if (typeof value === 'number') {
    return Number.isInteger(value) ? value : 'invalid value for IntOrString: invalid type: neither int nor percentage';
  }
  if (!value.endsWith('%')) return 'invalid value for IntOrString: invalid type: string is not a percentage';
  const digits = value.slice(0, -1);
  if (!/^[+-]?\d+$/.test(digits)) return `invalid value for IntOrString: invalid value "${value}": strconv.Atoi: parsing "${digits}": invalid syntax`;
  const scaled = (Number(digits) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

const showIntOrString = (value: IntOrString): string => String(value);

export function availablePolicyRule(policy: AvailableRule, context: RuleContext, lookup: CollaSetLookup): RuleResult {
  const { ruleName, subjects, targets, passedBefore } = context;
  const result = emptyResult();
  const total = targets.size;
  let maxQuota = total;
  let minQuota = 0;
  if (policy.maxUnavailableValue != null) {
    const quota = scaledIntOrPercent(policy.maxUnavailableValue, total, true);
    if (typeof quota === 'string') {
      return rejectAll(context, result, `[${ruleName}] fail to get int value from raw max unavailable value(${showIntOrString(policy.maxUnavailableValue)}), error: ${quota}`);
    }
    maxQuota = quota;
  }
  if (policy.minAvailableValue != null) {
    const quota = scaledIntOrPercent(policy.minAvailableValue, total, false);
    if (typeof quota === 'string') {
      return rejectAll(context, result, `[${ruleName}] fail to get int value from raw min available value(${showIntOrString(policy.minAvailableValue)}), error: ${quota}`);
    }
    minQuota = quota;
  }
  let uncreated: number;
  try {
    uncreated = uncreatedOwnerReplicas(targets, lookup);
  } catch (err) {
    return rejectAll(context, result, `[${ruleName}] fail to count owner uncreated replicas: ${(err as Error).message}`);
  }
  let allowUnavailable = Math.max(0, maxQuota - uncreated);
  let available = 0;
  for (const [name, pod] of targets) {
    if (passedBefore(name) || isUnavailable(pod)) allowUnavailable--;
    else available++;
  }
  const keepMinAvailable: string[] = [];
  const overMaxUnavailable: string[] = [];
  for (const name of subjects) {
    if (passedBefore(name) || isUnavailable(targets.get(name) as Pod)) {
      result.passed.add(name);
    } else if (allowUnavailable > 0) {
      if (available - minQuota < 1) {
        keepMinAvailable.push(name);
      } else {
        available--;
        allowUnavailable--;
        result.passed.add(name);
      }
    } else {
      overMaxUnavailable.push(name);
    }
  }
  const minReason = `blocked by min available policy: [min available]=${minQuota}/${total}, [current keep available]=${available}/${total}`;
  const maxReason = `[${ruleName}] blocked by max unavailable policy: [max unavailable]=${maxQuota}/${total}, [current unavailable]=${total - available}/${total}`;
  for (const name of keepMinAvailable) result.rejected.set(name, minReason);
  for (const name of overMaxUnavailable) result.rejected.set(name, maxReason);
  return result;
}

/**
 * Replicas the pods' CollaSet owners want but that are not among the selected pods, summed over
 * owners (kuperator PR #362: a PersistentSequence rebuild deletes a pod before its successor exists,
 * which must not enlarge the quota). Only controller references to apps.kusionstack.io/v1alpha1
 * CollaSets count; a missing owner or one whose UID differs contributes nothing.
 */
export function uncreatedOwnerReplicas(targets: ReadonlyMap<string, Pod>, lookup: CollaSetLookup): number {
  const owners = new Map<string, { desired: number; current: number }>();
  for (const pod of targets.values()) {
    const ref = pod.metadata.ownerReferences?.find((r) => r.controller === true);
    if (ref === undefined || ref.kind !== COLLASET_KIND || ref.apiVersion !== COLLASET_API_VERSION) continue;
    let owner = owners.get(ref.uid);
    if (owner === undefined) {
      const found = lookup(pod.metadata.namespace ?? '', ref.name);
      const desired = found === undefined || found.uid !== ref.uid ? 0 : (found.replicas ?? 1);
      owner = { desired, current: 0 };
      owners.set(ref.uid, owner);
    }
    owner.current++;
  }
  let uncreated = 0;
  for (const { desired, current } of owners.values()) uncreated += Math.max(0, desired - current);
  return uncreated;
}
