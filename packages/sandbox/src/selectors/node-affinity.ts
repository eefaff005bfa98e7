// Whether a pod may run on a node, as the scheduler's NodeName, NodeAffinity and TaintToleration
// filters and the DaemonSet controller decide it (component-helpers' nodeaffinity and
// v1helper.FindMatchingUntoleratedTaint): spec.nodeSelector, the required node affinity
// (matchExpressions on labels, matchFields on `metadata.name`; terms ORed, requirements ANDed, a
// malformed or empty term matches nothing) and taints against tolerations.

import { isJsonObject, readPath, type JsonObject } from '../meta/object.ts';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

const int64Pattern = /^[+-]?[0-9]+$/;
const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** One NodeSelectorRequirement against a label (or field) set; undefined when it is malformed. */
function requirementMatches(requirement: JsonObject, values: Readonly<Record<string, string>>): boolean | undefined {
  const key = requirement.key;
  if (typeof key !== 'string' || key === '') return undefined;
  const wanted = stringList(requirement.values);
  const has = Object.hasOwn(values, key);
  const actual = values[key];
  switch (requirement.operator) {
    case 'In':
      return wanted.length ? has && wanted.includes(actual ?? '') : undefined;
    case 'NotIn':
      return wanted.length ? !has || !wanted.includes(actual ?? '') : undefined;
    case 'Exists':
      return wanted.length ? undefined : has;
    case 'DoesNotExist':
      return wanted.length ? undefined : !has;
    case 'Gt':
    case 'Lt': {
      const [bound] = wanted;
      if (wanted.length !== 1 || bound === undefined || !int64Pattern.test(bound)) return undefined;
      if (!has || actual === undefined || !int64Pattern.test(actual)) return false;
      return requirement.operator === 'Gt' ? BigInt(actual) > BigInt(bound) : BigInt(actual) < BigInt(bound);
    }
    default:
      return undefined;
  }
}

function termMatches(term: unknown, labels: Readonly<Record<string, string>>, fields: Readonly<Record<string, string>>): boolean {
  if (!isJsonObject(term)) return false;
  const expressions = Array.isArray(term.matchExpressions) ? term.matchExpressions : [];
  const fieldRequirements = Array.isArray(term.matchFields) ? term.matchFields : [];
  if (!expressions.length && !fieldRequirements.length) return false;
  for (const r of expressions) if (!isJsonObject(r) || requirementMatches(r, labels) !== true) return false;
  for (const r of fieldRequirements) {
    // Only metadata.name is a node field, with In and NotIn.
    if (!isJsonObject(r) || r.key !== 'metadata.name' || (r.operator !== 'In' && r.operator !== 'NotIn')) return false;
    if (requirementMatches(r, fields) !== true) return false;
  }
  return true;
}

const nodeLabels = (node: unknown): Record<string, string> => {
  const labels = readPath(node, ['metadata', 'labels']);
  return isJsonObject(labels) ? (labels as Record<string, string>) : {};
};

/** GetRequiredNodeAffinity(pod).Match(node): spec.nodeSelector and the required node affinity terms. */
export function podMatchesNodeAffinity(podSpec: unknown, node: unknown): boolean {
  const labels = nodeLabels(node);
  const selector = readPath(podSpec, ['nodeSelector']);
  if (isJsonObject(selector)) for (const [k, v] of Object.entries(selector)) if (labels[k] !== v) return false;
  const required = readPath(podSpec, ['affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution']);
  if (!isJsonObject(required)) return true;
  const terms = Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms : [];
  const fields = { 'metadata.name': String(readPath(node, ['metadata', 'name']) ?? '') };
  return terms.some((term) => termMatches(term, labels, fields));
}

/** Toleration.ToleratesTaint. */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

export function nodeTaints(node: unknown): Taint[] {
  const taints = readPath(node, ['spec', 'taints']);
  return Array.isArray(taints) ? taints.filter((t): t is Taint => isJsonObject(t) && typeof t.key === 'string') : [];
}

export function podTolerations(podSpec: unknown): Toleration[] {
  const tolerations = readPath(podSpec, ['tolerations']);
  return Array.isArray(tolerations) ? tolerations.filter((t): t is Toleration => isJsonObject(t)) : [];
}

/** FindMatchingUntoleratedTaint: the first taint passing `include` that no toleration tolerates. */
export function findUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[], include: (taint: Taint) => boolean): Taint | undefined {
  return taints.find((taint) => include(taint) && !tolerations.some((t) => toleratesTaint(t, taint)));
}
