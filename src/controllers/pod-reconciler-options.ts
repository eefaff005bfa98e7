import type { Pod } from '../api/kube.ts';
import type { KubeClient } from '../kube/client.ts';
import type { EventRecorder } from '../kube/events.ts';
import type { Informer } from '../kube/informer.ts';
import type { Nanos } from '../lifecycle/time.ts';

/** What a reconciler of single controlled pods needs: the cache it reads, the client it writes with, its events. */
export interface PodReconcilerOptions {
  client: KubeClient;
  pods: Informer<Pod>;
  events?: EventRecorder;
  now?: () => Nanos;
}
