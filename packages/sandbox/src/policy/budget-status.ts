// What the eviction subresource and the disruption controller share about a PodDisruptionBudget
// (k8s.io/component-helpers/apps/poddisruptionbudget): which pods a policy/v1 budget selects, its
// status in the Go field order, and the DisruptionAllowed condition that follows disruptionsAllowed.

import { findStatusCondition, setStatusCondition } from '../meta/conditions.ts';
import { isJsonObject, type JsonObject, type KubeObject } from '../meta/object.ts';
import { labelSelectorMatches } from '../selectors/label-selector.ts';

export interface BudgetStatus {
  observedGeneration: number;
  /** Pod name → the time an eviction was granted, until the controller sees the pod go. */
  disruptedPods: Record<string, string>;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  conditions: JsonObject[];
}

const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

export function readBudgetStatus(pdb: KubeObject): BudgetStatus {
  const status = isJsonObject(pdb.status) ? pdb.status : {};
  const disrupted = isJsonObject(status.disruptedPods) ? status.disruptedPods : {};
  return {
    observedGeneration: count(status.observedGeneration),
    disruptedPods: Object.fromEntries(Object.entries(disrupted).filter((e): e is [string, string] => typeof e[1] === 'string')),
    disruptionsAllowed: count(status.disruptionsAllowed),
    currentHealthy: count(status.currentHealthy),
    desiredHealthy: count(status.desiredHealthy),
    expectedPods: count(status.expectedPods),
    conditions: Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [],
  };
}

/** PodDisruptionBudgetStatus as Go writes it: field order, omitempty fields left out, map keys sorted. */
export function renderBudgetStatus(s: BudgetStatus): JsonObject {
  const pods = Object.keys(s.disruptedPods).sort();
  return {
    ...(s.observedGeneration ? { observedGeneration: s.observedGeneration } : {}),
    ...(pods.length ? { disruptedPods: Object.fromEntries(pods.map((p) => [p, s.disruptedPods[p]])) } : {}),
    disruptionsAllowed: s.disruptionsAllowed,
    currentHealthy: s.currentHealthy,
    desiredHealthy: s.desiredHealthy,
    expectedPods: s.expectedPods,
    ...(s.conditions.length ? { conditions: s.conditions } : {}),
  };
}

/** UpdateDisruptionAllowedCondition: True (SufficientPods) while a disruption is allowed, else False (InsufficientPods). */
export function updateDisruptionAllowedCondition(s: BudgetStatus, now: number): JsonObject[] {
  const allowed = s.disruptionsAllowed > 0;
  return setStatusCondition(
    s.conditions,
    {
      type: 'DisruptionAllowed',
      status: allowed ? 'True' : 'False',
      reason: allowed ? 'SufficientPods' : 'InsufficientPods',
      message: '',
      observedGeneration: s.observedGeneration,
    },
    now,
  );
}

/** ConditionsAreUpToDate: the condition exists, the status is current and the condition agrees with disruptionsAllowed. */
export function conditionsAreUpToDate(pdb: KubeObject): boolean {
  const s = readBudgetStatus(pdb);
  const condition = findStatusCondition(s.conditions, 'DisruptionAllowed');
  if (!condition || s.observedGeneration !== (pdb.metadata.generation ?? 0)) return false;
  return s.disruptionsAllowed > 0
    ? condition.status === 'True' && condition.reason === 'SufficientPods'
    : condition.status === 'False' && condition.reason === 'InsufficientPods';
}

/**
 * Whether a policy/v1 budget covers a pod: its selector as LabelSelectorAsSelector reads it (an empty
 * selector selects every pod of the namespace, a missing one none, one that does not convert none).
 */
export function budgetSelects(pdb: KubeObject, labels: Readonly<Record<string, string>> | undefined): boolean {
  return labelSelectorMatches(isJsonObject(pdb.spec) ? pdb.spec.selector : undefined, labels);
}
