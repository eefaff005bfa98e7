// core/v1 Events as kube-controller-manager's controllers write them through client-go's legacy
// recorder: named `<object>.<hex nanoseconds>`, `source.component` = `reportingComponent`, and run
// through the EventCorrelator: the spam filter (a token bucket per object and source: burst 25, one
// token per 5 minutes), the aggregator (from the 10th distinct message with one reason on one object
// within 10 minutes, the message becomes "(combined from similar events): …") and the logger
// (a repeat of an identical event patches `count` and `lastTimestamp` of the first one).
// Writes are asynchronous and in order; a failed write is dropped, as the broadcaster drops it.

import type { LocalClient } from '../apiserver/local-client.ts';
import { StatusError } from '../errors.ts';
import type { KubeObject } from '../meta/object.ts';
import { formatTimestamp, type Clock } from '../meta/time.ts';

const events = { group: '', version: 'v1', resource: 'events' };

const maxLruEntries = 4096;
const aggregateWindowMs = 600_000;
const aggregateMaxDistinctMessages = 10;
const spamBurst = 25;
const spamRefillMs = 300_000;

export type EventType = 'Normal' | 'Warning';

interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
}

interface Observation {
  name: string;
  count: number;
  firstTimestamp: string;
}

interface Bucket {
  tokens: number;
  refilledAt: number;
}

/** A Map bounded like client-go's LRU caches: the least recently used entry goes first. */
class Lru<V> {
  readonly #map = new Map<string, V>();
  get(key: string): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > maxLruEntries) this.#map.delete(this.#map.keys().next().value as string);
  }
}

/** GetReference: the object's kind, namespace, name, uid, apiVersion and resourceVersion (empty ones omitted). */
function referenceTo(object: KubeObject): ObjectReference {
  const fields: [keyof ObjectReference, string | undefined][] = [
    ['kind', object.kind],
    ['namespace', object.metadata.namespace],
    ['name', object.metadata.name],
    ['uid', object.metadata.uid],
    ['apiVersion', object.apiVersion],
    ['resourceVersion', object.metadata.resourceVersion],
  ];
  return Object.fromEntries(fields.filter(([, value]) => value)) as ObjectReference;
}

export class EventRecorder {
  readonly #client: LocalClient;
  readonly #component: string;
  readonly #clock: Clock;
  readonly #spam = new Lru<Bucket>();
  readonly #aggregates = new Lru<{ messages: Set<string>; last: number }>();
  readonly #observed = new Lru<Observation>();
  #lastNanos = 0n;
  #writes: Promise<void> = Promise.resolve();

  constructor(client: LocalClient, component: string, clock: Clock) {
    this.#client = client;
    this.#component = component;
    this.#clock = clock;
  }

  normal(object: KubeObject, reason: string, message: string): void {
    this.#record(object, 'Normal', reason, message);
  }

  warning(object: KubeObject, reason: string, message: string): void {
    this.#record(object, 'Warning', reason, message);
  }

  /** A unique, increasing UnixNano for event names (the clock has millisecond resolution). */
  #nanos(now: number): bigint {
    const nanos = BigInt(now) * 1_000_000n;
    this.#lastNanos = nanos > this.#lastNanos ? nanos : this.#lastNanos + 1n;
    return this.#lastNanos;
  }

  #record(object: KubeObject, type: EventType, reason: string, message: string): void {
    const now = this.#clock();
    const ref = referenceTo(object);
    const objectKey = [this.#component, '', ref.kind, ref.namespace, ref.name, ref.uid, ref.apiVersion].map((v) => v ?? '').join('\u0000');

    // EventAggregator: similar events (same object and reason) collapse after 10 distinct messages.
    const aggregateKey = `${objectKey}\u0000${type}\u0000${reason}`;
    let aggregate = this.#aggregates.get(aggregateKey);
    if (!aggregate || now - aggregate.last > aggregateWindowMs) aggregate = { messages: new Set(), last: now };
    aggregate.messages.add(message);
    aggregate.last = now;
    this.#aggregates.set(aggregateKey, aggregate);
    let key = `${aggregateKey}\u0000${message}`;
    let shownMessage = message;
    if (aggregate.messages.size >= aggregateMaxDistinctMessages) {
      aggregate.messages.delete(aggregate.messages.values().next().value as string);
      key = aggregateKey;
      shownMessage = `(combined from similar events): ${message}`;
    }

    // eventLogger: a repeat of an observed event is a patch of its count.
    const previous = this.#observed.get(key);
    const timestamp = formatTimestamp(now);
    const observation: Observation = previous
      ? { name: previous.name, count: previous.count + 1, firstTimestamp: previous.firstTimestamp }
      : { name: `${ref.name ?? ''}.${this.#nanos(now).toString(16)}`, count: 1, firstTimestamp: timestamp };
    this.#observed.set(key, observation);

    // The spam filter drops what exceeds the object's token bucket.
    let bucket = this.#spam.get(objectKey);
    if (!bucket) bucket = { tokens: spamBurst, refilledAt: now };
    const refill = Math.floor((now - bucket.refilledAt) / spamRefillMs);
    if (refill > 0) bucket = { tokens: Math.min(spamBurst, bucket.tokens + refill), refilledAt: bucket.refilledAt + refill * spamRefillMs };
    if (bucket.tokens < 1) {
      this.#spam.set(objectKey, bucket);
      return;
    }
    this.#spam.set(objectKey, { tokens: bucket.tokens - 1, refilledAt: bucket.refilledAt });

    const namespace = ref.namespace ?? 'default';
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: observation.name, namespace },
      involvedObject: ref,
      reason,
      message: shownMessage,
      source: { component: this.#component },
      firstTimestamp: observation.firstTimestamp,
      lastTimestamp: timestamp,
      count: observation.count,
      type,
      eventTime: null,
      reportingComponent: this.#component,
      reportingInstance: '',
    };
    this.#writes = this.#writes.then(() => this.#write(event, observation.count > 1)).catch(() => undefined);
  }

  async #write(event: KubeObject, repeat: boolean): Promise<void> {
    const namespace = event.metadata.namespace;
    if (repeat) {
      const patch = { count: event.count, lastTimestamp: event.lastTimestamp, message: event.message };
      try {
        await this.#client.patch(events, event.metadata.name ?? '', 'strategic', patch, { namespace });
        return;
      } catch (err) {
        // The first event is gone (deleted or never written): record this one afresh.
        if (!(err instanceof StatusError && err.status.code === 404)) throw err;
      }
    }
    await this.#client.create(events, event, { namespace });
  }
}
