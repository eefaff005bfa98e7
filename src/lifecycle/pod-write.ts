// A change of a pod as the one API request that makes it: what podops' controllers send, and what the
// property tests apply. Metadata goes as a merge patch of what changed (labels, annotations, finalizers),
// guarded by the resourceVersion the change started from: a merge patch replaces the finalizer list whole,
// and the guard is what makes that safe. A change of the service-ready condition goes through pods/status
// as a strategic merge patch, whose conditions merge by type, so only that condition is sent; the pod
// status strategy keeps the metadata changes of the same request, so a change is always one request.

import type { ObjectMeta, Pod, PodCondition } from '../api/kube.ts';
import { diffLabels } from './labels.ts';
import { serviceReadyCondition } from './pod.ts';

export interface PodWrite {
  subresource?: 'status';
  patchType: 'merge' | 'strategic';
  body: {
    metadata: Pick<ObjectMeta, 'resourceVersion' | 'finalizers'> & {
      labels?: Record<string, string | null>;
      annotations?: Record<string, string | null>;
    };
    status?: { conditions: PodCondition[] };
  };
}

/** The entries of a merge patch turning one string map into the other (null removes), or undefined when equal. */
function mapPatch(before: Record<string, string> | undefined, after: Record<string, string> | undefined): Record<string, string | null> | undefined {
  const changes = diffLabels(before, after ?? {});
  return changes.length === 0 ? undefined : Object.fromEntries(changes.map((c) => [c.key, c.to ?? null]));
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  (a ?? []).length === (b ?? []).length && (a ?? []).every((v, i) => v === b?.[i]);

/** The request that turns `before` into `after`, or undefined when none of what podops writes differs. */
export function podWrite(before: Pod, after: Pod): PodWrite | undefined {
  const labels = mapPatch(before.metadata.labels, after.metadata.labels);
  const annotations = mapPatch(before.metadata.annotations, after.metadata.annotations);
  const finalizers = sameList(before.metadata.finalizers, after.metadata.finalizers) ? undefined : (after.metadata.finalizers ?? []);
  const gate = serviceReadyCondition(after);
  const gateChanged = gate !== undefined && JSON.stringify(gate) !== JSON.stringify(serviceReadyCondition(before));
  if (!labels && !annotations && !finalizers && !gateChanged) return undefined;
  const metadata = { resourceVersion: before.metadata.resourceVersion, ...(labels && { labels }), ...(annotations && { annotations }), ...(finalizers && { finalizers }) };
  if (!gateChanged) return { patchType: 'merge', body: { metadata } };
  // A strategic merge patch merges finalizer lists instead of replacing them: no removal could be expressed.
  if (finalizers) throw new Error('podWrite: a change of finalizers and of the service-ready condition cannot be one request');
  return { subresource: 'status', patchType: 'strategic', body: { metadata, status: { conditions: [gate] } } };
}
