// A work queue with client-go's semantics: keys, not objects; a key added while queued is queued once; a
// key added while being processed is queued again only when processing is done, so no two workers ever
// hold the same key; delayed adds keep the earliest time; rate-limited adds back off per key.

import { systemClock, type Clock } from './clock.ts';
import { MinHeap } from './min-heap.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

/** What the queue reports, for metrics (controller-runtime's workqueue_* series). */
export interface WorkQueueObserver {
  added(): void;
  depth(n: number): void;
  /** A key left the queue for a worker after waiting `waitedMs`. */
  started(waitedMs: number): void;
  /** A worker finished a key after `workedMs`. */
  finished(workedMs: number): void;
  retried(): void;
}

export interface WorkQueueOptions {
  clock?: Clock;
  rateLimiter?: RateLimiter;
  observer?: WorkQueueObserver;
}

/** A FIFO with O(1) push and shift. */
class Fifo {
  #items: string[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: string): void {
    this.#items.push(item);
  }

  shift(): string | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head++];
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}

export class WorkQueue {
  readonly #clock: Clock;
  readonly #rateLimiter: RateLimiter;
  readonly #observer: WorkQueueObserver | undefined;
  readonly #queue = new Fifo();
  /** Keys that need processing (queued, or re-added while processing). Value: when first added. */
  readonly #dirty = new Map<string, number>();
  /** Keys held by a worker. Value: when the worker took it. */
  readonly #processing = new Map<string, number>();
  /** Delayed keys: the current ready time per key, and a heap that may hold stale entries (skipped on pop). */
  readonly #waiting = new Map<string, number>();
  readonly #waitingHeap = new MinHeap<string>();
  #waitTimer: { at: number; cancel: () => void } | undefined;
  readonly #getters: ((item: string | undefined) => void)[] = [];
  #shuttingDown = false;
  #drained: (() => void) | undefined;

  constructor(options: WorkQueueOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter(this.#clock);
    this.#observer = options.observer;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Keys waiting for a worker. */
  len(): number {
    return this.#queue.length;
  }

  add(item: string): void {
    if (this.#shuttingDown || this.#dirty.has(item)) return;
    this.#observer?.added();
    this.#dirty.set(item, this.#clock.now());
    if (this.#processing.has(item)) return;
    this.#enqueue(item);
  }

  #enqueue(item: string): void {
    const getter = this.#getters.shift();
    if (getter) {
      this.#take(item);
      getter(item);
      return;
    }
    this.#queue.push(item);
    this.#observer?.depth(this.#queue.length);
  }

  #take(item: string): void {
    const now = this.#clock.now();
    this.#observer?.started(now - (this.#dirty.get(item) ?? now));
    this.#dirty.delete(item);
    this.#processing.set(item, now);
  }

  /** The next key, waiting for one if needed; undefined once the queue is shut down and empty. */
  get(): Promise<string | undefined> {
    const item = this.#queue.shift();
    if (item !== undefined) {
      this.#observer?.depth(this.#queue.length);
      this.#take(item);
      return Promise.resolve(item);
    }
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Marks the key processed; if it was added meanwhile, it is queued again now. */
  done(item: string): void {
    const started = this.#processing.get(item);
    if (started === undefined) return;
    this.#processing.delete(item);
    this.#observer?.finished(this.#clock.now() - started);
    if (this.#dirty.has(item) && !this.#shuttingDown) this.#enqueue(item);
    if (this.#processing.size === 0) this.#drained?.();
  }

  /** Adds the key after `delayMs`; a key already waiting keeps the earlier of the two times. */
  addAfter(item: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) return this.add(item);
    const readyAt = this.#clock.now() + delayMs;
    const existing = this.#waiting.get(item);
    if (existing !== undefined && existing <= readyAt) return;
    this.#waiting.set(item, readyAt);
    this.#waitingHeap.push(item, readyAt);
    this.#scheduleWaiting();
  }

  addRateLimited(item: string): void {
    this.#observer?.retried();
    this.addAfter(item, this.#rateLimiter.when(item));
  }

  /** The key succeeded: its backoff starts over. */
  forget(item: string): void {
    this.#rateLimiter.forget(item);
  }

  numRequeues(item: string): number {
    return this.#rateLimiter.numRequeues(item);
  }

  /** Seconds of work in progress, and the longest single one (controller-runtime's unfinished-work gauges). */
  unfinishedWork(): { totalSeconds: number; longestSeconds: number } {
    const now = this.#clock.now();
    let total = 0;
    let longest = 0;
    for (const started of this.#processing.values()) {
      const seconds = (now - started) / 1000;
      total += seconds;
      longest = Math.max(longest, seconds);
    }
    return { totalSeconds: total, longestSeconds: longest };
  }

  /** The earliest live entry of the heap, dropping stale ones. */
  #nextWaiting(): { value: string; priority: number } | undefined {
    for (let top = this.#waitingHeap.peek(); top; top = this.#waitingHeap.peek()) {
      if (this.#waiting.get(top.value) === top.priority) return top;
      this.#waitingHeap.pop();
    }
    return undefined;
  }

  #scheduleWaiting(): void {
    const next = this.#nextWaiting();
    if (!next) return;
    if (this.#waitTimer && this.#waitTimer.at <= next.priority) return;
    this.#waitTimer?.cancel();
    const at = next.priority;
    this.#waitTimer = { at, cancel: this.#clock.setTimer(() => this.#releaseWaiting(), at - this.#clock.now()) };
  }

  #releaseWaiting(): void {
    this.#waitTimer = undefined;
    const now = this.#clock.now();
    for (let next = this.#nextWaiting(); next && next.priority <= now; next = this.#nextWaiting()) {
      this.#waitingHeap.pop();
      this.#waiting.delete(next.value);
      this.add(next.value);
    }
    this.#scheduleWaiting();
  }

  /** Stops accepting keys; waiting getters receive undefined; keys being processed may still finish. */
  shutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    this.#waitTimer?.cancel();
    this.#waitTimer = undefined;
    this.#waiting.clear();
    this.#waitingHeap.clear();
    for (const getter of this.#getters.splice(0)) getter(undefined);
  }

  /** Shuts down and resolves once every key being processed is done. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => (this.#drained = resolve));
  }
}
