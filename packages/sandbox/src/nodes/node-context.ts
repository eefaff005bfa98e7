// What the simulated nodes need of the cluster they run in, and nothing more: a client that writes as a
// given component (a kubelet is `system:node:<name>`, the scheduler `system:kube-scheduler`), a view of the
// pods, nodes and node Leases, and their changes in order. The sandbox hands its in-process controller
// context, which has all of it; against any other API server (./remote-nodes.ts) informers over HTTP keep
// the view, as a kubelet's and a scheduler's informers do, and writes go out as HTTP requests.

import type { PatchKind, RequestOptions, ResourceRef } from '../apiserver/local-client.ts';
import type { KubeObject } from '../meta/object.ts';
import type { Clock } from '../meta/time.ts';

/** The writes of a node component; failures are StatusErrors, as the API server answered them. */
export interface NodeApiClient {
  /** POST; with a subresource (`binding`) the object's name addresses the parent. */
  create(ref: ResourceRef, object: KubeObject, options?: RequestOptions): Promise<KubeObject>;
  update(ref: ResourceRef, object: KubeObject, options?: RequestOptions): Promise<KubeObject>;
  patch(ref: ResourceRef, name: string, kind: PatchKind, patch: unknown, options?: RequestOptions): Promise<KubeObject>;
  delete(ref: ResourceRef, name: string, options?: RequestOptions & { body?: Record<string, unknown> }): Promise<KubeObject>;
}

/** An object of the view under its key (`namespace/name`, or the name of a cluster-scoped object). */
export interface NodeViewEntry {
  readonly key: string;
  readonly object: KubeObject;
}

/** A change of the view: `resource` is the storage key (`pods`, `nodes`, `leases.coordination.k8s.io`). */
export interface NodeViewEvent extends NodeViewEntry {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly resource: string;
}

export interface NodeContext {
  clientAs(identity: { username: string; userAgent: string }): NodeApiClient;
  /** Every change of the pods, nodes and node Leases, in order. */
  subscribe(listener: (event: NodeViewEvent) => void): () => void;
  /** The current pods, nodes and node Leases. Never modify what it returns. */
  readonly store: {
    get(resource: string, key: string): NodeViewEntry | undefined;
    list(resource: string): readonly NodeViewEntry[];
  };
  readonly clock: Clock;
}

/** A part of the simulated nodes (node agent, scheduler, kubelets). */
export interface NodeController {
  readonly name: string;
  start(ctx: NodeContext): () => void;
}
