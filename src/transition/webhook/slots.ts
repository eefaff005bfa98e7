// Bounded concurrency for requests to rule servers: at most `limit` in flight, the rest wait their turn in
// arrival order. Every request has its own deadline, so a hanging server holds a slot only until then.

export class Slots {
  readonly #limit: number;
  readonly #waiting: ((granted: boolean) => void)[] = [];
  #running = 0;
  #closed = false;

  constructor(limit: number, what: string) {
    if (!(limit >= 1)) throw new Error(`${what} must be at least 1, got ${limit}`);
    this.#limit = limit;
  }

  /** Resolves true with a slot (to release), or false once closed. */
  acquire(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    if (this.#running < this.#limit) {
      this.#running++;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((grant) => this.#waiting.push(grant));
  }

  /** Hands the slot to the longest waiter, or frees it. */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next(true);
    else this.#running--;
  }

  /** Refuses every waiter and every later request. */
  close(): void {
    this.#closed = true;
    for (const grant of this.#waiting.splice(0)) grant(false);
  }
}
