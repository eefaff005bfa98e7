// The cooperation-controller side (Kuperator's ResourceConsist conventions): a controller that keeps
// something in sync with pods (e.g. a load balancer) holds a protection finalizer on each pod it has
// registered and declares it in the pod's expected-finalizers annotation, so the lifecycle waits for it
// to deregister before operating and to re-register before service-available.

import { createHash } from 'node:crypto';
import type { Pod } from '../api/kube.ts';
import { AVAILABLE_CONDITIONS_ANNOTATION, PROTECTION_FINALIZER_PREFIX } from '../api/protocol.ts';
import { expectedFinalizers, isDeleting, isPodReady, serviceReadyCondition } from '../lifecycle/pod.ts';
import { draftOf, type PodChange } from './pod-change.ts';

export { expectedFinalizers as readExpectedFinalizers } from '../lifecycle/pod.ts';

/**
 * `prot.podopslifecycle.kusionstack.io/<16 hex>`: characters 8..24 of the MD5 of the employer's name,
 * as ResourceConsist names it, so both frameworks agree on the finalizer of one employer.
 */
export function protectionFinalizer(employerName: string): string {
  return `${PROTECTION_FINALIZER_PREFIX}/${createHash('md5').update(employerName).digest('hex').slice(8, 24)}`;
}

/**
 * The expected-finalizers key of an employer: `<Kind>/<namespace>/<name>`. The Kind must be given:
 * ResourceConsist reads it from a TypeMeta that typed clients leave empty, producing keys the lifecycle
 * controller's dirty-Service check cannot recognise.
 */
export function expectedFinalizerKey(kind: string, namespace: string, name: string): string {
  if (!kind) throw new Error('expectedFinalizerKey: kind must not be empty (e.g. "Service")');
  return `${kind}/${namespace}/${name}`;
}

export function hasFinalizer(pod: Pod, finalizer: string): boolean {
  return pod.metadata.finalizers?.includes(finalizer) ?? false;
}

/** Adds the finalizer unless present. The API server refuses new finalizers on a pod being deleted. */
export function addFinalizer(pod: Pod, finalizer: string): PodChange {
  if (hasFinalizer(pod, finalizer)) return { pod, changed: false };
  const draft = draftOf(pod);
  draft.metadata.finalizers = [...(draft.metadata.finalizers ?? []), finalizer];
  return { pod: draft, changed: true };
}

export function removeFinalizer(pod: Pod, finalizer: string): PodChange {
  if (!hasFinalizer(pod, finalizer)) return { pod, changed: false };
  const draft = draftOf(pod);
  draft.metadata.finalizers = (draft.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  return { pod: draft, changed: true };
}

function withExpectedFinalizers(pod: Pod, edit: (entries: Record<string, string>) => boolean): PodChange {
  const entries = expectedFinalizers(pod);
  if (!edit(entries)) return { pod, changed: false };
  const draft = draftOf(pod);
  draft.metadata.annotations = { ...draft.metadata.annotations, [AVAILABLE_CONDITIONS_ANNOTATION]: JSON.stringify({ expectedFinalizers: entries }) };
  return { pod: draft, changed: true };
}

/** Merges entries (`key -> finalizer`) into the available-conditions annotation; other entries are kept. */
export function setExpectedFinalizers(pod: Pod, entries: Readonly<Record<string, string>>): PodChange {
  return withExpectedFinalizers(pod, (current) => {
    let changed = false;
    for (const [key, finalizer] of Object.entries(entries)) {
      if (current[key] !== finalizer) {
        current[key] = finalizer;
        changed = true;
      }
    }
    return changed;
  });
}

export function removeExpectedFinalizers(pod: Pod, keys: readonly string[]): PodChange {
  return withExpectedFinalizers(pod, (current) => {
    let changed = false;
    for (const key of keys) {
      if (key in current) {
        delete current[key];
        changed = true;
      }
    }
    return changed;
  });
}

/**
 * Whether a cooperation controller should have the pod in traffic: not being deleted, PodReady True, and
 * the service-ready condition not set to anything but True (a missing condition counts as ready).
 */
export function lifecycleReady(pod: Pod): boolean {
  if (isDeleting(pod) || !isPodReady(pod)) return false;
  const condition = serviceReadyCondition(pod);
  return condition === undefined || condition.status === 'True';
}
