// UIDTrackingControllerExpectations: deletions are expected by pod key, so a pod whose deletion is seen
// twice (marked with a deletionTimestamp, then removed) is counted once, and a deletion of a pod the
// controller did not ask to delete counts for nothing.

import type { Clock } from '../../meta/time.ts';
import { Expectations } from './expectations.ts';

export class UidTrackingExpectations {
  readonly #counts: Expectations;
  readonly #pendingDeletions = new Map<string, Set<string>>();

  constructor(clock: Clock) {
    this.#counts = new Expectations(clock);
  }

  expectCreations(key: string, count: number): void {
    this.#counts.expect(key, count, 0);
  }

  creationObserved(key: string): void {
    this.#counts.creationObserved(key);
  }

  /** Creations that were never attempted (a batch stopped early) are not waited for. */
  creationsSkipped(key: string, count: number): void {
    this.#counts.lower(key, count, 0);
  }

  expectDeletions(key: string, podKeys: readonly string[]): void {
    this.#pendingDeletions.set(key, new Set(podKeys));
    this.#counts.expect(key, 0, podKeys.length);
  }

  /** A deletion seen (or given up on); only the first sighting of an expected pod counts. */
  deletionObserved(key: string, podKey: string): void {
    if (this.#pendingDeletions.get(key)?.delete(podKey)) this.#counts.deletionObserved(key);
  }

  satisfied(key: string): boolean {
    return this.#counts.satisfied(key);
  }

  delete(key: string): void {
    this.#counts.delete(key);
    this.#pendingDeletions.delete(key);
  }
}
