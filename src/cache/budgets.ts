// Whether a pod's PodDisruptionBudgets have room to take it out of service, from the shared caches: the
// budgets of its namespace, and the controlled pods each one selects (the others count by the budget's status:
// src/lifecycle/eviction.ts budgetRoom).

import type { Pod } from '../api/kube.ts';
import { compileLabelSelector, labelSelectorMatches } from '../api/selector.ts';
import { budgetRoom } from '../lifecycle/eviction.ts';
import type { ClusterCaches, NamedPodDisruptionBudget } from './cluster-cache.ts';

/** The cached (controlled) pods a PodDisruptionBudget selects. */
export function budgetSelected(caches: Pick<ClusterCaches, 'pods'>, budget: NamedPodDisruptionBudget): Pod[] {
  if (!budget.spec?.selector) return [];
  const selector = compileLabelSelector(budget.spec.selector);
  return caches.pods.list(budget.metadata.namespace ?? '').filter((pod) => selector.matches(pod.metadata.labels));
}

/**
 * Undefined when every budget selecting the pod has room; otherwise why one has none. `current` gives each other
 * pod as it is known to be now (a decision whose write is on its way).
 */
export function budgetsRefuse(caches: Pick<ClusterCaches, 'pods' | 'podDisruptionBudgets'>, pod: Pod, current: (pod: Pod) => Pod = (p) => p): string | undefined {
  const namespace = pod.metadata.namespace;
  const budgets = caches.podDisruptionBudgets.list(namespace ?? '').filter((budget) => budget.spec?.selector !== undefined && labelSelectorMatches(budget.spec.selector, pod.metadata.labels));
  if (budgets.length === 0) return undefined;
  for (const budget of budgets) {
    const { room, why } = budgetRoom(budget, pod, budgetSelected(caches, budget).map(current));
    if (!room) return why;
  }
  return undefined;
}
