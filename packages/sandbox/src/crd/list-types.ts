// The x-kubernetes-list-type invariants: items of a `set` are unique, items of a `map` are objects
// with unique x-kubernetes-list-map-keys. Duplicates are reported at the later item's index, once.

import { fieldDuplicate, fieldInvalid, type FieldError } from '../errors.ts';
import { isJsonObject, type JsonObject } from '../meta/object.ts';
import type { SchemaNode } from './compile.ts';
import { childPath, indexPath, keyPath } from './field-path.ts';

/** Checks the list-type invariants of every list inside `obj`. */
export function listTypeErrors(s: SchemaNode, obj: unknown, path = ''): FieldError[] {
  if (!isJsonObject(obj)) return [];
  const errs: FieldError[] = [];
  const additional = s.additionalProperties?.schema;
  if (additional) for (const key of Object.keys(obj)) errs.push(...valueErrors(additional, obj[key], keyPath(path, key)));
  if (s.properties) {
    for (const key of Object.keys(obj)) {
      const prop = s.properties.get(key);
      if (prop) errs.push(...valueErrors(prop, obj[key], childPath(path, key)));
    }
  }
  return errs;
}

function valueErrors(s: SchemaNode, value: unknown, path: string): FieldError[] {
  if (Array.isArray(value)) return arrayErrors(s, value, path);
  return isJsonObject(value) ? listTypeErrors(s, value, path) : [];
}

function arrayErrors(s: SchemaNode, list: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (s.listType === 'set') {
    for (const i of repeatedIndexes(list)) errs.push(fieldDuplicate(indexPath(path, i), list[i]));
  } else if (s.listType === 'map') {
    errs.push(...mapListErrors(s, list, path));
  }
  if (s.items) list.forEach((item, i) => errs.push(...valueErrors(s.items as SchemaNode, item, indexPath(path, i))));
  return errs;
}

const unspecifiedKey = Symbol('unspecified key');

function mapListErrors(s: SchemaNode, list: unknown[], path: string): FieldError[] {
  const notObject = list.findIndex((x) => x !== null && !isJsonObject(x));
  if (notObject >= 0) return [fieldInvalid(indexPath(path, notObject), list[notObject], 'must be an object for an array of list-type map')];
  if (list.length <= 1) return [];
  const [onlyKey] = s.listMapKeys;
  if (s.listMapKeys.length === 1 && onlyKey !== undefined) {
    const keys = list.map((x) => (isJsonObject(x) && onlyKey in x ? x[onlyKey] : unspecifiedKey));
    return repeatedIndexes(keys).map((i) => fieldDuplicate(indexPath(path, i), keys[i] === unspecifiedKey ? {} : { [onlyKey]: keys[i] }));
  }
  const keys = list.map((x) => {
    const key: JsonObject = {};
    if (isJsonObject(x)) for (const k of s.listMapKeys) if (k in x) key[k] = x[k];
    return key;
  });
  return repeatedIndexes(keys).map((i) => fieldDuplicate(indexPath(path, i), keys[i]));
}

// Indexes of the second occurrence of each repeated value (later repeats are not reported again).
function repeatedIndexes(values: unknown[]): number[] {
  const seen = new Map<string, number>();
  const repeated: number[] = [];
  values.forEach((v, i) => {
    const id = identity(v);
    const times = seen.get(id) ?? 0;
    seen.set(id, times + 1);
    if (times === 1) repeated.push(i);
  });
  return repeated;
}

// Scalars compare by type and value, compound values by their JSON with sorted keys.
function identity(v: unknown): string {
  if (v === unspecifiedKey) return 'unspecified';
  if (v === null || typeof v !== 'object') return `${typeof v}:${JSON.stringify(v)}`;
  return `json:${canonicalJson(v)}`;
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isJsonObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}
