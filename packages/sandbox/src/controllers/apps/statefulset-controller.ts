// kube-controller-manager's StatefulSet controller, in process. Keys (`namespace/name`) are queued
// from StatefulSet changes and from the pods they control (an orphan wakes every set whose selector
// matches it, to be adopted); a sync claims the set's pods (by selector and `<set>-<ordinal>` name),
// adopts orphan revisions and runs StatefulSetSync. A set with minReadySeconds is synced again once
// its ready pods become available. The feature gates are the simulation's (docs/sandbox-statefulsets.md).

import type { ApiServerFeatureGates } from '../../feature-gates.ts';
import type { KubeObject } from '../../meta/object.ts';
import type { StoreEvent } from '../../storage/store.ts';
import { followStore, type Controller, type ControllerContext } from '../in-process-controller.ts';
import { EventRecorder } from '../event-recorder.ts';
import { SerialKeyQueue } from '../serial-key-queue.ts';
import { ControllerIndex } from './controller-index.ts';
import { claimObjects, controllerRefOf, resolveControllerRef } from './controller-ref.ts';
import { podsResource } from './pod-control.ts';
import { routePodEvent } from './pod-events.ts';
import { StatefulSetSync } from './statefulset-control.ts';
import { isMemberOf } from './statefulset-identity.ts';
import { StatefulPodControl } from './statefulset-pod-control.ts';
import { adoptOrphanRevisions } from './statefulset-revisions.ts';
import { statefulSetKind, statefulSetsStorage } from './statefulset-spec.ts';
import { minReadySecondsOf, selectorOf, selects, specReplicas } from './workload-fields.ts';

export const statefulSetController = (gates: ApiServerFeatureGates = {}): Controller => ({
  name: 'statefulset-controller',
  start(ctx: ControllerContext): () => void {
    const recorder = new EventRecorder(ctx.client, 'statefulset-controller', ctx.clock);
    const podIndex = new ControllerIndex('pods');
    const control = new StatefulSetSync(ctx, new StatefulPodControl(ctx.client, recorder), gates);

    const sync = async (key: string): Promise<void> => {
      const set = ctx.store.get(statefulSetsStorage, key)?.object;
      // A selector that does not convert is a user error that retrying cannot fix.
      if (!set || !selectorOf(set)) return;
      await adoptOrphanRevisions(ctx, set);
      const candidates = [...podIndex.controlledBy(set.metadata.uid ?? ''), ...podIndex.orphansIn(set.metadata.namespace ?? '')].flatMap(
        (key) => ctx.store.get('pods', key)?.object ?? [],
      );
      const pods = await claimObjects(candidates, {
        client: ctx.client,
        resource: podsResource,
        owner: set,
        ownerKind: statefulSetKind,
        matches: (pod) => selects(set, pod.metadata.labels) && isMemberOf(set, pod),
      });
      const status = await control.sync(set, pods);
      // One more sync once the ready pods are available (clock skew guard of the real controller).
      if (minReadySecondsOf(set) > 0 && status.availableReplicas !== specReplicas(set)) queue.addAfter(key, minReadySecondsOf(set) * 1000);
    };
    const queue = new SerialKeyQueue(sync);

    const ownerOf = (pod: KubeObject): KubeObject | undefined =>
      resolveControllerRef(ctx, statefulSetsStorage, statefulSetKind.kind, pod.metadata.namespace, controllerRefOf(pod));

    const podRouting = { ctx, storage: statefulSetsStorage, queue, ownerOf };

    const observe = (event: StoreEvent): void => {
      podIndex.observe(event);
      if (event.resource === statefulSetsStorage) queue.add(event.key);
      else if (event.resource === 'pods') routePodEvent(podRouting, event);
    };
    return followStore(ctx, ['pods', statefulSetsStorage], observe, () => queue.stop());
  },
});
