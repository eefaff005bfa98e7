// Small writers used by every defaulting function: set a field only when it is unset, as the Go
// defaulters do (`if obj.X == nil { obj.X = … }`).

import { isJsonObject, type JsonObject } from '../meta/object.ts';

export const isUnset = (v: unknown): boolean => v === undefined || v === null;

/** Sets `obj[key]` when it is absent or null; returns the (possibly new) value. */
export function defaultField<T>(obj: JsonObject, key: string, value: T): unknown {
  if (isUnset(obj[key])) obj[key] = value;
  return obj[key];
}

/** Sets a string field when it is absent, null or "" (a Go string's zero value). */
export function defaultString(obj: JsonObject, key: string, value: string): void {
  if (isUnset(obj[key]) || obj[key] === '') obj[key] = value;
}

/** The object at `obj[key]`, created (as `{}`) when absent. */
export function child(obj: JsonObject, key: string): JsonObject {
  const v = obj[key];
  if (isJsonObject(v)) return v;
  const created: JsonObject = {};
  obj[key] = created;
  return created;
}

/** The objects of the list at `obj[key]` (entries that are not objects are left alone). */
export function childList(obj: JsonObject, key: string): JsonObject[] {
  const v = obj[key];
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}
