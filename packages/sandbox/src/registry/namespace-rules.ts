// The namespace registry's deletion rules (the defaults module gives a new namespace its
// `kubernetes` spec finalizer): the first DELETE only marks it Terminating; it goes away once
// spec.finalizers (emptied through `/finalize` by the namespace controller) and metadata.finalizers
// are empty.

import { isJsonObject, type KubeObject } from '../meta/object.ts';
import { formatTimestamp } from '../meta/time.ts';

export const kubernetesFinalizer = 'kubernetes';

export function specFinalizers(ns: KubeObject): string[] {
  const spec = isJsonObject(ns.spec) ? ns.spec : {};
  return Array.isArray(spec.finalizers) ? spec.finalizers.map(String) : [];
}

/** `/finalize` updates change spec.finalizers and nothing of the status. */
export function prepareNamespaceForFinalize(ns: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete ns.status;
  else ns.status = old.status;
}

export function beginNamespaceDeletion(ns: KubeObject, now: number): void {
  ns.metadata.deletionTimestamp ??= formatTimestamp(now);
  ns.status = { ...(isJsonObject(ns.status) ? ns.status : {}), phase: 'Terminating' };
}

export const namespaceBlocksDeletion = (ns: KubeObject): boolean => specFinalizers(ns).length > 0;
