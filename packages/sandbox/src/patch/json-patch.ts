// JSON patch (RFC 6902) as the API server applies it: with evanphx/json-patch v4, whose behaviour
// differs from the RFC in places users can observe, and which this module reproduces:
// - the first path segment is never looked up ("a/b" addresses "/b"); an empty path only works for
//   `replace` (which then needs an object or array value and is otherwise a no-op) and `test`;
// - array indexes are Go integers: "+1" and "01" are accepted, negative indexes count from the end;
// - `replace` of a missing object key adds it; `copy` from a missing object key copies null;
// - `add` without a `value` adds null; a null value reads as absent when walking a path;
// - `test` on a missing location passes when the expected value is null or absent.
// (One difference: `test` compares decoded values, so 1 equals 1.0; Go compares the bytes.)
// Every failure of an operation is the same opaque 422; a body of the wrong shape is a 400. A path
// nests the document deeper than the patch itself, so each operation's depth is checked against the
// bound of ./json-depth.ts.

import { jsonKindName, sortedJson } from './go-format.ts';
import { goJsonSyntaxError } from './go-json.ts';
import { nestingOf, sandboxMaxDepth } from './json-depth.ts';
import { cloneJson, isJsonObject, jsonEqual, type JsonObject } from '../meta/object.ts';
import { hasOwn, setOwn } from './json-value.ts';
import { badRequest, genericInvalid, patchedObjectInvalid, requestEntityTooLarge } from './status.ts';

/** The server refuses JSON patches with more operations than this. */
export const maxJsonPatchOperations = 10000;

interface Operation {
  op: string | undefined;
  path: string | undefined;
  from: string | undefined;
  hasValue: boolean;
  value: unknown;
}

type Container = JsonObject | unknown[];

/** Applies an RFC 6902 patch (already parsed from JSON) to `original`, returning a new document. */
export function applyJsonPatch(original: unknown, patch: unknown): unknown {
  const operations = decodeOperations(patch);
  if (operations.length > maxJsonPatchOperations) {
    throw requestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${operations.length}`);
  }
  const document = { root: cloneJson(original) };
  for (const operation of operations) {
    const inserted = insertedValue(document.root, operation);
    if (!applyOperation(document, operation)) throw genericInvalid();
    const depth = (operation.path ?? '').split('/').length - 1 + nestingOf(inserted);
    if (depth > sandboxMaxDepth) {
      // The server decodes the patched document as the object; nested past the bound, that fails.
      const json = sortedJson(document.root);
      throw patchedObjectInvalid(json, `couldn't get version/kind; json parse error: ${goJsonSyntaxError(json, sandboxMaxDepth) ?? ''}`);
    }
  }
  return document.root;
}

/** The value an operation puts at its path (read before it runs: `move` removes its source). */
function insertedValue(root: unknown, operation: Operation): unknown {
  if (operation.op === 'add' || operation.op === 'replace') return operation.value;
  if ((operation.op !== 'copy' && operation.op !== 'move') || operation.from === undefined) return undefined;
  const source = locate(root, operation.from);
  return source && read(source.container, source.key).value;
}

/** The server first decodes the body into `[]handlers.jsonPatchOp`; type errors are a 400. */
function decodeOperations(patch: unknown): Operation[] {
  if (patch === null) return [];
  if (!Array.isArray(patch)) throw decodeError(`json: cannot unmarshal ${jsonKindName(patch)} into Go value of type []handlers.jsonPatchOp`);
  let firstError: string | undefined;
  const operations = patch.map((element): Operation => {
    if (element === null) return { op: undefined, path: undefined, from: undefined, hasValue: false, value: undefined };
    if (!isJsonObject(element)) {
      firstError ??= `json: cannot unmarshal ${jsonKindName(element)} into Go value of type handlers.jsonPatchOp`;
      return { op: undefined, path: undefined, from: undefined, hasValue: false, value: undefined };
    }
    for (const [field, value] of Object.entries(element)) {
      if ((field === 'op' || field === 'path' || field === 'from') && value !== null && typeof value !== 'string') {
        firstError ??= `json: cannot unmarshal ${jsonKindName(value)} into Go struct field jsonPatchOp.${field} of type string`;
      }
    }
    const text = (field: string): string | undefined => (typeof element[field] === 'string' ? element[field] : undefined);
    return { op: text('op'), path: text('path'), from: text('from'), hasValue: hasOwn(element, 'value'), value: element.value ?? null };
  });
  if (firstError !== undefined) throw decodeError(firstError);
  return operations;
}

const decodeError = (message: string) => badRequest(`error decoding patch: ${message}`);

/** Applies one operation in place; false when it does not apply. */
function applyOperation(document: { root: unknown }, operation: Operation): boolean {
  const { path, from } = operation;
  switch (operation.op) {
    case 'add': {
      const target = path === undefined ? undefined : locate(document.root, path);
      return target !== undefined && add(target.container, target.key, operation.value);
    }
    case 'remove': {
      const target = path === undefined ? undefined : locate(document.root, path);
      return target !== undefined && remove(target.container, target.key);
    }
    case 'replace': {
      if (path === '') {
        const value = operation.value;
        if (isJsonObject(value) || Array.isArray(value)) document.root = cloneJson(value);
        return true;
      }
      const target = path === undefined ? undefined : locate(document.root, path);
      if (target === undefined || !read(target.container, target.key).found) return false;
      return replace(target.container, target.key, operation.value);
    }
    case 'move': {
      const source = from === undefined ? undefined : locate(document.root, from);
      if (source === undefined) return false;
      const moved = read(source.container, source.key);
      if (!moved.found || !remove(source.container, source.key)) return false;
      const target = path === undefined ? undefined : locate(document.root, path);
      return target !== undefined && add(target.container, target.key, moved.value);
    }
    case 'copy': {
      const source = from === undefined ? undefined : locate(document.root, from);
      if (source === undefined) return false;
      const copied = read(source.container, source.key);
      if (!copied.found) return false;
      const target = path === undefined ? undefined : locate(document.root, path);
      return target !== undefined && add(target.container, target.key, cloneJson(copied.value ?? null));
    }
    case 'test': {
      if (path === undefined) return false;
      if (path === '') return jsonEqual(document.root, operation.value);
      const target = locate(document.root, path);
      if (target === undefined) return false;
      const actual = read(target.container, target.key);
      if (!actual.found) return false;
      if (actual.value === undefined || actual.value === null) return operation.value === null;
      return operation.hasValue && jsonEqual(actual.value, operation.value);
    }
    default:
      return false;
  }
}

/** The container of the last segment and that segment, decoded; undefined when the path does not lead anywhere. */
function locate(root: unknown, path: string): { container: Container; key: string } | undefined {
  const segments = path.split('/');
  if (segments.length < 2 || !isContainer(root)) return undefined;
  let container: Container = root;
  for (const segment of segments.slice(1, -1)) {
    const next = read(container, decodeKey(segment));
    if (!next.found || !isContainer(next.value)) return undefined;
    container = next.value;
  }
  return { container, key: decodeKey(segments[segments.length - 1] ?? '') };
}

const isContainer = (v: unknown): v is Container => isJsonObject(v) || Array.isArray(v);

const decodeKey = (segment: string): string => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/** Go's strconv.Atoi: an optional sign and decimal digits. */
function goAtoi(text: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Reads a child. An object answers for any key (absent and null read as "no value"); an array
 * fails on a bad or out-of-range index, with negative indexes counted from the end.
 */
function read(container: Container, key: string): { found: boolean; value: unknown } {
  if (!Array.isArray(container)) return { found: true, value: hasOwn(container, key) ? container[key] : undefined };
  const index = arrayIndex(container.length, key);
  return index === undefined ? { found: false, value: undefined } : { found: true, value: container[index] };
}

function arrayIndex(length: number, key: string): number | undefined {
  const index = goAtoi(key);
  if (index === undefined || index >= length || index < -length) return undefined;
  return index < 0 ? index + length : index;
}

function add(container: Container, key: string, value: unknown): boolean {
  const stored = cloneJson(value);
  if (!Array.isArray(container)) {
    setOwn(container, key, stored);
    return true;
  }
  if (key === '-') {
    container.push(stored);
    return true;
  }
  // Inserting may address one past the end.
  const index = arrayIndex(container.length + 1, key);
  if (index === undefined) return false;
  container.splice(index, 0, stored);
  return true;
}

function remove(container: Container, key: string): boolean {
  if (!Array.isArray(container)) {
    if (!hasOwn(container, key)) return false;
    delete container[key];
    return true;
  }
  const index = arrayIndex(container.length, key);
  if (index === undefined) return false;
  container.splice(index, 1);
  return true;
}

function replace(container: Container, key: string, value: unknown): boolean {
  const stored = cloneJson(value);
  if (!Array.isArray(container)) setOwn(container, key, stored);
  else container[arrayIndex(container.length, key) ?? 0] = stored;
  return true;
}
