// kube-controller-manager's Deployment controller: a Deployment is synced (deployment-sync.ts) whenever
// it, one of its ReplicaSets (status included) or, for Recreate, the last pod of its old ReplicaSets
// changes; orphaned ReplicaSets wake the Deployments that select them.

import { jsonEqual, keyOf, objectKey, type KubeObject, type OwnerReference } from '../../meta/object.ts';
import type { StoreEvent } from '../../storage/store.ts';
import { followStore, type Controller, type ControllerContext } from '../in-process-controller.ts';
import { EventRecorder } from '../event-recorder.ts';
import { SerialKeyQueue } from '../serial-key-queue.ts';
import { controllerRefOf } from './controller-ref.ts';
import { ControllerIndex } from './controller-index.ts';
import { strategyType } from './deployment-util.ts';
import { DeploymentSync, deploymentStorage } from './deployment-sync.ts';
import { replicaSetStorage } from './replica-set-controller.ts';
import { selects } from './workload-fields.ts';

export const deploymentController: Controller = {
  name: 'deployment-controller',
  start(ctx: ControllerContext): () => void {
    const recorder = new EventRecorder(ctx.client, 'deployment-controller', ctx.clock);
    const pods = new ControllerIndex('pods');
    const replicaSets = new ControllerIndex(replicaSetStorage);
    const syncer = new DeploymentSync({
      client: ctx.client,
      store: ctx.store,
      clock: ctx.clock,
      recorder,
      pods,
      requeueAfter: (key, ms) => queue.addAfter(key, ms),
    });
    const queue = new SerialKeyQueue((key) => syncer.sync(key));

    const ownerOf = (namespace: string | undefined, ref: OwnerReference | undefined, kind: string, storage: string): KubeObject | undefined => {
      if (!ref || ref.kind !== kind) return undefined;
      const owner = ctx.store.get(storage, objectKey(namespace, ref.name))?.object;
      return owner?.metadata.uid === ref.uid ? owner : undefined;
    };
    const deploymentOf = (rs: KubeObject, ref = controllerRefOf(rs)): KubeObject | undefined => ownerOf(rs.metadata.namespace, ref, 'Deployment', deploymentStorage);
    const enqueue = (d: KubeObject | undefined): void => {
      if (d) queue.add(keyOf(d));
    };
    /** getDeploymentsForReplicaSet: the Deployments whose selector matches an orphaned ReplicaSet. */
    const enqueueSelecting = (rs: KubeObject): void => {
      for (const entry of ctx.store.list(deploymentStorage, `${rs.metadata.namespace}/`)) if (selects(entry.object, rs.metadata.labels)) enqueue(entry.object);
    };

    const replicaSetEvent = (event: StoreEvent): void => {
      const rs = event.object;
      const ref = controllerRefOf(rs);
      if (event.type === 'DELETED' || (event.type === 'ADDED' && rs.metadata.deletionTimestamp)) return enqueue(deploymentOf(rs));
      if (event.type === 'ADDED') return ref ? enqueue(deploymentOf(rs)) : enqueueSelecting(rs);
      const old = event.previous;
      if (!old) return;
      const oldRef = controllerRefOf(old);
      const refChanged = !jsonEqual(ref, oldRef);
      if (refChanged && oldRef) enqueue(deploymentOf(old, oldRef));
      if (ref) return enqueue(deploymentOf(rs));
      if (refChanged || !jsonEqual(old.metadata.labels ?? {}, rs.metadata.labels ?? {})) enqueueSelecting(rs);
    };

    /** A Recreate Deployment waits for its old pods to be gone: the last one going wakes it. */
    const podDeleted = (pod: KubeObject): void => {
      const rs = ownerOf(pod.metadata.namespace, controllerRefOf(pod), 'ReplicaSet', replicaSetStorage);
      const d = rs && deploymentOf(rs);
      if (!d || strategyType(d) !== 'Recreate') return;
      const remaining = [...replicaSets.controlledBy(d.metadata.uid ?? '')].some((rsKey) => {
        const uid = ctx.store.get(replicaSetStorage, rsKey)?.object.metadata.uid;
        return uid !== undefined && pods.controlledBy(uid).size > 0;
      });
      if (!remaining) enqueue(d);
    };

    const observe = (event: StoreEvent): void => {
      pods.observe(event);
      replicaSets.observe(event);
      if (event.resource === deploymentStorage) queue.add(event.key);
      else if (event.resource === replicaSetStorage) replicaSetEvent(event);
      else if (event.resource === 'pods' && event.type === 'DELETED') podDeleted(event.object);
    };
    return followStore(ctx, ['pods', replicaSetStorage, deploymentStorage], observe, () => queue.stop());
  },
};
