// The informer index the workload controllers list their dependents with (controller.FilterPodsByOwner):
// the objects of one resource keyed by their controller's uid, and per namespace the orphans (no
// controller reference), kept up to date from the store's change stream.

import type { KubeObject } from '../../meta/object.ts';
import type { StoreEvent } from '../../storage/store.ts';
import { controllerRefOf } from './controller-ref.ts';

export class ControllerIndex {
  readonly resource: string;
  readonly #byController = new Map<string, Set<string>>();
  readonly #orphans = new Map<string, Set<string>>();
  /** store key → the index entry it is filed under. */
  readonly #filed = new Map<string, { map: Map<string, Set<string>>; slot: string }>();

  /** `resource` is the storage key, e.g. `pods` or `replicasets.apps`. */
  constructor(resource: string) {
    this.resource = resource;
  }

  /** Files an object after a change (call for every event of the resource). */
  observe(event: StoreEvent): void {
    if (event.resource !== this.resource) return;
    this.#unfile(event.key);
    if (event.type !== 'DELETED') this.#file(event.key, event.object);
  }

  /** Store keys of the objects whose controller reference names `uid`. */
  controlledBy(uid: string): ReadonlySet<string> {
    return this.#byController.get(uid) ?? new Set();
  }

  /** Store keys of the objects of a namespace without a controller. */
  orphansIn(namespace: string): ReadonlySet<string> {
    return this.#orphans.get(namespace) ?? new Set();
  }

  #file(key: string, object: KubeObject): void {
    const ref = controllerRefOf(object);
    const map = ref ? this.#byController : this.#orphans;
    const slot = ref ? ref.uid : (object.metadata.namespace ?? '');
    let keys = map.get(slot);
    if (!keys) map.set(slot, (keys = new Set()));
    keys.add(key);
    this.#filed.set(key, { map, slot });
  }

  #unfile(key: string): void {
    const filed = this.#filed.get(key);
    if (!filed) return;
    const keys = filed.map.get(filed.slot);
    keys?.delete(key);
    if (keys?.size === 0) filed.map.delete(filed.slot);
    this.#filed.delete(key);
  }
}
