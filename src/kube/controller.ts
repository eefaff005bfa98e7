// The controller harness (controller-runtime's controller): its triggers turn informer events into keys;
// N workers take keys from the queue and call the reconciler, which reads the current state itself
// (level-triggered), with a signal that aborts when the controller stops (the reconciler passes it to every
// request, so a stop cancels the requests in flight). Errors are retried with per-key backoff, all alike: a
// NotFound is the reconciler's to expect at the call that may meet it (unlessNotFound), since the harness
// cannot tell an object gone from a resource not served yet. A TerminalError is not retried. requeueAfter
// schedules the key again; success forgets its backoff. One answer is handled here: Conflict (someone wrote
// first: the watch event of that newer version brings the key back, so it is not requeued; a requeue would
// also spend the queue's shared token bucket, which many kubelet status writes racing podops' writes of their
// pods would empty).

import { isConflict, type ObjectWithMeta } from './client.ts';
import { systemClock, type Clock } from './clock.ts';
import { objectKey, type Informer } from './informer.ts';
import { silentLogger, type Logger } from './log.ts';
import type { RuntimeMetrics } from './metrics.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { WorkQueue } from './workqueue.ts';

export interface Request {
  namespace: string;
  name: string;
}

export interface Result {
  /** Reconcile again after this long (the backoff of the key is forgotten); to retry with backoff, throw. */
  requeueAfterMs?: number;
}

export interface Reconciler {
  reconcile(request: Request, signal: AbortSignal): Promise<Result | void>;
}

/** An error retrying cannot fix: logged and counted, the key is not requeued. */
export class TerminalError extends Error {
  override name = 'TerminalError';
}

// The workqueue's keys are the cache's (defined beside it, which this file builds on), here too for the reconcilers.
export { keyOf, objectKey } from './informer.ts';

export function requestOf(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** Exceptions that mean a bug rather than a failed call: counted as panics, as controller-runtime counts Go panics. */
const isProgrammingError = (err: unknown): boolean =>
  err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError || err instanceof SyntaxError;

/** The keys an object's change concerns; `previous` is given on updates. */
export type KeysOf<T> = (current: T, previous?: T) => Iterable<string>;

/**
 * What enqueues a controller's keys: the events of an informer, each mapped to the keys it concerns
 * (controller-runtime's For, and Watches with a map function). Updates give the map the previous object
 * too, so a change that moves an object out of a selection still reaches the reconciler of what it left.
 */
export interface Trigger {
  /** Calls `enqueue` for every key of every event from now on (the cached objects first, as adds); returns the unsubscribe. */
  subscribe(enqueue: (key: string) => void): () => void;
  waitForSync(signal: AbortSignal): Promise<void>;
}

export function watch<T extends ObjectWithMeta>(informer: Informer<T>, keys: KeysOf<T>): Trigger {
  return {
    subscribe(enqueue) {
      const each = (found: Iterable<string>): void => {
        for (const key of found) enqueue(key);
      };
      return informer.addHandler({ onAdd: (object) => each(keys(object)), onUpdate: (previous, current) => each(keys(current, previous)), onDelete: (object) => each(keys(object)) });
    },
    waitForSync: (signal) => informer.waitForSync(signal),
  };
}

/** The object's own key, for the objects `when` accepts. */
export const forObjects = <T extends ObjectWithMeta>(informer: Informer<T>, when: (object: T) => boolean = () => true): Trigger =>
  watch(informer, (object) => (when(object) ? [objectKey(object)] : []));

export interface ControllerOptions {
  name: string;
  reconciler: Reconciler;
  /** Subscribed when the controller starts: the objects already cached arrive as adds. */
  triggers?: readonly Trigger[];
  /** Concurrent reconciles (controller-runtime's MaxConcurrentReconciles; default 1). */
  workers?: number;
  clock?: Clock;
  rateLimiter?: RateLimiter;
  metrics?: RuntimeMetrics | undefined;
  logger?: Logger | undefined;
}

/** What whoever runs a controller chooses for it: concurrency, metrics and log. */
export type ControllerRuntimeOptions = Pick<ControllerOptions, 'workers' | 'metrics' | 'logger'>;

export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly #reconciler: Reconciler;
  readonly #triggers: readonly Trigger[];
  readonly #workers: number;
  readonly #clock: Clock;
  readonly #metrics: RuntimeMetrics | undefined;
  readonly #log: Logger;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.#reconciler = options.reconciler;
    this.#triggers = options.triggers ?? [];
    this.#workers = options.workers ?? 1;
    this.#clock = options.clock ?? systemClock;
    this.#metrics = options.metrics;
    this.#log = (options.logger ?? silentLogger()).child({ controller: options.name });
    const observer = options.metrics?.queueObserver(options.name, () => this.queue);
    this.queue = new WorkQueue({ clock: this.#clock, ...(options.rateLimiter && { rateLimiter: options.rateLimiter }), ...(observer && { observer }) });
  }

  enqueue(key: string): void {
    this.queue.add(key);
  }

  /**
   * Subscribes the triggers, waits for their caches, runs the workers until `signal` aborts, then waits for
   * the reconciles in flight and returns.
   */
  async run(signal: AbortSignal): Promise<void> {
    this.#metrics?.maxConcurrentReconciles.set({ controller: this.name }, this.#workers);
    const stop = (): void => this.queue.shutDown();
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop, { once: true });
    const unsubscribe = this.#triggers.map((trigger) => trigger.subscribe((key) => this.queue.add(key)));
    try {
      await Promise.all(this.#triggers.map((trigger) => trigger.waitForSync(signal)));
      this.#log.info({ workers: this.#workers }, 'starting workers');
      await Promise.all(Array.from({ length: this.#workers }, () => this.#work(signal)));
      this.#log.info('workers stopped');
    } finally {
      for (const remove of unsubscribe) remove();
    }
  }

  async #work(signal: AbortSignal): Promise<void> {
    for (let key = await this.queue.get(); key !== undefined; key = await this.queue.get()) {
      this.#metrics?.activeWorkers.inc({ controller: this.name });
      try {
        await this.#reconcileKey(key, signal);
      } finally {
        this.#metrics?.activeWorkers.dec({ controller: this.name });
        this.queue.done(key);
      }
    }
  }

  async #reconcileKey(key: string, signal: AbortSignal): Promise<void> {
    const controller = this.name;
    const started = this.#clock.now();
    let outcome: 'success' | 'error' | 'requeue' | 'requeue_after';
    try {
      const result = (await this.#reconciler.reconcile(requestOf(key), signal)) ?? {};
      if (result.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
        this.queue.forget(key);
        this.queue.addAfter(key, result.requeueAfterMs);
        outcome = 'requeue_after';
      } else {
        this.queue.forget(key);
        outcome = 'success';
      }
    } catch (err) {
      outcome = 'error';
      if (signal.aborted) {
        // The stop cancelled its requests: the next leader (or this process, restarted) reconciles it anew.
        this.#log.info({ key, err }, 'reconcile cancelled by the stop');
      } else if (isConflict(err)) {
        // The cache is behind a write of someone else: that write's watch event brings the key back.
        this.queue.forget(key);
        outcome = 'requeue';
        this.#log.debug({ key }, 'conflict; the newer version comes back by its watch event');
      } else if (err instanceof TerminalError) {
        this.#metrics?.terminalReconcileErrors.inc({ controller });
        this.queue.forget(key);
        this.#log.error({ key, err }, 'reconcile failed terminally');
      } else {
        if (isProgrammingError(err)) this.#metrics?.reconcilePanics.inc({ controller });
        this.#metrics?.reconcileErrors.inc({ controller });
        this.queue.addRateLimited(key);
        this.#log.error({ key, err, requeues: this.queue.numRequeues(key) }, 'reconcile failed');
      }
    }
    this.#metrics?.reconcileTotal.inc({ controller, result: outcome });
    this.#metrics?.reconcileTime.observe({ controller }, (this.#clock.now() - started) / 1000);
  }
}
