// The apiextensions controllers in one: a new or changed CRD gets its NamesAccepted/Established
// status and its resources served (discovery updates at once); a deleted CRD has its custom
// resources deleted, stops being served, and loses the cleanup finalizer so it goes away.

import { customResourceDefinitionStatus } from '../crd/index.ts';
import { StatusError } from '../errors.ts';
import { isJsonObject, jsonEqual, readPath, type KubeObject } from '../meta/object.ts';
import { crdCleanupFinalizer } from '../registry/crd-resource.ts';
import { customResourceServing } from '../registry/custom-resources.ts';
import type { Controller, ControllerContext } from './in-process-controller.ts';
import { SerialKeyQueue } from './serial-key-queue.ts';

const crds = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
const crdStorage = 'customresourcedefinitions.apiextensions.k8s.io';

/** What the controller may change in the server: which custom resources are served. */
export interface CustomResourceServer {
  serve(crd: KubeObject): void;
  unserve(storageKey: string): void;
  isServed(storageKey: string): boolean;
}

const established = (crd: KubeObject): boolean => {
  const conditions = readPath(crd, ['status', 'conditions']);
  return Array.isArray(conditions) && conditions.some((c) => isJsonObject(c) && c.type === 'Established' && c.status === 'True');
};

const withoutTimes = (status: unknown): unknown => {
  if (!isJsonObject(status)) return status;
  const conditions = Array.isArray(status.conditions) ? status.conditions.map((c) => (isJsonObject(c) ? { ...c, lastTransitionTime: undefined } : c)) : status.conditions;
  return { ...status, conditions };
};

export function crdController(server: CustomResourceServer): Controller {
  return {
    name: 'crd-controller',
    start(ctx: ControllerContext): () => void {
      const served = new Map<string, string>();

      const syncServing = (crd: KubeObject): void => {
        const { storageKey } = customResourceServing(crd);
        const fingerprint = JSON.stringify([crd.spec, readPath(crd, ['status', 'acceptedNames'])]);
        if (served.get(crd.metadata.name ?? '') === fingerprint && server.isServed(storageKey)) return;
        served.set(crd.metadata.name ?? '', fingerprint);
        server.serve(crd);
      };

      const cleanUp = async (crd: KubeObject): Promise<boolean> => {
        const { storageKey, definitions } = customResourceServing(crd);
        const def = definitions[0];
        if (def && server.isServed(storageKey)) {
          const remaining = ctx.store.list(storageKey);
          for (const entry of remaining) {
            if (entry.object.metadata.deletionTimestamp) continue;
            const namespace = entry.object.metadata.namespace;
            await ctx.client
              .delete({ group: def.group, version: def.version, resource: def.resource }, entry.object.metadata.name ?? '', namespace ? { namespace } : {})
              .catch((err: unknown) => {
                if (!(err instanceof StatusError && err.status.code === 404)) throw err;
              });
          }
          if (ctx.store.list(storageKey).length) return false;
        }
        server.unserve(storageKey);
        served.delete(crd.metadata.name ?? '');
        const finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== crdCleanupFinalizer);
        await ctx.client.patch(crds, crd.metadata.name ?? '', 'merge', {
          metadata: { finalizers: finalizers.length ? finalizers : null, resourceVersion: crd.metadata.resourceVersion },
        });
        return true;
      };

      const queue = new SerialKeyQueue(async (name) => {
        const crd = ctx.store.get(crdStorage, name)?.object;
        if (!crd) return;
        if (crd.metadata.deletionTimestamp) {
          if ((crd.metadata.finalizers ?? []).includes(crdCleanupFinalizer) && !(await cleanUp(crd))) queue.addAfter(name, 200);
          return;
        }
        const others = ctx.store.list(crdStorage).map((e) => e.object).filter((o) => o.metadata.name !== name);
        const status = customResourceDefinitionStatus(crd, ctx.clock(), others);
        if (!jsonEqual(withoutTimes(status), withoutTimes(crd.status))) {
          await ctx.client.update(crds, { ...crd, status }, { subresource: 'status' });
          return;
        }
        if (established(crd)) syncServing(crd);
      });

      const unsubscribe = ctx.subscribe((event) => {
        if (event.resource === crdStorage) {
          if (event.type === 'DELETED') {
            server.unserve(customResourceServing(event.object).storageKey);
            served.delete(event.key);
          } else {
            queue.add(event.key);
          }
        }
      });
      for (const entry of ctx.store.list(crdStorage)) queue.add(entry.key);
      return () => {
        unsubscribe();
        queue.stop();
      };
    },
  };
}
