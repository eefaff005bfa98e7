// The apps controllers' addPod/updatePod/deletePod handlers: which owners a pod's change queues. A
// controlled pod wakes its owner (and its old owner when the reference changed), once more after
// minReadySeconds when it became ready; an orphan wakes every owner whose selector may adopt it.

import { jsonEqual, keyOf, type KubeObject } from '../../meta/object.ts';
import type { StoreEvent } from '../../storage/store.ts';
import type { ControllerContext } from '../in-process-controller.ts';
import type { SerialKeyQueue } from '../serial-key-queue.ts';
import { controllerRefOf, ownersSelecting } from './controller-ref.ts';
import { isPodReady } from './pod-state.ts';
import { minReadySecondsOf } from './workload-fields.ts';

export interface PodEventRouting {
  ctx: ControllerContext;
  /** The owners' storage resource (`statefulsets.apps`, `daemonsets.apps`). */
  storage: string;
  queue: SerialKeyQueue;
  /** The owner a controller reference resolves to. */
  ownerOf(object: KubeObject): KubeObject | undefined;
  /** Called with the owner's key when a pod it controls is created or goes away (its expectations). */
  created?(ownerKey: string): void;
  deleted?(ownerKey: string): void;
}

export function routePodEvent(routing: PodEventRouting, event: StoreEvent): void {
  const { queue } = routing;
  const pod = event.object;
  if (event.type === 'DELETED' || pod.metadata.deletionTimestamp) {
    const owner = routing.ownerOf(pod);
    if (!owner) return;
    routing.deleted?.(keyOf(owner));
    queue.add(keyOf(owner));
    return;
  }
  const previous = event.type === 'MODIFIED' ? event.previous : undefined;
  const ref = controllerRefOf(pod);
  const refChanged = !!previous && !jsonEqual(ref, controllerRefOf(previous));
  if (refChanged && previous) {
    const oldOwner = routing.ownerOf(previous);
    if (oldOwner) queue.add(keyOf(oldOwner));
  }
  if (ref) {
    const owner = routing.ownerOf(pod);
    if (!owner) return;
    if (event.type === 'ADDED') routing.created?.(keyOf(owner));
    queue.add(keyOf(owner));
    const minReady = minReadySecondsOf(owner);
    if (previous && minReady > 0 && !isPodReady(previous) && isPodReady(pod)) queue.addAfter(keyOf(owner), minReady * 1000 + 1000);
    return;
  }
  if (event.type === 'ADDED' || refChanged || !jsonEqual(pod.metadata.labels, previous?.metadata.labels)) {
    for (const owner of ownersSelecting(routing.ctx, routing.storage, pod)) queue.add(keyOf(owner));
  }
}
