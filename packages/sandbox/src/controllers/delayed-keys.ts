// A delaying queue's AddAfter for the in-process controllers: a key is handed to `add` after a delay,
// and a key already waiting keeps the earlier of its two times (client-go's semantics, which the Job
// controller's batching relies on: many pod events within a period make one sync).

/** setTimeout's longest delay; a longer wait is taken in steps (the key is checked again each time). */
export const maxTimerDelayMs = 2 ** 31 - 1;

export class DelayedKeys {
  readonly #timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  readonly #add: (key: string) => void;
  constructor(add: (key: string) => void) {
    this.#add = add;
  }
  addAfter(key: string, ms: number): void {
    if (ms <= 0) {
      this.#add(key);
      return;
    }
    const at = Date.now() + ms;
    const waiting = this.#timers.get(key);
    if (waiting && waiting.at <= at) return;
    if (waiting) clearTimeout(waiting.timer);
    const timer = setTimeout(
      () => {
        this.#timers.delete(key);
        this.#add(key);
      },
      Math.min(ms, maxTimerDelayMs),
    );
    timer.unref();
    this.#timers.set(key, { at, timer });
  }
  stop(): void {
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
