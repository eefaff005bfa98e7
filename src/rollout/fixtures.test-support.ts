// Workloads, templates and a JSON-patch applier for the tests of src/rollout.

import type { JsonPatchOperation } from '../api/kube.ts';
import type { WorkloadKind } from '../api/rolloutlifecycle.ts';
import type { JsonObject, Workload } from './workload.ts';

export const NAMESPACE = 'shop';
export const NAME = 'web';
export const UID = 'uid-web';

export const template = (image: string): JsonObject => ({
  metadata: { labels: { app: NAME } },
  spec: { containers: [{ name: 'app', image }] },
});

export function workload(kind: WorkloadKind, spec: JsonObject, annotations?: Record<string, string>): Workload {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name: NAME, namespace: NAMESPACE, uid: UID, generation: 1, ...(annotations && { annotations }) },
    spec: { selector: { matchLabels: { app: NAME } }, template: template('app:v1'), ...spec },
  };
}

const unescape = (token: string): string => token.replaceAll('~1', '/').replaceAll('~0', '~');

/** RFC 6902 add, replace and remove on object members: what admission answers carry. */
export function applyPatch<T>(document: T, operations: readonly JsonPatchOperation[]): T {
  const result = structuredClone(document) as Record<string, unknown>;
  for (const operation of operations) {
    const tokens = operation.path.split('/').slice(1).map(unescape);
    const last = tokens.pop() as string;
    let parent = result;
    for (const token of tokens) {
      const next = parent[token];
      if (typeof next !== 'object' || next === null) throw new Error(`${operation.op} ${operation.path}: no parent ${token}`);
      parent = next as Record<string, unknown>;
    }
    if (operation.op === 'remove') {
      if (!(last in parent)) throw new Error(`remove ${operation.path}: absent`);
      delete parent[last];
    } else if (operation.op === 'replace') {
      if (!(last in parent)) throw new Error(`replace ${operation.path}: absent`);
      parent[last] = structuredClone(operation.value);
    } else if (operation.op === 'add') {
      parent[last] = structuredClone(operation.value);
    } else {
      throw new Error(`unexpected ${operation.op}`);
    }
  }
  return result as T;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** RFC 7386 JSON merge patch: objects merge, null removes, anything else replaces. */
export function mergePatch<T>(document: T, patch: unknown): T {
  if (!isPlainObject(patch)) return structuredClone(patch) as T;
  const result: Record<string, unknown> = isPlainObject(document) ? structuredClone(document) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result as T;
}
