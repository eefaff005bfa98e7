// An informer's event side without an API server: the test puts, changes and removes objects, and each change
// reaches the handlers as the real Informer delivers it (an add, an update with the previous object, a delete;
// the cached objects replayed as adds to a handler added later).

import type { ObjectWithMeta } from '../../src/kube/client.ts';
import { keyOf, objectKey } from '../../src/kube/controller.ts';
import type { Informer, InformerHandler } from '../../src/kube/informer.ts';

export class FakeInformer<T extends ObjectWithMeta> {
  readonly #store = new Map<string, T>();
  readonly #handlers = new Set<InformerHandler<T>>();

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

  get(namespace: string | undefined, name: string): T | undefined {
    return this.#store.get(keyOf(namespace, name));
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

  remove(object: T): void {
    const key = objectKey(object);
    const previous = this.#store.get(key);
    if (!previous) return;
    this.#store.delete(key);
    for (const handler of this.#handlers) handler.onDelete?.(previous);
  }
}
