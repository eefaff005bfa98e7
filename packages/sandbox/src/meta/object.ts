// The shape every stored object shares, and small accessors over it. Objects are plain JSON values;
// once stored they are never mutated (writers build a new object), so readers may share them.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
  [field: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `record[key]` when the record itself has the key. For a key that is a client's text: a plain object answers
 * `constructor`, `toString` or `__proto__` from its prototype.
 */
export function ownMember<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * A deep copy of a JSON value (objects read from the store are shared and must not be edited), with
 * the result of a JSON round trip: undefined members dropped, undefined array elements and
 * non-finite numbers as null. A direct copy is several times faster than the round trip or
 * structuredClone, and every write clones the stored object once. Frozen values are shared, not
 * copied: the sandbox freezes only values that are immutable all the way down (managedFields' sets).
 */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (copyJsonValue(value) as T);
}

function copyJsonValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return typeof value === 'number' && !Number.isFinite(value) ? null : value;
  if (Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      out[i] = item === undefined ? null : copyJsonValue(item);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined) continue;
    // A `__proto__` member parsed from JSON is an own property; plain assignment would set the prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copyJsonValue(member), writable: true, enumerable: true, configurable: true });
    else out[key] = copyJsonValue(member);
  }
  return out;
}

/** Structural equality of two JSON values; key order of objects does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  const aKeys = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bKeys = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (aKeys.length !== bKeys.length) return false;
  for (const k of aKeys) if (!jsonEqual(ao[k], bo[k])) return false;
  return true;
}

/** The store key of an object: `namespace/name` for namespaced resources, `name` otherwise. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** The store key of a stored object. */
export const keyOf = (object: KubeObject): string => objectKey(object.metadata.namespace, object.metadata.name ?? '');

/** Reads a dotted path (`spec.nodeName`) from an object; undefined when any step is missing. */
export function readPath(obj: unknown, path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const step of path) {
    if (!isJsonObject(cur)) return undefined;
    cur = cur[step];
  }
  return cur;
}

/**
 * Rebuilds an object with the key order the real server emits (kind, apiVersion, metadata, the
 * rest, status last), so responses read like kube-apiserver's.
 */
export function withCanonicalKeyOrder(obj: KubeObject): KubeObject {
  const out: KubeObject = { kind: obj.kind, apiVersion: obj.apiVersion, metadata: obj.metadata };
  if (out.kind === undefined) delete out.kind;
  if (out.apiVersion === undefined) delete out.apiVersion;
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'kind' || k === 'apiVersion' || k === 'metadata' || k === 'status') continue;
    out[k] = v;
  }
  if ('status' in obj) out.status = obj.status;
  return out;
}
