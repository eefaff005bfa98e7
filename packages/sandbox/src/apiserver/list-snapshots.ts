// Consistent paging. The real server serves every page of a paginated list at the first page's
// resourceVersion (etcd MVCC) until etcd compacts it. Here a paginated list keeps the first page's
// sorted entries (references to immutable stored objects, so it is cheap); a snapshot expires
// after `ttlMs` or when more than `capacity` are kept, which plays the part of compaction.

import type { StoredEntry } from '../storage/store.ts';

interface Snapshot {
  readonly entries: readonly StoredEntry[];
  readonly createdAt: number;
}

export class ListSnapshots {
  readonly #snapshots = new Map<string, Snapshot>();
  readonly #capacity: number;
  readonly #ttlMs: number;
  readonly #clock: () => number;

  constructor(capacity: number, ttlMs: number, clock: () => number) {
    this.#capacity = capacity;
    this.#ttlMs = ttlMs;
    this.#clock = clock;
  }

  save(storageKey: string, rv: number, entries: readonly StoredEntry[]): void {
    const key = `${storageKey}@${rv}`;
    this.#snapshots.delete(key);
    this.#snapshots.set(key, { entries, createdAt: this.#clock() });
    while (this.#snapshots.size > this.#capacity) {
      const oldest = this.#snapshots.keys().next().value as string;
      this.#snapshots.delete(oldest);
    }
  }

  get(storageKey: string, rv: number): readonly StoredEntry[] | undefined {
    const key = `${storageKey}@${rv}`;
    const snapshot = this.#snapshots.get(key);
    if (!snapshot) return undefined;
    if (this.#clock() - snapshot.createdAt > this.#ttlMs) {
      this.#snapshots.delete(key);
      return undefined;
    }
    return snapshot.entries;
  }

  /** Forgets every snapshot, as an etcd compaction would (tests use it to provoke 410 on continue). */
  compact(): void {
    this.#snapshots.clear();
  }
}
