// What an in-process controller is: the contract of everything that runs inside the sandbox beside
// the API server (the garbage collector, the namespace, CRD, endpoints and workload controllers, the
// simulated nodes' scheduler and kubelets). They write through a LocalClient, i.e. through the same
// request pipeline (admission, validation, metrics) as any API client.

import type { LocalClient } from '../apiserver/local-client.ts';
import type { Clock } from '../meta/time.ts';
import type { Registry } from '../registry/registry.ts';
import { replayedAdd, type Store, type StoreListener } from '../storage/store.ts';

export interface ControllerContext {
  /** Writes (and reads) through the request pipeline, as `system:serviceaccount:kube-system:<name>`. */
  readonly client: LocalClient;
  /** A client acting as another component (a kubelet is `system:node:<node>`, agent `kubelet/v1.32.0 …`). */
  clientAs(identity: { username: string; userAgent: string }): LocalClient;
  /** Every stored change in order, like a shared informer over all resources (read only). */
  subscribe(listener: StoreListener): () => void;
  /** The current stored state, like an always-synced informer cache. Never modify what it returns. */
  readonly store: Pick<Store, 'get' | 'list' | 'locateUid' | 'currentRv'>;
  readonly registry: Registry;
  readonly clock: Clock;
}

export interface Controller {
  readonly name: string;
  /** Starts the controller; the returned function stops it. */
  start(ctx: ControllerContext): () => void;
}

/**
 * Feeds `observe` every stored object of `resources` as an ADDED event, then every change, as an
 * informer's initial list and watch would. The result stops following and then calls `onStop`.
 */
export function followStore(ctx: ControllerContext, resources: readonly string[], observe: StoreListener, onStop: () => void): () => void {
  for (const resource of resources) {
    for (const entry of ctx.store.list(resource)) {
      observe(replayedAdd(resource, entry));
    }
  }
  const unsubscribe = ctx.subscribe(observe);
  return () => {
    unsubscribe();
    onStop();
  };
}
