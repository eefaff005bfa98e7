// The JSON patch operations of podops' writes to a workload, computed against the version they apply to: the
// hold fields set whole, podops' annotations set or removed, and the resourceVersion guard.

import { escapeJsonPointer, type JsonPatchOperation } from '../api/kube.ts';
import type { WorkloadKind } from '../api/rolloutlifecycle.ts';
import { HOLD_FIELDS, type Settings, type Workload } from './workload.ts';

/**
 * Operations setting each hold field of `object` to `settings`, the whole field at once (a merge would leave a
 * rolling update's parameters beside a Recreate strategy), and removing those `settings` lack. `add` replaces
 * an existing member, so the operations hold even if the field appeared since `object` was read.
 */
export function holdFieldOperations(kind: WorkloadKind, object: Workload, settings: Settings): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  for (const field of HOLD_FIELDS[kind]) {
    const want = settings[field];
    const have = object.spec?.[field];
    if (JSON.stringify(want) === JSON.stringify(have)) continue;
    const path = `/spec/${escapeJsonPointer(field)}`;
    ops.push(want === undefined ? { op: 'remove', path } : { op: 'add', path, value: want });
  }
  return ops;
}

/** Operations setting annotations to the given values, and removing those given as null. */
export function annotationOperations(object: Workload, values: Record<string, string | null>): JsonPatchOperation[] {
  const current = object.metadata.annotations;
  const set = Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== null);
  if (current === undefined) return set.length === 0 ? [] : [{ op: 'add', path: '/metadata/annotations', value: Object.fromEntries(set) }];
  return Object.entries(values).flatMap(([key, value]): JsonPatchOperation[] => {
    const path = `/metadata/annotations/${escapeJsonPointer(key)}`;
    if (value === null) return key in current ? [{ op: 'remove', path }] : [];
    return current[key] === value ? [] : [{ op: 'add', path, value }];
  });
}

/** The operation that makes a JSON patch conditional on the version read: 409 Conflict otherwise. */
export const resourceVersionGuard = (object: Workload): JsonPatchOperation => ({ op: 'replace', path: '/metadata/resourceVersion', value: object.metadata.resourceVersion ?? '' });
