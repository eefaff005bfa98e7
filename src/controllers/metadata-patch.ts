// Writing a pure transform's result as the smallest safe request: a merge patch of the labels, annotations
// and finalizers that changed, guarded by the resourceVersion the transform started from. Never a full PUT
// of a cached object, which may have been trimmed to save memory. (A merge patch replaces the finalizer list
// whole; the resourceVersion guard is what makes that safe.)

import type { Pod } from '../api/kube.ts';
import type { KubeClient } from '../kube/client.ts';
import { PODS } from '../kube/resources.ts';

function mapDiff(before: Record<string, string> | undefined, after: Record<string, string> | undefined): Record<string, string | null> | undefined {
  const diff: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(after ?? {})) if (before?.[k] !== v) diff[k] = v;
  for (const k of Object.keys(before ?? {})) if (after?.[k] === undefined) diff[k] = null;
  return Object.keys(diff).length > 0 ? diff : undefined;
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  (a ?? []).length === (b ?? []).length && (a ?? []).every((v, i) => v === b?.[i]);

/** Patches `before` into `after` (labels, annotations, finalizers); resolves with the stored pod. */
export function patchPodMetadata(client: KubeClient, before: Pod, after: Pod): Promise<Pod> {
  const labels = mapDiff(before.metadata.labels, after.metadata.labels);
  const annotations = mapDiff(before.metadata.annotations, after.metadata.annotations);
  const finalizers = sameList(before.metadata.finalizers, after.metadata.finalizers) ? undefined : (after.metadata.finalizers ?? []);
  const metadata = { resourceVersion: before.metadata.resourceVersion, ...(labels && { labels }), ...(annotations && { annotations }), ...(finalizers && { finalizers }) };
  return client.patch<Pod>(PODS, before.metadata.namespace, before.metadata.name ?? '', 'merge', { metadata });
}
