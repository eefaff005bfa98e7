// The key queue of the sandbox's in-process controllers: a key queued twice is processed once; a failed
// key is retried after a growing delay, reset once it succeeds; one key is processed at a time. (Not
// podops' rate-limited WorkQueue of src/kube: the sandbox imports nothing from the rest of podops.)

/** The delay before the retry of a key that failed `failures` times in a row. */
export type RetryDelay = (failures: number) => number;

/** The sandbox's own retries: 10 ms doubling, at most a second. */
const quickRetry: RetryDelay = (failures) => Math.min(5 * 2 ** failures, 1000);

/**
 * kube-controller-manager's DefaultControllerRateLimiter, per key: 5 ms doubling with each failure, at most
 * 1000 s (its overall 10 qps bucket aside). A key that keeps failing is retried ever more rarely; only an
 * event about its object brings it back sooner.
 */
export const controllerManagerRetry: RetryDelay = (failures) => Math.min(5 * 2 ** (failures - 1), 1_000_000);

export class SerialKeyQueue {
  readonly #pending = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #process: (key: string) => Promise<void>;
  readonly #onError: (key: string, err: unknown) => void;
  readonly #retryDelay: RetryDelay;
  #running = false;
  #stopped = false;
  #idle: (() => void)[] = [];

  constructor(process: (key: string) => Promise<void>, { onError = () => {}, retryDelay = quickRetry }: { onError?: (key: string, err: unknown) => void; retryDelay?: RetryDelay } = {}) {
    this.#process = process;
    this.#onError = onError;
    this.#retryDelay = retryDelay;
  }

  add(key: string): void {
    if (this.#stopped) return;
    this.#pending.add(key);
    if (!this.#running) {
      this.#running = true;
      setImmediate(() => void this.#drain());
    }
  }

  addAfter(key: string, ms: number): void {
    if (this.#stopped) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.add(key);
    }, ms);
    timer.unref();
    this.#timers.add(timer);
  }

  /** Resolves once nothing is queued or being processed (delayed retries aside). */
  idle(): Promise<void> {
    if (!this.#running) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  stop(): void {
    this.#stopped = true;
    this.#pending.clear();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  async #drain(): Promise<void> {
    while (!this.#stopped && this.#pending.size) {
      const key = this.#pending.values().next().value as string;
      this.#pending.delete(key);
      try {
        await this.#process(key);
        this.#failures.delete(key);
      } catch (err) {
        const failures = (this.#failures.get(key) ?? 0) + 1;
        this.#failures.set(key, failures);
        this.#onError(key, err);
        this.addAfter(key, this.#retryDelay(failures));
      }
    }
    this.#running = false;
    const waiting = this.#idle;
    this.#idle = [];
    for (const resolve of waiting) resolve();
  }
}
