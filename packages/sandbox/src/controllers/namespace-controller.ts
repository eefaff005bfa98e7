// The namespace controller: a new namespace gets its `default` ServiceAccount and the
// `kube-root-ca.crt` ConfigMap; a terminating namespace has its content deleted, reports progress
// in its conditions, and is finalized (the `kubernetes` spec finalizer removed through
// `/finalize`) once nothing is left, after which the registry removes it.

import { StatusError } from '../errors.ts';
import { isJsonObject, type KubeObject } from '../meta/object.ts';
import { formatTimestamp } from '../meta/time.ts';
import { kubernetesFinalizer, specFinalizers } from '../registry/namespace-rules.ts';
import type { Controller, ControllerContext } from './in-process-controller.ts';
import { SerialKeyQueue } from './serial-key-queue.ts';

const namespaces = { group: '', version: 'v1', resource: 'namespaces' };

export interface NamespaceControllerOptions {
  /** PEM of the cluster CA, published as `ca.crt` in every namespace's `kube-root-ca.crt`. */
  caCertificate: string;
}

interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

function deletionConditions(remaining: Map<string, number>, finalizers: Map<string, number>): Condition[] {
  const describe = (m: Map<string, number>, suffix: string): string =>
    [...m.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, n]) => `${k} ${suffix.replace('N', String(n))}`)
      .join(', ');
  return [
    { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
    { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
    remaining.size
      ? { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${describe(remaining, 'has N resource instances')}` }
      : { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' },
    finalizers.size
      ? {
          type: 'NamespaceFinalizersRemaining',
          status: 'True',
          reason: 'SomeFinalizersRemain',
          message: `Some content in the namespace has finalizers remaining: ${describe(finalizers, 'in N resource instances')}`,
        }
      : { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
  ];
}

const alreadyExists = (err: unknown): void => {
  if (err instanceof StatusError && (err.status.code === 409 || err.status.code === 403 || err.status.code === 404)) return;
  throw err;
};

export function namespaceController(options: NamespaceControllerOptions): Controller {
  return {
    name: 'namespace-controller',
    start(ctx: ControllerContext): () => void {
      const populate = async (ns: KubeObject): Promise<void> => {
        const namespace = ns.metadata.name ?? '';
        await ctx.client
          .create({ group: '', version: 'v1', resource: 'serviceaccounts' }, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }, { namespace })
          .catch(alreadyExists);
        await ctx.client
          .create(
            { group: '', version: 'v1', resource: 'configmaps' },
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: {
                name: 'kube-root-ca.crt',
                annotations: {
                  'kubernetes.io/description':
                    'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.',
                },
              },
              data: { 'ca.crt': options.caCertificate },
            },
            { namespace },
          )
          .catch(alreadyExists);
      };

      const finish = async (ns: KubeObject): Promise<boolean> => {
        const namespace = ns.metadata.name ?? '';
        const content = (): { def: ReturnType<typeof ctx.registry.storageResources>[number]; objects: KubeObject[] }[] =>
          ctx.registry
            .storageResources()
            .filter((def) => def.namespaced)
            .map((def) => ({ def, objects: ctx.store.list(def.storageKey, `${namespace}/`).map((e) => e.object) }))
            .filter((c) => c.objects.length > 0);
        for (const { def, objects } of content()) {
          for (const object of objects) {
            if (object.metadata.deletionTimestamp) continue;
            await ctx.client
              .delete({ group: def.group, version: def.version, resource: def.resource }, object.metadata.name ?? '', {
                namespace,
                body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', preconditions: { uid: object.metadata.uid } },
              })
              .catch(alreadyExists);
          }
        }
        const remaining = new Map<string, number>();
        const finalizers = new Map<string, number>();
        for (const { def, objects } of content()) {
          remaining.set(`${def.resource}.${def.group}`, objects.length);
          for (const object of objects) for (const f of object.metadata.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
        }
        const conditions = deletionConditions(remaining, finalizers);
        const previous = isJsonObject(ns.status) && Array.isArray(ns.status.conditions) ? ns.status.conditions.filter(isJsonObject) : [];
        const now = formatTimestamp(ctx.clock());
        const stamped = conditions.map((c) => {
          const before = previous.find((p) => p.type === c.type);
          return { ...c, lastTransitionTime: before && before.status === c.status ? before.lastTransitionTime : now };
        });
        const unchanged = JSON.stringify(previous.map(({ lastTransitionTime: _t, ...c }) => c)) === JSON.stringify(conditions.map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message })));
        if (!unchanged) {
          await ctx.client.update(namespaces, { ...ns, status: { ...(isJsonObject(ns.status) ? ns.status : {}), conditions: stamped } }, { subresource: 'status' });
        }
        if (remaining.size) return false;
        const latest = await ctx.client.get(namespaces, namespace);
        const spec = isJsonObject(latest.spec) ? latest.spec : {};
        const left = specFinalizers(latest).filter((f) => f !== kubernetesFinalizer);
        await ctx.client.update(namespaces, { ...latest, spec: { ...spec, finalizers: left } }, { subresource: 'finalize' });
        return true;
      };

      const queue = new SerialKeyQueue(async (name) => {
        const ns = ctx.store.get('namespaces', name)?.object;
        if (!ns) return;
        if (!ns.metadata.deletionTimestamp) return populate(ns);
        if (!specFinalizers(ns).includes(kubernetesFinalizer)) return;
        // Content with finalizers (or graceful pods) may take a while: look again until it is gone.
        if (!(await finish(ns))) queue.addAfter(name, 1000);
      });

      const unsubscribe = ctx.subscribe((event) => {
        if (event.resource === 'namespaces') {
          if (event.type !== 'DELETED') queue.add(event.key);
          return;
        }
        const namespace = event.object.metadata.namespace;
        if (namespace && event.type === 'DELETED' && ctx.store.get('namespaces', namespace)?.object.metadata.deletionTimestamp) queue.add(namespace);
      });
      for (const entry of ctx.store.list('namespaces')) queue.add(entry.key);
      return () => {
        unsubscribe();
        queue.stop();
      };
    },
  };
}
