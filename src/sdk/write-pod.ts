// Writing the result of a pure transform as the smallest request over podops' KubeClient: the request the
// pure core builds (podWrite), one patch guarded by the resourceVersion the transform started from.

import type { Pod } from '../api/kube.ts';
import type { KubeClient } from '../kube/client.ts';
import { PODS } from '../kube/resources.ts';
import { podWrite } from '../lifecycle/pod-write.ts';

/**
 * Writes what differs between `before` (as read, with its resourceVersion) and `after` as one patch: never a
 * full PUT of a cached object, which may have been trimmed to save memory. Resolves with the stored pod, or
 * with `before` when nothing differs. A concurrent change fails with 409 Conflict.
 */
export async function writePod(client: KubeClient, before: Pod, after: Pod, signal?: AbortSignal): Promise<Pod> {
  const write = podWrite(before, after);
  if (!write) return before;
  const { namespace, name = '' } = before.metadata;
  return client.patch<Pod>(PODS, namespace, name, write.patchType, write.body, { ...(write.subresource && { subresource: write.subresource }), ...(signal && { signal }) });
}
