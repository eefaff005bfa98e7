// A pod write whose result this process reads back at once: the request the pure core builds (writePod), and
// the stored pod assumed into the shared cache, so the next decision (the next webhook call, the next reconcile)
// sees it before the watch delivers it.

import type { Pod } from '../api/kube.ts';
import type { KubeClient } from '../kube/client.ts';
import type { Informer } from '../kube/informer.ts';
import { writePod } from '../sdk/write-pod.ts';

export async function writeCachedPod(client: KubeClient, pods: Informer<Pod>, before: Pod, after: Pod, signal?: AbortSignal): Promise<Pod> {
  const written = await writePod(client, before, after, signal);
  if (written !== before) pods.assume(written);
  return written;
}
