// A view of some resources of a remote API server kept by list and watch, as client-go's reflector keeps an
// informer's store: a list, then a watch from its resourceVersion; a watch that ends is opened again from the
// last version seen, and one the server no longer serves (410 Gone) or that fails starts over with a list,
// whose difference to the view is handed on as changes. Listeners see every change in the order it came.

import type { ResourceRef } from '../apiserver/local-client.ts';
import type { KubeObject } from '../meta/object.ts';
import type { NodeViewEntry, NodeViewEvent } from '../nodes/node-context.ts';
import type { RemoteClient, RemoteWatchEvent } from './client.ts';

export interface ViewedResource {
  ref: ResourceRef;
  /** The name changes and entries carry, as the sandbox's storage names it: `pods`, `leases.coordination.k8s.io`. */
  storageKey: string;
  /** Only this namespace's objects. */
  namespace?: string;
}

const keyOf = (object: KubeObject): string => (object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name}` : (object.metadata.name ?? ''));

/** The delay before the next list after `failures` failed ones: 100 ms doubling, at most 5 s. */
const relistDelay = (failures: number): number => Math.min(100 * 2 ** failures, 5000);

class Reflector {
  readonly entries = new Map<string, NodeViewEntry>();
  readonly synced: Promise<void>;
  readonly #client: RemoteClient;
  readonly #resource: ViewedResource;
  readonly #emit: (event: NodeViewEvent) => void;
  #stopped = false;
  #watch: { stop(): void } | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;
  #markSynced!: () => void;

  constructor(client: RemoteClient, resource: ViewedResource, emit: (event: NodeViewEvent) => void) {
    this.#client = client;
    this.#resource = resource;
    this.#emit = emit;
    this.synced = new Promise((resolve) => (this.#markSynced = resolve));
    void this.#list();
  }

  #change(type: NodeViewEvent['type'], object: KubeObject): void {
    const key = keyOf(object);
    if (type === 'DELETED') this.entries.delete(key);
    else this.entries.set(key, { key, object });
    this.#emit({ type, resource: this.#resource.storageKey, key, object });
  }

  #later(then: () => void): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(then, relistDelay(this.#failures++));
    this.#timer.unref();
  }

  async #list(): Promise<void> {
    if (this.#stopped) return;
    let list;
    try {
      list = await this.#client.list(this.#resource.ref, { namespace: this.#resource.namespace });
    } catch {
      return this.#later(() => void this.#list());
    }
    if (this.#stopped) return;
    const seen = new Set<string>();
    for (const object of list.items) {
      const key = keyOf(object);
      seen.add(key);
      const before = this.entries.get(key)?.object;
      if (before?.metadata.resourceVersion !== object.metadata.resourceVersion) this.#change(before ? 'MODIFIED' : 'ADDED', object);
    }
    for (const [key, entry] of this.entries) if (!seen.has(key)) this.#change('DELETED', entry.object);
    this.#markSynced();
    await this.#watchFrom(list.resourceVersion);
  }

  async #watchFrom(resourceVersion: string): Promise<void> {
    if (this.#stopped) return;
    let version = resourceVersion;
    let gone = false;
    const onEvent = (event: RemoteWatchEvent): void => {
      if (event.type === 'ERROR') {
        gone = true;
        return;
      }
      version = event.object.metadata.resourceVersion ?? version;
      if (event.type !== 'BOOKMARK') this.#change(event.type, event.object);
    };
    const onEnd = (err?: unknown): void => {
      this.#watch = undefined;
      if (gone || err) this.#later(() => void this.#list());
      else void this.#watchFrom(version);
    };
    try {
      this.#watch = await this.#client.watch(this.#resource.ref, { namespace: this.#resource.namespace, resourceVersion: version }, onEvent, onEnd);
      this.#failures = 0;
      if (this.#stopped) this.#watch.stop();
    } catch {
      // 410: the version is too old to watch from; anything else: start over from a list as well.
      this.#later(() => void this.#list());
    }
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#watch?.stop();
  }
}

export class ClusterView {
  readonly #reflectors = new Map<string, Reflector>();
  readonly #listeners = new Set<(event: NodeViewEvent) => void>();

  constructor(client: RemoteClient, resources: readonly ViewedResource[]) {
    for (const resource of resources) {
      this.#reflectors.set(resource.storageKey, new Reflector(client, resource, (event) => {
        for (const listener of this.#listeners) listener(event);
      }));
    }
  }

  /** Resolves once every resource was listed once. */
  async synced(): Promise<void> {
    await Promise.all([...this.#reflectors.values()].map((r) => r.synced));
  }

  get(resource: string, key: string): NodeViewEntry | undefined {
    return this.#reflectors.get(resource)?.entries.get(key);
  }

  list(resource: string): NodeViewEntry[] {
    return [...(this.#reflectors.get(resource)?.entries.values() ?? [])];
  }

  subscribe(listener: (event: NodeViewEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  stop(): void {
    for (const reflector of this.#reflectors.values()) reflector.stop();
    this.#listeners.clear();
  }
}
