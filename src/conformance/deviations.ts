// Known deviations of an implementation from the protocol, which a scenario's step detects: when that step
// fails, the report names the deviation beside the failure, so a user reads "a known bug of X" rather than
// diagnosing it again. docs/conformance.md describes each, with the upstream code and what a user sees.

import { idLabelPrefix } from '../api/protocol.ts';

export interface KnownDeviation {
  /** Stable: what JSON reports carry and docs/conformance.md lists. */
  id: string;
  implementation: string;
  /** What it is, in a sentence. */
  summary: string;
}

export const RULES_MATCHED_BY_POD_NAME: KnownDeviation = {
  id: 'kuperator-rules-by-pod-name',
  implementation: 'Kuperator',
  summary: 'PodTransitionRules are matched to pods by bare name across namespaces, so a rule gates a same-named pod of another namespace',
};

export const ORPHAN_POST_CHECKED: KnownDeviation = {
  id: 'kuperator-orphan-post-checked',
  implementation: 'Kuperator',
  summary: 'a reconcile on a stale cache re-adds post-checked/<id> after the lifecycle was cleaned up, and nothing removes it',
};

/**
 * The deviation that leaves exactly these labels of ended lifecycles on a pod, if one is known to: the orphan
 * post-checked is the only per-ID label left.
 */
export function deviationLeaving(keys: readonly string[]): KnownDeviation | undefined {
  return keys.length > 0 && keys.every((key) => key.startsWith(`${idLabelPrefix('post-checked')}/`)) ? ORPHAN_POST_CHECKED : undefined;
}

