// An append-only, read-only record of every stored write and who made it, for tests that check
// invariants over everything that happened (e.g. "no pod was ever Ready before its gate was True") or
// count a controller's writes. Opt-in and bounded: the oldest records are dropped past the capacity.

import type { KubeObject } from '../meta/object.ts';
import type { Store, StoreEventType, WriteOrigin } from './store.ts';

/** A stored write and its writer (the WriteOrigin: user, groups, userAgent, manager, verb, subresource). */
export interface WriteRecord extends WriteOrigin {
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

/** Which records to read; every field given must match. */
export interface WriteFilter {
  /** Storage resource key: the plural, then `.group` for other groups than core (`deployments.apps`). */
  resource?: string;
  namespace?: string;
  name?: string;
  type?: StoreEventType;
  user?: string;
  manager?: string;
  verb?: string;
  /** A subresource (`status`), or `''` for writes to the object itself. */
  subresource?: string;
  /** Only writes after this resourceVersion (read `sandbox.resourceVersion` before the step under test). */
  after?: number;
}

export interface WriteLog {
  /** Records in write order: all, those of one resource (a storage key), or those a filter selects. */
  records(filter?: string | WriteFilter): readonly WriteRecord[];
  /** How many records were dropped because the capacity was reached. */
  readonly dropped: number;
}

const filterFields = ['resource', 'namespace', 'name', 'type', 'user', 'manager', 'verb', 'subresource', 'after'];

/** A field the filter does not know would select everything unnoticed (a typo, or JavaScript without types). */
function checkFilter(filter: WriteFilter): void {
  for (const field of Object.keys(filter)) {
    if (!filterFields.includes(field)) throw new Error(`unknown write log filter field "${field}"; known: ${filterFields.join(', ')}`);
  }
}

function matches(record: WriteRecord, filter: WriteFilter): boolean {
  return (
    (filter.resource === undefined || record.resource === filter.resource) &&
    (filter.namespace === undefined || record.namespace === filter.namespace) &&
    (filter.name === undefined || record.name === filter.name) &&
    (filter.type === undefined || record.type === filter.type) &&
    (filter.user === undefined || record.user === filter.user) &&
    (filter.manager === undefined || record.manager === filter.manager) &&
    (filter.verb === undefined || record.verb === filter.verb) &&
    (filter.subresource === undefined || (record.subresource ?? '') === filter.subresource) &&
    (filter.after === undefined || record.resourceVersion > filter.after)
  );
}

export function recordWrites(store: Store, capacity: number): WriteLog & { stop(): void } {
  const records: WriteRecord[] = [];
  let dropped = 0;
  const stop = store.subscribe((event) => {
    records.push({
      ...event.origin,
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
    records: (filter) => {
      if (filter === undefined) return records.slice();
      const wanted = typeof filter === 'string' ? { resource: filter } : filter;
      checkFilter(wanted);
      return records.filter((r) => matches(r, wanted));
    },
    get dropped() {
      return dropped;
    },
    stop,
  };
}
