// ControllerExpectations: after a controller asks for N creations or deletions it waits until it has
// observed them (from the store's change stream) before it computes the next batch, so a sync never
// acts on a state that misses its own writes. An expectation older than 5 minutes counts as met.

import type { Clock } from '../../meta/time.ts';

const expectationsTimeoutMs = 5 * 60_000;

interface Expectation {
  add: number;
  del: number;
  at: number;
}

export class Expectations {
  readonly #entries = new Map<string, Expectation>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Replaces the expectations of `key` (SetExpectations). */
  expect(key: string, creations: number, deletions: number): void {
    this.#entries.set(key, { add: creations, del: deletions, at: this.#clock() });
  }

  /** Lowers the outstanding counts, e.g. for creations that were skipped or failed. */
  lower(key: string, creations: number, deletions: number): void {
    const entry = this.#entries.get(key);
    if (entry) {
      entry.add -= creations;
      entry.del -= deletions;
    }
  }

  creationObserved(key: string): void {
    this.lower(key, 1, 0);
  }

  deletionObserved(key: string): void {
    this.lower(key, 0, 1);
  }

  satisfied(key: string): boolean {
    const entry = this.#entries.get(key);
    if (!entry) return true;
    return (entry.add <= 0 && entry.del <= 0) || this.#clock() - entry.at > expectationsTimeoutMs;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
