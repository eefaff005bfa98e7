// The versioned in-memory storage (what etcd is to kube-apiserver): one global, monotonic
// resourceVersion; per-resource buckets kept in key order for lists and paging; a bounded event
// history per resource for watches; a uid index for the garbage collector. It knows nothing of
// API semantics: the request pipeline decides what to write, the store only versions it.

import { encodeJson } from '../meta/go-order.ts';
import type { KubeObject } from '../meta/object.ts';
import { EventHistory } from './event-history.ts';

export interface StoredEntry {
  readonly key: string;
  readonly object: KubeObject;
  readonly rv: number;
  /** The request that stored this version. */
  readonly origin: WriteOrigin;
  /** The object serialized once, on first need (lists and GETs of the storage version reuse it). */
  json: string | undefined;
}

/**
 * `object` as JSON, keys in the order the real server writes them, serialized once per stored version when
 * `entry` holds that very object (not a view of it).
 */
export function serialize(object: KubeObject, entry: StoredEntry | undefined): string {
  return entry && entry.object === object ? (entry.json ??= encodeJson(object)) : encodeJson(object);
}

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** Who asked for a write, in the request pipeline's words; the store hands it to listeners untouched (the write log reads it). */
export interface WriteOrigin {
  /** The user the request acted as (`admin`, an impersonated user, `system:serviceaccount:kube-system:<controller>`). */
  readonly user: string;
  readonly groups: readonly string[];
  readonly userAgent: string | undefined;
  /** The request's field manager: its `fieldManager` parameter, else the User-Agent up to its first `/`. */
  readonly manager: string;
  /** The request's verb: create, update, patch, delete or deletecollection (a graceful DELETE first stores a MODIFIED object). */
  readonly verb: string;
  readonly subresource: string | undefined;
}

export interface StoreEvent {
  readonly type: StoreEventType;
  /** The storage resource key, e.g. `pods` or `deployments.apps`. */
  readonly resource: string;
  readonly key: string;
  /** As stored; for DELETED the last state carrying the deletion's resourceVersion. */
  readonly object: KubeObject;
  readonly previous: KubeObject | undefined;
  /** The stored entry written by ADDED and MODIFIED events (its serialization is shared with readers). */
  readonly entry: StoredEntry | undefined;
  readonly rv: number;
  readonly time: number;
  readonly origin: WriteOrigin;
  /** Serialized watch lines, filled once per representation by the first watcher that needs them. */
  readonly lines: Map<string, Buffer>;
}

/** A stored entry as the ADDED event an informer's initial list would give (no time: it is not a write). */
export function replayedAdd(resource: string, entry: StoredEntry): StoreEvent {
  return { type: 'ADDED', resource, key: entry.key, object: entry.object, previous: undefined, entry, rv: entry.rv, time: 0, origin: entry.origin, lines: new Map() };
}

export type StorageErrorCode = 'exists' | 'notFound' | 'conflict';

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  readonly currentRv: number | undefined;
  constructor(code: StorageErrorCode, message: string, currentRv?: number) {
    super(message);
    this.name = 'StorageError';
    this.code = code;
    this.currentRv = currentRv;
  }
}

class Bucket {
  readonly entries = new Map<string, StoredEntry>();
  readonly history: EventHistory;
  /** The resourceVersion of the latest write to this resource. */
  lastChange: number;
  #sorted: string[] | undefined;

  constructor(historySize: number, createdAt: number) {
    this.history = new EventHistory(historySize, createdAt);
    this.lastChange = createdAt;
  }

  keysChanged(): void {
    this.#sorted = undefined;
  }

  sortedKeys(): string[] {
    this.#sorted ??= [...this.entries.keys()].sort(compareKeys);
    return this.#sorted;
  }
}

const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** First index whose key is >= `target` in a sorted key array. */
function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface StoreOptions {
  /** Events kept per resource for watch resumption. */
  historySize: number;
  clock: () => number;
}

export type StoreListener = (event: StoreEvent) => void;

export class Store {
  #rv = 0;
  readonly #buckets = new Map<string, Bucket>();
  readonly #listeners = new Set<StoreListener>();
  readonly #resourceListeners = new Map<string, Set<StoreListener>>();
  readonly #uids = new Map<string, { resource: string; key: string }>();
  readonly #options: StoreOptions;

  constructor(options: StoreOptions) {
    this.#options = options;
  }

  get currentRv(): number {
    return this.#rv;
  }

  /** Creates the bucket of a resource (built-in at start, a custom resource when its CRD is established). */
  ensureResource(resource: string): void {
    if (!this.#buckets.has(resource)) this.#buckets.set(resource, new Bucket(this.#options.historySize, this.#rv));
  }

  /** Drops a resource and its objects silently (a CRD whose instances were all deleted goes away). */
  dropResource(resource: string): void {
    const bucket = this.#buckets.get(resource);
    if (!bucket) return;
    for (const entry of bucket.entries.values()) {
      const uid = entry.object.metadata.uid;
      if (uid) this.#uids.delete(uid);
    }
    this.#buckets.delete(resource);
  }

  hasResource(resource: string): boolean {
    return this.#buckets.has(resource);
  }

  #bucket(resource: string): Bucket {
    const bucket = this.#buckets.get(resource);
    if (!bucket) throw new Error(`storage for ${resource} is not initialized`);
    return bucket;
  }

  get(resource: string, key: string): StoredEntry | undefined {
    return this.#bucket(resource).entries.get(key);
  }

  /** Entries in key order; `prefix` narrows to one namespace (`ns/`). */
  list(resource: string, prefix?: string): StoredEntry[] {
    const bucket = this.#bucket(resource);
    const keys = bucket.sortedKeys();
    const out: StoredEntry[] = [];
    let i = prefix ? lowerBound(keys, prefix) : 0;
    for (; i < keys.length; i++) {
      const key = keys[i] as string;
      if (prefix && !key.startsWith(prefix)) break;
      out.push(bucket.entries.get(key) as StoredEntry);
    }
    return out;
  }

  count(resource: string): number {
    return this.#bucket(resource).entries.size;
  }

  lastChange(resource: string): number {
    return this.#bucket(resource).lastChange;
  }

  /** The oldest resourceVersion a watch of this resource may resume from. */
  watchHorizon(resource: string): number {
    return this.#bucket(resource).history.horizon;
  }

  /** Events of a resource after `rv`, or undefined when they are no longer kept. */
  eventsSince(resource: string, rv: number): StoreEvent[] | undefined {
    return this.#bucket(resource).history.since(rv);
  }

  /** Where an object with this uid lives, if it exists. */
  locateUid(uid: string): { resource: string; key: string } | undefined {
    return this.#uids.get(uid);
  }

  /** Every write of every resource, in resourceVersion order. */
  subscribe(listener: StoreListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The writes of one resource (watchers register here, so a write only reaches its own watchers). */
  subscribeResource(resource: string, listener: StoreListener): () => void {
    let set = this.#resourceListeners.get(resource);
    if (!set) {
      set = new Set();
      this.#resourceListeners.set(resource, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#resourceListeners.get(resource) === set) this.#resourceListeners.delete(resource);
    };
  }

  create(resource: string, key: string, object: KubeObject, origin: WriteOrigin): StoredEntry {
    const bucket = this.#bucket(resource);
    if (bucket.entries.has(key)) throw new StorageError('exists', `${resource} ${key} already exists`);
    const rv = ++this.#rv;
    object.metadata.resourceVersion = String(rv);
    const entry: StoredEntry = { key, object, rv, origin, json: undefined };
    bucket.entries.set(key, entry);
    bucket.keysChanged();
    if (object.metadata.uid) this.#uids.set(object.metadata.uid, { resource, key });
    this.#emit(bucket, 'ADDED', resource, key, object, undefined, rv, entry, origin);
    return entry;
  }

  /** The stored entry a write replaces, which must exist (and be at `expectedRv` when given). */
  #stored(bucket: Bucket, resource: string, key: string, expectedRv: number | undefined): StoredEntry {
    const current = bucket.entries.get(key);
    if (!current) throw new StorageError('notFound', `${resource} ${key} not found`);
    if (expectedRv !== undefined && expectedRv !== current.rv) {
      throw new StorageError('conflict', `${resource} ${key} changed`, current.rv);
    }
    return current;
  }

  /** Replaces an object; `expectedRv` makes it conditional on the stored version. */
  update(resource: string, key: string, object: KubeObject, origin: WriteOrigin, expectedRv?: number): StoredEntry {
    const bucket = this.#bucket(resource);
    const current = this.#stored(bucket, resource, key, expectedRv);
    const rv = ++this.#rv;
    object.metadata.resourceVersion = String(rv);
    const entry: StoredEntry = { key, object, rv, origin, json: undefined };
    bucket.entries.set(key, entry);
    this.#emit(bucket, 'MODIFIED', resource, key, object, current.object, rv, entry, origin);
    return entry;
  }

  /** Removes an object; the DELETED event shows its last state with a new resourceVersion. */
  delete(resource: string, key: string, origin: WriteOrigin, expectedRv?: number): KubeObject {
    const bucket = this.#bucket(resource);
    const current = this.#stored(bucket, resource, key, expectedRv);
    const rv = ++this.#rv;
    bucket.entries.delete(key);
    bucket.keysChanged();
    const uid = current.object.metadata.uid;
    if (uid) this.#uids.delete(uid);
    const gone: KubeObject = { ...current.object, metadata: { ...current.object.metadata, resourceVersion: String(rv) } };
    this.#emit(bucket, 'DELETED', resource, key, gone, current.object, rv, undefined, origin);
    return gone;
  }

  #emit(
    bucket: Bucket,
    type: StoreEventType,
    resource: string,
    key: string,
    object: KubeObject,
    previous: KubeObject | undefined,
    rv: number,
    entry: StoredEntry | undefined,
    origin: WriteOrigin,
  ): void {
    const event: StoreEvent = { type, resource, key, object, previous, entry, rv, time: this.#options.clock(), origin, lines: new Map() };
    bucket.lastChange = rv;
    bucket.history.push(event);
    const forResource = this.#resourceListeners.get(resource);
    if (forResource) for (const listener of forResource) listener(event);
    for (const listener of this.#listeners) listener(event);
  }
}
