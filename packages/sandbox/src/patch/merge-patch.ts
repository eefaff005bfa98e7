// JSON merge patch (RFC 7386) as the API server applies it (evanphx/json-patch v4 MergePatch):
// null deletes a key, objects merge key by key, anything else replaces. Like the Go library, a
// value copied in from the patch loses the null members of its objects, including objects nested
// in arrays (the RFC would keep those), while an array that replaces an object is taken as it is.

import { jsonKindName } from './go-format.ts';
import { cloneJson, isJsonObject, type JsonObject } from '../meta/object.ts';
import { dropNullMembers, hasOwn, setOwn } from './json-value.ts';
import { badRequest } from './status.ts';

/** Applies a merge patch (already parsed from JSON) to `original`, returning a new document. */
export function applyMergePatch(original: unknown, patch: unknown): unknown {
  if (patch === null) throw badRequest('Invalid JSON Patch');
  if (!isJsonObject(patch)) {
    throw badRequest(`error decoding patch: json: cannot unmarshal ${jsonKindName(patch)} into Go value of type map[string]interface {}`);
  }
  const document = isJsonObject(original) ? cloneJson(original) : {};
  mergeInto(document, cloneJson(patch));
  return document;
}

function mergeInto(document: JsonObject, patch: JsonObject): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete document[key];
      continue;
    }
    const current = hasOwn(document, key) ? document[key] : null;
    setOwn(document, key, current === null ? dropNullMembers(value) : merge(current, value));
  }
}

function merge(current: unknown, patch: unknown): unknown {
  if (!isJsonObject(current)) return dropNullMembers(patch);
  if (!isJsonObject(patch)) return patch;
  mergeInto(current, patch);
  return current;
}
