// The garbage collector of kube-controller-manager, in process: dependents whose owners are all
// gone are deleted (background); owners deleted in the foreground keep the `foregroundDeletion`
// finalizer until their blocking dependents are gone; owners deleted with `orphan` lose their
// dependents' references first. It keeps an owner→dependents index from the store's change stream
// and writes only through the API.

import { StatusError } from '../errors.ts';
import { objectKey, type KubeObject, type OwnerReference } from '../meta/object.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import type { StoreEvent } from '../storage/store.ts';
import { followStore, type Controller, type ControllerContext } from './in-process-controller.ts';
import { SerialKeyQueue } from './serial-key-queue.ts';

const orphanFinalizer = 'orphan';
const foregroundFinalizer = 'foregroundDeletion';

interface Located {
  def: ResourceDefinition;
  object: KubeObject;
}

const refOf = (resource: string, key: string): string => `${resource}\u0000${key}`;

export const garbageCollector: Controller = {
  name: 'garbage-collector',
  start(ctx: ControllerContext): () => void {
    /** owner uid → dependents (`resource\0key`). */
    const dependents = new Map<string, Set<string>>();
    /** dependent → the owner uids it currently lists. */
    const ownersOf = new Map<string, string[]>();

    const index = (resource: string, key: string, object: KubeObject | undefined): void => {
      const ref = refOf(resource, key);
      for (const uid of ownersOf.get(ref) ?? []) {
        const set = dependents.get(uid);
        set?.delete(ref);
        if (set?.size === 0) dependents.delete(uid);
      }
      const uids = (object?.metadata.ownerReferences ?? []).map((r) => r.uid);
      if (uids.length) ownersOf.set(ref, uids);
      else ownersOf.delete(ref);
      for (const uid of uids) {
        let set = dependents.get(uid);
        if (!set) dependents.set(uid, (set = new Set()));
        set.add(ref);
      }
    };

    let definitions = new Map<string, ResourceDefinition>();
    let definitionsGeneration = -1;
    const definitionOf = (resource: string): ResourceDefinition | undefined => {
      if (definitionsGeneration !== ctx.registry.generation) {
        definitions = new Map(ctx.registry.storageResources().map((d) => [d.storageKey, d]));
        definitionsGeneration = ctx.registry.generation;
      }
      return definitions.get(resource);
    };

    const locate = (ref: string): Located | undefined => {
      const [resource = '', key = ''] = ref.split('\u0000');
      const def = definitionOf(resource);
      const entry = def && ctx.store.get(resource, key);
      return def && entry ? { def, object: entry.object } : undefined;
    };

    const refs = (def: ResourceDefinition) => ({ group: def.group, version: def.version, resource: def.resource });

    /** A write racing with another one fails with 409 and is retried by the queue; 404 means done. */
    const ignoreGone = (err: unknown): void => {
      if (err instanceof StatusError && err.status.code === 404) return;
      throw err;
    };

    /**
     * isDangling: the owner is looked up where the reference says it is (its apiVersion and kind, its
     * name, the dependent's namespace for a namespaced kind) and must have the reference's uid; an
     * object with that uid elsewhere does not count. A kind the server does not serve, or a namespaced
     * owner of a cluster-scoped dependent, cannot be checked, and the real collector then leaves the
     * dependent alone.
     */
    const ownerState = (ref: OwnerReference, dependentNamespace: string | undefined): 'missing' | 'waiting' | 'solid' | 'unverifiable' => {
      const def = ctx.registry.byKind(ref.apiVersion, ref.kind);
      if (!def || (def.namespaced && !dependentNamespace)) return 'unverifiable';
      const owner = ctx.store.get(def.storageKey, objectKey(def.namespaced ? dependentNamespace : undefined, ref.name))?.object;
      if (!owner || owner.metadata.uid !== ref.uid) return 'missing';
      const fg = owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(foregroundFinalizer);
      return fg ? 'waiting' : 'solid';
    };

    /** attemptToDeleteItem: delete a dependent whose owners are gone (or all waiting on it). */
    const attemptToDelete = async (ref: string): Promise<void> => {
      const found = locate(ref);
      if (!found) return;
      const { def, object } = found;
      const owners = object.metadata.ownerReferences ?? [];
      if (!owners.length) return;
      const finalizers = object.metadata.finalizers ?? [];
      if (object.metadata.deletionTimestamp && !finalizers.includes(foregroundFinalizer)) return;
      const states = owners.map((o) => ({ ref: o, state: ownerState(o, object.metadata.namespace) }));
      if (states.some((s) => s.state === 'unverifiable')) return;
      const solid = states.filter((s) => s.state === 'solid');
      const dangling = states.filter((s) => s.state === 'missing');
      const waiting = states.filter((s) => s.state === 'waiting' && s.ref.blockOwnerDeletion === true);
      const namespace = object.metadata.namespace;
      const name = object.metadata.name ?? '';
      if (solid.length) {
        if (!dangling.length && !waiting.length) return;
        const drop = new Set([...dangling, ...waiting].map((s) => s.ref.uid));
        const kept = owners.filter((o) => !drop.has(o.uid));
        await ctx.client
          .patch(refs(def), name, 'merge', { metadata: { ownerReferences: kept, resourceVersion: object.metadata.resourceVersion } }, { ...(namespace ? { namespace } : {}) })
          .catch(ignoreGone);
        return;
      }
      if (object.metadata.deletionTimestamp) return;
      const hasDependents = (dependents.get(object.metadata.uid ?? '')?.size ?? 0) > 0;
      const policy = finalizers.includes(orphanFinalizer)
        ? 'Orphan'
        : finalizers.includes(foregroundFinalizer) || (waiting.length > 0 && hasDependents)
          ? 'Foreground'
          : 'Background';
      await ctx.client
        .delete(refs(def), name, {
          ...(namespace ? { namespace } : {}),
          body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: policy, preconditions: { uid: object.metadata.uid } },
        })
        .catch(ignoreGone);
    };

    const removeFinalizer = async (def: ResourceDefinition, object: KubeObject, finalizer: string): Promise<void> => {
      const finalizers = (object.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      const namespace = object.metadata.namespace;
      await ctx.client
        .patch(
          refs(def),
          object.metadata.name ?? '',
          'merge',
          { metadata: { finalizers: finalizers.length ? finalizers : null, resourceVersion: object.metadata.resourceVersion } },
          namespace ? { namespace } : {},
        )
        .catch(ignoreGone);
    };

    /** An owner being deleted in the foreground or orphaning its dependents. */
    const processOwner = async (ref: string): Promise<void> => {
      const found = locate(ref);
      if (!found || !found.object.metadata.deletionTimestamp) return;
      const { def, object } = found;
      const uid = object.metadata.uid ?? '';
      const finalizers = object.metadata.finalizers ?? [];
      const mine = [...(dependents.get(uid) ?? [])];
      if (finalizers.includes(orphanFinalizer)) {
        for (const dependentRef of mine) {
          const dependent = locate(dependentRef);
          if (!dependent) continue;
          const kept = (dependent.object.metadata.ownerReferences ?? []).filter((o) => o.uid !== uid);
          const namespace = dependent.object.metadata.namespace;
          await ctx.client
            .patch(
              refs(dependent.def),
              dependent.object.metadata.name ?? '',
              'merge',
              { metadata: { ownerReferences: kept.length ? kept : null, resourceVersion: dependent.object.metadata.resourceVersion } },
              namespace ? { namespace } : {},
            )
            .catch(ignoreGone);
        }
        const latest = locate(ref);
        if (latest) await removeFinalizer(def, latest.object, orphanFinalizer);
        return;
      }
      if (!finalizers.includes(foregroundFinalizer)) return;
      const blocking = mine.filter((d) => {
        const dependent = locate(d);
        return dependent?.object.metadata.ownerReferences?.some((o) => o.uid === uid && o.blockOwnerDeletion === true);
      });
      for (const d of mine) await attemptToDelete(d);
      if (!blocking.length) await removeFinalizer(def, object, foregroundFinalizer);
    };

    const attempts = new SerialKeyQueue(attemptToDelete);
    const owners = new SerialKeyQueue(processOwner);

    const observe = (event: StoreEvent): void => {
      const ref = refOf(event.resource, event.key);
      const uid = event.object.metadata.uid ?? '';
      const before = event.previous?.metadata.ownerReferences ?? [];
      index(event.resource, event.key, event.type === 'DELETED' ? undefined : event.object);
      if (event.type === 'DELETED') {
        for (const dependent of dependents.get(uid) ?? []) attempts.add(dependent);
        // A dependent that goes away may unblock its foreground-deleting owners.
        for (const owner of before) {
          const where = ctx.store.locateUid(owner.uid);
          if (where) owners.add(refOf(where.resource, where.key));
        }
        return;
      }
      const meta = event.object.metadata;
      const finalizers = meta.finalizers ?? [];
      if (meta.deletionTimestamp && (finalizers.includes(orphanFinalizer) || finalizers.includes(foregroundFinalizer))) owners.add(ref);
      if ((meta.ownerReferences ?? []).length && (event.type === 'ADDED' || JSON.stringify(before) !== JSON.stringify(meta.ownerReferences))) {
        attempts.add(ref);
      }
      if (meta.deletionTimestamp && finalizers.includes(foregroundFinalizer)) attempts.add(ref);
    };

    return followStore(ctx, ctx.registry.storageResources().map((def) => def.storageKey), observe, () => {
      attempts.stop();
      owners.stop();
    });
  },
};
