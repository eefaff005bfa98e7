// What every handler of the request pipeline shares.

import type { Clock } from '../meta/time.ts';
import type { Registry } from '../registry/registry.ts';
import type { Store } from '../storage/store.ts';
import type { AdmissionChain } from './admission.ts';
import type { KubeletConnections } from './kubelet-connections.ts';
import type { ListSnapshots } from './list-snapshots.ts';
import type { RequestCounter } from './metrics.ts';

export interface ServerContext {
  readonly store: Store;
  readonly registry: Registry;
  readonly admission: AdmissionChain;
  readonly clock: Clock;
  /** apiserver_request_total, served at /metrics. */
  readonly requests: RequestCounter;
  /** The nodes' kubelets, for pods/log. */
  readonly kubelets: KubeletConnections;
  readonly snapshots: ListSnapshots;
  /** Periodic watch bookmarks, in milliseconds. */
  readonly bookmarkIntervalMs: number;
  /** How long a list at a future resourceVersion waits before answering 504 (the real server waits 3 s). */
  readonly futureResourceVersionWaitMs: number;
  /** Resolves when the server stops; long waits race against it. */
  readonly stopped: AbortSignal;
}
