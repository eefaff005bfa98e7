import type { ClusterCaches } from '../cache/cluster-cache.ts';
import type { KubeClient } from '../kube/client.ts';
import type { EventRecorder } from '../kube/events.ts';
import type { Nanos } from '../lifecycle/time.ts';

/** What a reconciler of single controlled pods needs: the shared caches it reads, the client it writes with, its events. */
export interface PodReconcilerOptions {
  client: KubeClient;
  caches: ClusterCaches;
  events?: EventRecorder;
  now?: () => Nanos;
}
