// client-go's workqueue rate limiters: how long an item waits before it is retried.

import type { Clock } from './clock.ts';

export interface RateLimiter {
  /** The delay before `item` may be processed again; each call counts as one more failure. */
  when(item: string): number;
  /** Stops tracking the item (it succeeded). */
  forget(item: string): void;
  numRequeues(item: string): number;
}

/** baseMs * 2^failures, capped at maxMs, per item (client-go ItemExponentialFailureRateLimiter). */
export class ExponentialFailureRateLimiter implements RateLimiter {
  readonly #failures = new Map<string, number>();
  readonly #baseMs: number;
  readonly #maxMs: number;

  constructor(baseMs = 5, maxMs = 1_000_000) {
    this.#baseMs = baseMs;
    this.#maxMs = maxMs;
  }

  when(item: string): number {
    const failures = this.#failures.get(item) ?? 0;
    this.#failures.set(item, failures + 1);
    return Math.min(this.#baseMs * 2 ** failures, this.#maxMs);
  }

  forget(item: string): void {
    this.#failures.delete(item);
  }

  numRequeues(item: string): number {
    return this.#failures.get(item) ?? 0;
  }
}

/** A token bucket shared by all items (client-go BucketRateLimiter over x/time/rate): reserves one token per call. */
export class BucketRateLimiter implements RateLimiter {
  readonly #clock: Clock;
  readonly #qps: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;

  constructor(clock: Clock, qps = 10, burst = 100) {
    this.#clock = clock;
    this.#qps = qps;
    this.#burst = burst;
    this.#tokens = burst;
    this.#last = clock.now();
  }

  when(): number {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#qps);
    this.#last = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.#qps) * 1000;
  }

  forget(): void {}

  numRequeues(): number {
    return 0;
  }
}

/** The longest delay of several limiters (client-go MaxOfRateLimiter). */
export class MaxOfRateLimiter implements RateLimiter {
  readonly #limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.#limiters = limiters;
  }

  when(item: string): number {
    return Math.max(...this.#limiters.map((l) => l.when(item)));
  }

  forget(item: string): void {
    for (const l of this.#limiters) l.forget(item);
  }

  numRequeues(item: string): number {
    return Math.max(...this.#limiters.map((l) => l.numRequeues(item)));
  }
}

/** client-go's DefaultTypedControllerRateLimiter: per-item 5 ms to 1000 s, overall 10 qps with a burst of 100. */
export const defaultControllerRateLimiter = (clock: Clock): RateLimiter =>
  new MaxOfRateLimiter(new ExponentialFailureRateLimiter(5, 1_000_000), new BucketRateLimiter(clock, 10, 100));
