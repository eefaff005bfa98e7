// An informer's event side without an API server: the test puts, changes and removes objects, and each change
// reaches the handlers as the real Informer delivers it (an add, an update with the previous object, a delete;
// the cached objects replayed as adds to a handler added later).

import type { ObjectWithMeta } from '../../src/kube/client.ts';
import { keyOf, objectKey } from '../../src/kube/controller.ts';
import type { Informer, InformerHandler } from '../../src/kube/informer.ts';

export class FakeInformer<T extends ObjectWithMeta> {
  readonly #store = new Map<string, T>();
  readonly #handlers = new Set<InformerHandler<T>>();
  readonly #indexers = new Map<string, (object: T) => string[]>();

  /** This one, typed as the real one for the code under test (which may call only what is defined here). */
  get informer(): Informer<T> {
    return this as unknown as Informer<T>;
  }

  get handlerCount(): number {
    return this.#handlers.size;
  }

  addHandler(handler: InformerHandler<T>): () => void {
    this.#handlers.add(handler);
    for (const object of this.#store.values()) handler.onAdd?.(object);
    return () => this.#handlers.delete(handler);
  }

  waitForSync(): Promise<void> {
    return Promise.resolve();
  }

  hasSynced(): boolean {
    return true;
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.#store.get(keyOf(namespace, name));
  }

  addIndexer(name: string, indexer: (object: T) => string[]): void {
    this.#indexers.set(name, indexer);
  }

  byIndex(name: string, value: string): T[] {
    const indexer = this.#indexers.get(name);
    if (!indexer) throw new Error(`no index named "${name}"`);
    return [...this.#store.values()].filter((object) => indexer(object).includes(value));
  }

  list(namespace?: string): T[] {
    return [...this.#store.values()].filter((object) => namespace === undefined || object.metadata.namespace === namespace);
  }

  /** An add, or an update of the object cached under the same key. */
  put(object: T): void {
    const key = objectKey(object);
    const previous = this.#store.get(key);
    this.#store.set(key, object);
    for (const handler of this.#handlers) {
      if (previous) handler.onUpdate?.(previous, object);
      else handler.onAdd?.(object);
    }
  }

  /** As Informer.assume: a write of the code under test, read back at once; handlers are not told. */
  assume(object: T): void {
    const key = objectKey(object);
    if (this.#store.has(key)) this.#store.set(key, object);
  }

  remove(object: T): void {
    const key = objectKey(object);
    const previous = this.#store.get(key);
    if (!previous) return;
    this.#store.delete(key);
    for (const handler of this.#handlers) handler.onDelete?.(previous);
  }
}
