// An append-only, read-only record of every stored write, for end-to-end tests that check
// invariants over everything that happened (e.g. "no pod was ever Ready before its gate was True").
// Opt-in and bounded: the oldest records are dropped past the capacity.

import type { KubeObject } from '../meta/object.ts';
import type { Store, StoreEventType } from './store.ts';

export interface WriteRecord {
  /** Storage resource key, e.g. `pods`, `deployments.apps`, `widgets.example.com`. */
  readonly resource: string;
  readonly type: StoreEventType;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly resourceVersion: number;
  /** Milliseconds since the epoch, from the sandbox clock. */
  readonly time: number;
  /** The object as stored by this write (for DELETED: its last state). Do not modify. */
  readonly object: Readonly<KubeObject>;
}

export interface WriteLog {
  /** Records in write order, optionally of one resource only. */
  records(resource?: string): readonly WriteRecord[];
  /** How many records were dropped because the capacity was reached. */
  readonly dropped: number;
}

export function recordWrites(store: Store, capacity: number): WriteLog & { stop(): void } {
  const records: WriteRecord[] = [];
  let dropped = 0;
  const stop = store.subscribe((event) => {
    records.push({
      resource: event.resource,
      type: event.type,
      namespace: event.object.metadata.namespace,
      name: event.object.metadata.name ?? '',
      resourceVersion: event.rv,
      time: event.time,
      object: event.object,
    });
    if (records.length > capacity) {
      // Drop in chunks so appends stay amortized O(1).
      const excess = Math.max(records.length - capacity, Math.ceil(capacity / 10));
      records.splice(0, excess);
      dropped += excess;
    }
  });
  return {
    records: (resource) => (resource ? records.filter((r) => r.resource === resource) : records.slice()),
    get dropped() {
      return dropped;
    },
    stop,
  };
}
