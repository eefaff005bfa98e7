// Kubernetes Events (core/v1), recorded as client-go's recorder does: never blocking the caller, the same
// event on the same object within ten minutes folded into one with a growing count, and a per-object
// token bucket so a hot loop cannot flood the API server.

import { randomBytes } from 'node:crypto';
import { rfc3339 } from '../api/kube.ts';
import { systemClock, type Clock } from './clock.ts';
import { isNotFound, type KubeClient, type KubeObject } from './client.ts';
import { silentLogger, type Logger } from './log.ts';
import { EVENTS } from './resources.ts';

export interface InvolvedObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; [field: string]: unknown };
}

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  client: KubeClient;
  /** `source.component` and `reportingComponent`, e.g. `podops`. */
  component: string;
  /** `reportingInstance`, e.g. the pod name. */
  instance?: string;
  clock?: Clock;
  logger?: Logger;
  /** Events waiting to be written; beyond this new events are dropped (and logged). Default 1000. */
  maxPending?: number;
}

interface Folded {
  name: string;
  namespace: string;
  count: number;
  lastSeen: number;
}

const FOLD_WINDOW_MS = 10 * 60 * 1000;
const SPAM_BURST = 25;
const SPAM_REFILL_MS = 5 * 60 * 1000;
/** client-go's defaultAggregateMaxEvents: different messages of one reason on one object before they are combined. */
const AGGREGATE_MAX_MESSAGES = 10;
const COMBINED_PREFIX = '(combined from similar events): ';

export class EventRecorder {
  readonly #options: EventRecorderOptions;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #folded = new Map<string, Folded>();
  /** Per object, type and reason: the messages seen within the window (client-go's EventAggregator). */
  readonly #similar = new Map<string, { messages: Set<string>; since: number }>();
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  #pending = 0;
  #tail: Promise<void> = Promise.resolve();

  constructor(options: EventRecorderOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#log = (options.logger ?? silentLogger()).child({ component: 'events' });
  }

  /** Records an event about `object`; returns at once. */
  event(object: InvolvedObject, type: EventType, reason: string, message: string): void {
    const { uid, name, namespace } = object.metadata;
    const objectKey = uid ?? `${object.kind}/${namespace}/${name}`;
    if (!this.#allow(objectKey)) return;
    if (this.#pending >= (this.#options.maxPending ?? 1000)) {
      this.#log.warn({ reason, object: `${namespace}/${name}` }, 'dropping event: too many pending');
      return;
    }
    this.#pending++;
    this.#tail = this.#tail
      .then(() => this.#write(object, type, reason, message, objectKey))
      .catch((err: unknown) => this.#log.warn({ err, reason }, 'could not record event'))
      .finally(() => this.#pending--);
  }

  /** Resolves once every event recorded so far is written (or failed). */
  flush(): Promise<void> {
    return this.#tail;
  }

  #allow(objectKey: string): boolean {
    const now = this.#clock.now();
    const bucket = this.#buckets.get(objectKey) ?? { tokens: SPAM_BURST, at: now };
    bucket.tokens = Math.min(SPAM_BURST, bucket.tokens + (now - bucket.at) / SPAM_REFILL_MS);
    bucket.at = now;
    this.#buckets.set(objectKey, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  async #write(object: InvolvedObject, type: EventType, reason: string, message: string, objectKey: string): Promise<void> {
    const { client, component, instance } = this.#options;
    const now = this.#clock.now();
    const namespace = object.metadata.namespace || 'default';
    const combined = this.#combined(`${objectKey}\u0000${type}\u0000${reason}`, message, now);
    const shown = combined ? `${COMBINED_PREFIX}${message}` : message;
    // A combined event is one per object and reason, whatever its latest message.
    const foldKey = `${objectKey}\u0000${type}\u0000${reason}\u0000${combined ? COMBINED_PREFIX : message}`;
    const folded = this.#folded.get(foldKey);
    if (folded && now - folded.lastSeen < FOLD_WINDOW_MS) {
      folded.count++;
      folded.lastSeen = now;
      try {
        await client.patch(EVENTS, folded.namespace, folded.name, 'merge', { count: folded.count, lastTimestamp: rfc3339(now), ...(combined && { message: shown }) });
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const name = `${object.metadata.name ?? 'object'}.${randomBytes(8).toString('hex')}`;
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        name: object.metadata.name,
        namespace: object.metadata.namespace,
        uid: object.metadata.uid,
        resourceVersion: object.metadata.resourceVersion,
      },
      type,
      reason,
      message: shown,
      source: { component },
      reportingComponent: component,
      reportingInstance: instance ?? '',
      firstTimestamp: rfc3339(now),
      lastTimestamp: rfc3339(now),
      count: 1,
    };
    await client.create(EVENTS, event);
    this.#folded.set(foldKey, { name, namespace, count: 1, lastSeen: now });
    if (this.#folded.size > 4096) this.#forgetOldest(now);
  }

  /** Whether this message joins the combined event of its object and reason: ten others came within the window. */
  #combined(key: string, message: string, now: number): boolean {
    let similar = this.#similar.get(key);
    if (!similar || now - similar.since >= FOLD_WINDOW_MS) this.#similar.set(key, (similar = { messages: new Set(), since: now }));
    if (similar.messages.has(message)) return false;
    if (similar.messages.size >= AGGREGATE_MAX_MESSAGES) return true;
    similar.messages.add(message);
    return false;
  }

  #forgetOldest(now: number): void {
    for (const [key, folded] of this.#folded) if (now - folded.lastSeen >= FOLD_WINDOW_MS) this.#folded.delete(key);
    while (this.#folded.size > 4096) this.#folded.delete(this.#folded.keys().next().value as string);
    for (const [key, similar] of this.#similar) if (now - similar.since >= FOLD_WINDOW_MS) this.#similar.delete(key);
    while (this.#similar.size > 4096) this.#similar.delete(this.#similar.keys().next().value as string);
  }
}
