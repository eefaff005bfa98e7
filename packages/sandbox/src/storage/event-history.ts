// The bounded per-resource event history of the watch cache: a ring of the latest events, from
// which a watch resumes. Once an event falls out, resuming at or before its predecessor is "too
// old" (410 Expired), exactly as the real watch cache answers.

import type { StoreEvent } from './store.ts';

export class EventHistory {
  readonly #ring: (StoreEvent | undefined)[];
  #start = 0;
  #size = 0;
  /** The oldest resourceVersion a watch may resume from. */
  #horizon: number;

  constructor(capacity: number, createdAt: number) {
    this.#ring = new Array<StoreEvent | undefined>(Math.max(1, capacity));
    this.#horizon = createdAt;
  }

  get horizon(): number {
    return this.#horizon;
  }

  push(event: StoreEvent): void {
    const capacity = this.#ring.length;
    if (this.#size === capacity) {
      const evicted = this.#ring[this.#start];
      if (evicted) this.#horizon = evicted.rv;
      this.#ring[this.#start] = event;
      this.#start = (this.#start + 1) % capacity;
    } else {
      this.#ring[(this.#start + this.#size) % capacity] = event;
      this.#size++;
    }
  }

  /** Events after `rv` in order, or undefined when the history no longer reaches back that far. */
  since(rv: number): StoreEvent[] | undefined {
    if (rv < this.#horizon) return undefined;
    const capacity = this.#ring.length;
    const at = (i: number): StoreEvent => this.#ring[(this.#start + i) % capacity] as StoreEvent;
    let lo = 0;
    let hi = this.#size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (at(mid).rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    const out: StoreEvent[] = [];
    for (let i = lo; i < this.#size; i++) out.push(at(i));
    return out;
  }
}
