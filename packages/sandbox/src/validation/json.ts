// Lenient readers over decoded JSON, and the equality the real server uses when it compares objects
// (apiequality.Semantic.DeepEqual), where an empty list or map equals an absent one.

import { isJsonObject, type JsonObject } from '../meta/object.ts';

export const asObject = (v: unknown): JsonObject => (isJsonObject(v) ? v : {});
export const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const asString = (v: unknown): string => (typeof v === 'string' ? v : '');
export const asNumber = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
export const isPresent = (v: unknown): boolean => v !== undefined && v !== null;

/** Only the string-valued entries: a label or annotation map as the Go type sees it. */
export function asStringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(asObject(v))) if (typeof val === 'string') out[k] = val;
  return out;
}

export const objectList = (v: unknown): JsonObject[] => asArray(v).map(asObject);

/** Removes what Go cannot tell apart from "unset": null, empty strings, empty lists and empty maps. */
function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(normalize);
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const [k, val] of Object.entries(v)) {
      const n = normalize(val);
      if (n !== undefined) out[k] = n;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  if (v === null || v === '') return undefined;
  return v;
}

function strictEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => strictEqual(x, b[i]));
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && strictEqual(a[k], b[k]));
  }
  return false;
}

export function semanticEqual(a: unknown, b: unknown): boolean {
  return strictEqual(normalize(a), normalize(b));
}
