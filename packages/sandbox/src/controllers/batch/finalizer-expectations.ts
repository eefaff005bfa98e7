// uidTrackingExpectations of the Job controller: per Job, the pods whose tracking-finalizer removal it
// asked for and has not observed yet; until then those pods are neither counted nor patched again.

export class FinalizerExpectations {
  readonly #uids = new Map<string, Set<string>>();
  expected(key: string): ReadonlySet<string> {
    return this.#uids.get(key) ?? new Set();
  }
  expect(key: string, uids: readonly string[]): void {
    const set = this.#uids.get(key) ?? new Set<string>();
    for (const uid of uids) set.add(uid);
    this.#uids.set(key, set);
  }
  observed(key: string, uid: string): void {
    this.#uids.get(key)?.delete(uid);
  }
  delete(key: string): void {
    this.#uids.delete(key);
  }
}
