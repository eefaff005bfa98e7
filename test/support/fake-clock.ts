// A manual clock: timers fire only when a test advances time.

import type { Clock } from '../../src/kube/clock.ts';

export class FakeClock implements Clock {
  #now: number;
  #timers: { at: number; fn: () => void; seq: number }[] = [];
  #seq = 0;

  constructor(start = 1_700_000_000_000) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(fn: () => void, delayMs: number): () => void {
    const timer = { at: this.#now + Math.max(0, delayMs), fn, seq: this.#seq++ };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }

  /** Moves time forward, firing due timers in order (timers set by timers fire too, if due). */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const due = this.#timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = due.at;
      due.fn();
    }
    this.#now = target;
  }

  pendingTimers(): number {
    return this.#timers.length;
  }
}
