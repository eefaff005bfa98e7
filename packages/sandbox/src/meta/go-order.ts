// The order of keys kube-apiserver writes: Go's encoding/json sorts the keys of every map (all of a custom
// resource, which is unstructured; the map fields of a built-in kind, such as labels or data) and writes a
// struct's fields in their declaration order. Objects are stored in that order, so that clients read them as
// a real server sends them. A JS object cannot hold some orders (its integer-like keys always come first, in
// numeric order): a map whose keys it cannot hold in Go's order is remembered, and the object holding it is
// encoded by `encodeJson`, which writes those maps' keys sorted.

import { isJsonObject, type JsonObject } from './object.ts';

/** Go's order of map keys: by their UTF-8 bytes, that is by code points (JS's `<` compares UTF-16 units). */
export function goKeyCompare(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (U+D800-DFFF, part of a code point above U+FFFF) sorts after U+E000-FFFF.
    if (x >= 0xd800 && y >= 0xd800) return surrogateLast(x) - surrogateLast(y);
    return x - y;
  }
  return a.length - b.length;
}

const surrogateLast = (unit: number): number => (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000);

/** Maps whose keys JS holds in another order than Go's, and the stored objects that contain one. */
const unorderedMaps = new WeakSet<object>();
const holders = new WeakSet<object>();

/** Collects, while an object is put in order, whether it holds a map JS cannot keep in Go's order. */
export interface OrderMarks {
  unordered: boolean;
}

/** `map` with its keys in Go's order: itself when they are already. */
export function sortedMap(map: JsonObject, marks: OrderMarks, value: (item: unknown) => unknown = (item) => item): JsonObject {
  const keys = Object.keys(map);
  const sorted = [...keys].sort(goKeyCompare);
  let changed = sorted.some((key, i) => key !== keys[i]);
  const values = sorted.map((key) => {
    const item = map[key];
    const ordered = value(item);
    if (ordered !== item) changed = true;
    return ordered;
  });
  if (!changed) return map;
  const out: JsonObject = {};
  sorted.forEach((key, i) => {
    if (key === '__proto__') Object.defineProperty(out, key, { value: values[i], writable: true, enumerable: true, configurable: true });
    else out[key] = values[i];
  });
  if (Object.keys(out).some((key, i) => key !== sorted[i])) {
    unorderedMaps.add(out);
    marks.unordered = true;
  }
  return out;
}

/**
 * A value of unstructured JSON (a custom resource) with every map's keys in Go's order. Frozen values are the
 * server's own encodings (managedFields' sets), already in that order, and shared: they are kept as they are.
 */
export function sortedDeep(value: unknown, marks: OrderMarks): unknown {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) return orderedItems(value, (item) => sortedDeep(item, marks));
  return isJsonObject(value) ? sortedMap(value, marks, (item) => sortedDeep(item, marks)) : value;
}

/** A list with each item put in order: the list itself when every item already is. */
export function orderedItems(list: readonly unknown[], order: (item: unknown) => unknown): readonly unknown[] {
  let changed = false;
  const items = list.map((item) => {
    const ordered = order(item);
    if (ordered !== item) changed = true;
    return ordered;
  });
  return changed ? items : list;
}

/** Records that `object`, about to be stored, holds maps only `encodeJson` writes in Go's order. */
export function remember<T extends object>(object: T, marks: OrderMarks): T {
  if (marks.unordered) holders.add(object);
  return object;
}

/** The JSON of a stored object, keys in the order the real server writes them. */
export function encodeJson(object: object): string {
  return holders.has(object) ? jsonWithSortedMaps(object) : JSON.stringify(object);
}

function jsonWithSortedMaps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item: unknown) => (item === undefined ? 'null' : jsonWithSortedMaps(item))).join(',')}]`;
  if (!isJsonObject(value)) return JSON.stringify(value) ?? 'null';
  const keys = unorderedMaps.has(value) ? Object.keys(value).sort(goKeyCompare) : Object.keys(value);
  const members = keys.filter((key) => value[key] !== undefined).map((key) => `${JSON.stringify(key)}:${jsonWithSortedMaps(value[key])}`);
  return `{${members.join(',')}}`;
}
