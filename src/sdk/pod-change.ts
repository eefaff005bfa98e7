import type { Pod } from '../api/kube.ts';

/** The result of a pure pod transform: a new object (the input is never modified) and whether it differs. */
export interface PodChange {
  pod: Pod;
  changed: boolean;
}

/** A deep copy to edit; transforms hand it to user hooks, which may edit it in place. */
export const draftOf = (pod: Pod): Pod => structuredClone(pod);

export function labelsOf(pod: Pod): Record<string, string> {
  return (pod.metadata.labels ??= {});
}
