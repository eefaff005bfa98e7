// List + watch into a local cache (client-go's reflector + indexer), made robust for long-running use:
// paged lists, watches resumed from the last resourceVersion with bookmarks, a relist on 410 Gone, reconnect
// with exponential backoff after any failure, and a watchdog that restarts a watch that went silent (the
// JavaScript client's informer is known to stop quietly). Cached objects are shared and must be treated as
// read-only; reconcilers copy before changing them.

import { sleep, systemClock, type Clock } from './clock.ts';
import { isGone, isNotFound, type KubeClient, type ObjectWithMeta, type WatchEvent } from './client.ts';
import { silentLogger, type Logger } from './log.ts';
import { resourcePath, type ResourceType } from './resources.ts';

/** `namespace/name`, or `name` for cluster-scoped objects (client-go's MetaNamespaceKeyFunc): the cache's key, and the workqueue's. */
export const keyOf = (namespace: string | undefined, name: string): string => (namespace ? `${namespace}/${name}` : name);

export const objectKey = (object: ObjectWithMeta): string => keyOf(object.metadata.namespace, object.metadata.name ?? '');

/** An informer as whoever runs it sees it, whatever it holds: the manager starts it and waits for its sync. */
export interface RunnableInformer {
  run(signal: AbortSignal): Promise<void>;
  waitForSync(signal?: AbortSignal): Promise<void>;
  hasSynced(): boolean;
}

export interface InformerHandler<T> {
  onAdd?(object: T): void;
  onUpdate?(previous: T, current: T): void;
  onDelete?(object: T): void;
}

export type Indexer<T> = (object: T) => string[];

export interface InformerOptions<T> {
  client: KubeClient;
  type: ResourceType;
  /** Watch one namespace; all namespaces when unset. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Applied to every object before it is cached; defaults to dropping metadata.managedFields. */
  transform?: (object: T) => T;
  /**
   * Which objects to cache, for what a server-side selector cannot express (a ReplicaSet whose template is
   * controlled): the others are treated as absent, and one that stops being kept is removed (a delete to handlers).
   */
  keep?: (object: T) => boolean;
  pageSize?: number;
  /** Server-side watch timeout; each watch picks a random value in [t, 2t) as client-go does. Default 300 s. */
  watchTimeoutSeconds?: number;
  /** Restart a watch that delivered nothing (not even a bookmark) for this long. Default: 2 x the max watch timeout. */
  idleTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
  /**
   * Told of each failed list or watch (which one, and the error), and with `undefined` once a list (after a failed
   * list) or a watch (after any failure) is answered again: for a user interface that names what is wrong, such
   * as a permission that lets the list through but not the watch.
   */
  onHealth?: (problem: InformerProblem | undefined) => void;
}

export interface InformerProblem {
  verb: 'list' | 'watch';
  error: unknown;
}

export const stripManagedFields = <T extends ObjectWithMeta>(object: T): T => {
  if (object.metadata.managedFields === undefined) return object;
  const { managedFields: _dropped, ...metadata } = object.metadata;
  return { ...object, metadata };
};

/** client-go's NamespaceIndex: every informer keeps it. */
const NAMESPACE_INDEX = 'namespace';

/**
 * Whether resourceVersion `a` is older than `b`. kube-apiserver's are etcd revisions, integers that only grow
 * (client-go's MutationCache compares them so too); anything else is never known to be older.
 */
export function olderResourceVersion(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && /^\d+$/.test(a) && /^\d+$/.test(b) && BigInt(a) < BigInt(b);
}

export class Informer<T extends ObjectWithMeta> {
  readonly #options: InformerOptions<T>;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #transform: (object: T) => T;
  readonly #store = new Map<string, T>();
  /** Objects this process wrote, newer than their cached copy until the watch brings that version (client-go's MutationCache). */
  readonly #assumed = new Map<string, T>();
  readonly #handlers: InformerHandler<T>[] = [];
  readonly #indexers = new Map<string, Indexer<T>>();
  /** index name -> index value -> keys */
  readonly #indexes = new Map<string, Map<string, Set<string>>>();
  #synced = false;
  readonly #syncWaiters: (() => void)[] = [];
  #resourceVersion = '';
  #problem: InformerProblem | undefined;

  constructor(options: InformerOptions<T>) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#log = (options.logger ?? silentLogger()).child({ informer: options.type.resource });
    this.#transform = options.transform ?? stripManagedFields;
    this.addIndexer(NAMESPACE_INDEX, (object) => [object.metadata.namespace ?? '']);
  }

  /** Registers a handler; the objects already cached are delivered to it as adds. Returns the unsubscribe. */
  addHandler(handler: InformerHandler<T>): () => void {
    this.#handlers.push(handler);
    for (const object of this.#store.values()) this.#notify(() => handler.onAdd?.(object));
    return () => {
      const at = this.#handlers.indexOf(handler);
      if (at >= 0) this.#handlers.splice(at, 1);
    };
  }

  addIndexer(name: string, indexer: Indexer<T>): void {
    this.#indexers.set(name, indexer);
    const index = new Map<string, Set<string>>();
    this.#indexes.set(name, index);
    for (const [key, object] of this.#store) for (const value of indexer(object)) addToIndex(index, value, key);
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.#read(keyOf(namespace, name));
  }

  /** Every cached object, or those of one namespace (from the namespace index, without a scan). */
  list(namespace?: string): T[] {
    if (namespace !== undefined) return this.byIndex(NAMESPACE_INDEX, namespace);
    return this.#assumed.size === 0 ? [...this.#store.values()] : [...this.#store.keys()].map((key) => this.#read(key)!);
  }

  /** The objects an index maps `value` to. An assumed write is seen here too; indexes must not depend on what podops writes. */
  byIndex(name: string, value: string): T[] {
    const index = this.#indexes.get(name);
    if (!index) throw new Error(`informer ${this.#options.type.resource}: no index named "${name}"`);
    const objects: T[] = [];
    for (const key of index.get(value) ?? []) {
      const object = this.#read(key);
      if (object !== undefined) objects.push(object);
    }
    return objects;
  }

  /**
   * Makes an object this process has just written (as the API server answered it) what reads return until the
   * watch delivers that version or a newer one, so the next decision sees the write (client-go's MutationCache).
   * Handlers are not told: the watch event will tell them. An object the cache does not hold is not assumed.
   */
  assume(object: T): void {
    const key = objectKey(object);
    const cached = this.#store.get(key);
    if (!cached || !olderResourceVersion(cached.metadata.resourceVersion, object.metadata.resourceVersion)) return;
    if (this.#options.keep && !this.#options.keep(object)) return;
    this.#assumed.set(key, this.#transform(object));
  }

  #read(key: string): T | undefined {
    return (this.#assumed.size > 0 && this.#assumed.get(key)) || this.#store.get(key);
  }

  get size(): number {
    return this.#store.size;
  }

  /** The resourceVersion the cache reflects (from the last list, event or bookmark). */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves once the first list has filled the cache, or when the signal aborts. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      this.#syncWaiters.push(resolve);
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** Keeps the cache in sync until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    let needList = true;
    let failures = 0;
    while (!signal.aborted) {
      let verb: InformerProblem['verb'] = 'list';
      try {
        if (needList) {
          await this.#listAll(signal);
          needList = false;
          if (this.#problem?.verb === 'list') this.#setProblem(undefined);
        }
        verb = 'watch';
        const outcome = await this.#watch(signal);
        if (outcome === 'gone' || outcome === 'idle') needList = true;
        failures = 0;
      } catch (err) {
        if (signal.aborted) break;
        needList = true;
        if (isGone(err)) continue;
        this.#setProblem({ verb, error: err });
        failures++;
        const delay = Math.min(30_000, 1000 * 2 ** Math.min(failures - 1, 5)) * (0.8 + Math.random() * 0.4);
        const { group, version, resource } = this.#options.type;
        // A 404 on the list of a whole resource: the API server does not serve it (a CRD not installed yet).
        const why = isNotFound(err) && needList ? `the API server does not serve ${resource}.${group || 'core'}/${version} (is its CustomResourceDefinition installed?)` : 'list/watch failed';
        this.#log.warn({ err, retryInMs: Math.round(delay) }, `${why}; retrying`);
        await sleep(this.#clock, delay, signal);
      }
    }
  }

  async #listAll(signal: AbortSignal): Promise<void> {
    const { client, type, namespace, labelSelector, fieldSelector } = this.#options;
    const listed = new Map<string, T>();
    let continueToken: string | undefined;
    let resourceVersion = '';
    do {
      const page = await client.list<T>(
        type,
        { namespace, labelSelector, fieldSelector, limit: this.#options.pageSize ?? 500, ...(continueToken && { continue: continueToken }) },
        signal,
      );
      if (!continueToken) resourceVersion = page.metadata.resourceVersion ?? '';
      for (const item of page.items) {
        if (this.#options.keep && !this.#options.keep(item)) continue;
        const object = this.#transform(item);
        listed.set(objectKey(object), object);
      }
      continueToken = page.metadata.continue || undefined;
    } while (continueToken);
    this.#replace(listed);
    this.#resourceVersion = resourceVersion;
    if (!this.#synced) {
      this.#synced = true;
      for (const resolve of this.#syncWaiters.splice(0)) resolve();
    }
    this.#log.debug({ objects: listed.size, resourceVersion }, 'listed');
  }

  /** Replaces the cache with a fresh list, telling handlers what changed meanwhile. */
  #replace(listed: Map<string, T>): void {
    for (const [key, previous] of [...this.#store]) if (!listed.has(key)) this.#remove(key, previous);
    for (const [key, object] of listed) this.#upsert(key, object);
  }

  async #watch(signal: AbortSignal): Promise<'ended' | 'gone' | 'idle'> {
    const { client, type, namespace, labelSelector, fieldSelector } = this.#options;
    const base = this.#options.watchTimeoutSeconds ?? 300;
    const timeoutSeconds = Math.floor(base * (1 + Math.random()));
    const idleTimeoutMs = this.#options.idleTimeoutMs ?? base * 2 * 1000 * 2;
    const watchAbort = new AbortController();
    const stop = (): void => watchAbort.abort();
    signal.addEventListener('abort', stop, { once: true });
    // A listener added to an already aborted signal never fires.
    if (signal.aborted) stop();
    let idle = false;
    let cancelWatchdog = (): void => {};
    const arm = (): void => {
      cancelWatchdog();
      cancelWatchdog = this.#clock.setTimer(() => {
        idle = true;
        this.#log.warn({ idleTimeoutMs }, 'watch delivered nothing for too long; relisting');
        watchAbort.abort();
      }, idleTimeoutMs);
    };
    arm();
    try {
      const events = client.watch<T>(
        resourcePath(type, namespace),
        { resourceVersion: this.#resourceVersion, allowWatchBookmarks: true, timeoutSeconds, labelSelector, fieldSelector },
        watchAbort.signal,
        () => {
          if (this.#problem) this.#setProblem(undefined);
        },
      );
      for await (const event of events) {
        arm();
        if (this.#apply(event) === 'gone') return 'gone';
      }
      return idle ? 'idle' : 'ended';
    } catch (err) {
      if (idle) return 'idle';
      throw err;
    } finally {
      cancelWatchdog();
      signal.removeEventListener('abort', stop);
      watchAbort.abort();
    }
  }

  #setProblem(problem: InformerProblem | undefined): void {
    this.#problem = problem;
    const report = this.#options.onHealth;
    if (report) this.#notify(() => report(problem));
  }

  #apply(event: WatchEvent<T>): 'gone' | undefined {
    if (event.type === 'ERROR') {
      const status = event.object as unknown as { code?: number; message?: string };
      if (status.code === 410) return 'gone';
      throw new Error(`watch error ${status.code ?? '?'}: ${status.message ?? JSON.stringify(status)}`);
    }
    const rv = event.object.metadata.resourceVersion;
    if (event.type === 'BOOKMARK') {
      if (rv) this.#resourceVersion = rv;
      return undefined;
    }
    const kept = !this.#options.keep || this.#options.keep(event.object);
    const object = this.#transform(event.object);
    const key = objectKey(object);
    if (event.type === 'DELETED' || !kept) {
      const previous = this.#store.get(key);
      if (previous) this.#remove(key, previous);
    } else {
      this.#upsert(key, object);
    }
    if (rv) this.#resourceVersion = rv;
    return undefined;
  }

  #upsert(key: string, object: T): void {
    const assumed = this.#assumed.get(key);
    if (assumed && !olderResourceVersion(object.metadata.resourceVersion, assumed.metadata.resourceVersion)) this.#assumed.delete(key);
    const previous = this.#store.get(key);
    if (previous && previous.metadata.resourceVersion === object.metadata.resourceVersion) return;
    if (previous) this.#unindex(key, previous);
    this.#store.set(key, object);
    for (const [name, indexer] of this.#indexers) for (const value of indexer(object)) addToIndex(this.#indexes.get(name)!, value, key);
    for (const handler of this.#handlers) {
      this.#notify(() => (previous ? handler.onUpdate?.(previous, object) : handler.onAdd?.(object)));
    }
  }

  #remove(key: string, previous: T): void {
    this.#assumed.delete(key);
    this.#unindex(key, previous);
    this.#store.delete(key);
    for (const handler of this.#handlers) this.#notify(() => handler.onDelete?.(previous));
  }

  #unindex(key: string, object: T): void {
    for (const [name, indexer] of this.#indexers) {
      const index = this.#indexes.get(name)!;
      for (const value of indexer(object)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }

  #notify(call: () => void): void {
    try {
      call();
    } catch (err) {
      this.#log.error({ err }, 'event handler failed');
    }
  }
}

function addToIndex(index: Map<string, Set<string>>, value: string, key: string): void {
  let keys = index.get(value);
  if (!keys) index.set(value, (keys = new Set()));
  keys.add(key);
}
