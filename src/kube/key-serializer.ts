// Decisions that read several objects and then act (the pods of one ReplicaSet, the budgets of one namespace,
// the pods of one Deployment) made one at a time per key, while a controller's workers or concurrent webhook
// requests go on with other keys in parallel.

export class KeySerializer {
  /** Per key: the end of the last work queued. */
  readonly #chains = new Map<string, Promise<void>>();

  /** Runs `work` after every earlier work of the same key. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const next = (this.#chains.get(key) ?? Promise.resolve()).then(work);
    const settled = next.then(
      () => {},
      () => {},
    );
    this.#chains.set(key, settled);
    void settled.then(() => this.#chains.get(key) === settled && this.#chains.delete(key));
    return next;
  }
}
