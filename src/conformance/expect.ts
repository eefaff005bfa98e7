// The expectations scenarios spell out: which labels a pod must have (with which value) or must not have, which
// conditions, which finalizers. Each check returns what is wrong, in words; nothing wrong is an empty list.

import type { Pod } from '../api/kube.ts';
import { ID_LABEL_WORDS, SERVICE_AVAILABLE_LABEL, idLabelKey, SERVICE_READY_GATE, SERVICE_READY_MESSAGE } from '../api/protocol.ts';

/** Per label key: the exact value, `true` for present with any value, `false` for absent. */
export type LabelExpectation = Record<string, string | boolean>;

export function labelMismatches(pod: Pod, expected: LabelExpectation): string[] {
  const labels = pod.metadata.labels ?? {};
  const wrong: string[] = [];
  for (const [key, want] of Object.entries(expected)) {
    const value = labels[key];
    if (want === false) {
      if (value !== undefined) wrong.push(`${key}=${value} is there, expected absent`);
    } else if (value === undefined) {
      wrong.push(`${key} is missing${want === true ? '' : `, expected ${want}`}`);
    } else if (want !== true && value !== want) {
      wrong.push(`${key}=${value}, expected ${want}`);
    }
  }
  return wrong;
}

/** The keys of a pod's labels that start with one of the prefixes. */
export const labelsWithPrefix = (pod: Pod, ...prefixes: string[]): string[] =>
  Object.keys(pod.metadata.labels ?? {})
    .filter((key) => prefixes.some((prefix) => key.startsWith(prefix)))
    .sort();

/** The keys of the pod's per-ID labels of these lifecycles, sorted. */
export function labelsOfLifecycles(pod: Pod, ids: readonly string[]): string[] {
  const keys = new Set(ids.flatMap((id) => ID_LABEL_WORDS.map((word) => idLabelKey(word, id))));
  return Object.keys(pod.metadata.labels ?? {})
    .filter((key) => keys.has(key))
    .sort();
}

const conditionOf = (pod: Pod, type: string) => pod.status?.conditions?.find((c) => c.type === type);

/** The service-ready condition as the protocol writes it: the status, and the message every implementation sets. */
export function serviceReadyMismatches(pod: Pod, status: 'True' | 'False'): string[] {
  const condition = conditionOf(pod, SERVICE_READY_GATE);
  if (!condition) return [`condition ${SERVICE_READY_GATE} is missing, expected ${status}`];
  const wrong: string[] = [];
  if (condition.status !== status) wrong.push(`condition ${SERVICE_READY_GATE}=${condition.status}, expected ${status}`);
  if (condition.message !== SERVICE_READY_MESSAGE) wrong.push(`condition ${SERVICE_READY_GATE} has message ${JSON.stringify(condition.message ?? '')}, expected "${SERVICE_READY_MESSAGE}"`);
  return wrong;
}

export function readyMismatches(pod: Pod, ready: boolean): string[] {
  const status = conditionOf(pod, 'Ready')?.status;
  return (status === 'True') === ready ? [] : [`condition Ready=${status ?? 'missing'}, expected ${ready ? 'True' : 'not True'}`];
}

/** A pod in service: the gate True, Ready, labelled service-available. */
export const inServiceMismatches = (pod: Pod): string[] => [
  ...serviceReadyMismatches(pod, 'True'),
  ...readyMismatches(pod, true),
  ...labelMismatches(pod, { [SERVICE_AVAILABLE_LABEL]: true }),
];

/**
 * A validating webhook's denial as the protocol words it: `... denied the request: failed to validate <webhook>,
 * <error>`, the error exactly, or only starting with `error` where the rest is the implementation's own words.
 */
export function denialMismatches(message: string, webhook: string, error: string, exact = true): string[] {
  const expected = `denied the request: failed to validate ${webhook}, ${error}`;
  const at = message.indexOf(expected);
  if (at < 0 || (exact && at + expected.length !== message.length)) return [`the answer does not end with ${JSON.stringify(expected)}${exact ? '' : '...'}`];
  return [];
}
