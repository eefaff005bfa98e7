// The fields of workload objects (Deployments, ReplicaSets) that their controllers read: spec
// replicas (defaulted to 1), minReadySeconds, status counters and conditions as stored, and the label
// selector, converted once per stored object.

import { isJsonObject, type KubeObject } from '../../meta/object.ts';
import { tryLabelSelectorFromObject } from '../../selectors/label-selector.ts';
import { isEverything, matchesLabels, type LabelSelector } from '../../selectors/labels.ts';

export const specReplicas = (object: KubeObject): number => {
  const replicas = isJsonObject(object.spec) ? object.spec.replicas : undefined;
  return typeof replicas === 'number' ? replicas : 1;
};

export const minReadySecondsOf = (object: KubeObject): number => {
  const seconds = isJsonObject(object.spec) ? object.spec.minReadySeconds : undefined;
  return typeof seconds === 'number' ? seconds : 0;
};

/** A status counter as stored (Go omits zero counters). */
export const statusCount = (object: KubeObject, field: string): number => {
  const value = isJsonObject(object.status) ? object.status[field] : undefined;
  return typeof value === 'number' ? value : 0;
};

export const conditionsOf = <C extends { type: string }>(object: KubeObject): C[] => {
  const conditions = isJsonObject(object.status) ? object.status.conditions : undefined;
  return Array.isArray(conditions) ? (conditions as C[]) : [];
};

/** A LabelSelector converted once per stored object (stored objects never change). */
const compiledSelectors = new WeakMap<KubeObject, LabelSelector | null>();
export function selectorOf(object: KubeObject): LabelSelector | undefined {
  let compiled = compiledSelectors.get(object);
  if (compiled === undefined) {
    compiled = tryLabelSelectorFromObject(isJsonObject(object.spec) ? object.spec.selector : undefined) ?? null;
    compiledSelectors.set(object, compiled);
  }
  return compiled ?? undefined;
}

/** A selector that converts and is not empty (an empty one selects nothing here, as upstream). */
export function selects(object: KubeObject, labels: Record<string, string> | undefined): boolean {
  const selector = selectorOf(object);
  return selector !== undefined && !isEverything(selector) && matchesLabels(selector, labels);
}
