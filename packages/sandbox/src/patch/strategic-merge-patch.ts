// Strategic merge patch, as the API server applies it (apimachinery's strategicpatch with
// MergeParallelList and IgnoreUnmatchedNulls): maps merge, `null` deletes a key, lists with
// `patchStrategy: merge` merge (scalars as a set, objects on their merge key) and other lists are
// replaced. Ordering follows the Go code: items named in the patch come first in the patch's order,
// other items keep their relative order and are interleaved by their live positions, unless a
// `$setElementOrder/<list>` directive gives the order. Directives: `$patch: replace|delete` on a map,
// `$patch: delete|replace` as a list element, `$retainKeys`, `$setElementOrder/<list>`,
// `$deleteFromPrimitiveList/<list>`. `$patch: merge` is refused as the server refuses it.
//
// Errors carry the server's words and codes: malformed directives are 400, "lists of lists" is the
// generic 422, anything else the Go code reports (bad `$patch`, missing merge key) is a 500.
//
// One deliberate difference: the server decodes the result into the Go type, which turns a `null`
// inside a value taken from the patch into the zero value; this module drops such nulls instead.

import { goValue } from '../crd/go-format.ts';
import { cloneJson, isJsonObject, type JsonObject } from '../meta/object.ts';
import { goString, jsonKindName, reflectTypeString, sameGoType } from './go-format.ts';
import { dropNullMembers, hasOwn, setOwn } from './json-value.ts';
import { childSchema, type ListSchema, type PatchSchema, type SchemaNode } from './schema.ts';
import { badRequest, genericInvalid, unwrappedError } from './status.ts';

const directiveMarker = '$patch';
const retainKeysDirective = '$retainKeys';
const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';
const setElementOrderPrefix = '$setElementOrder';

const mapType = 'map[string]interface {}';
const sliceType = '[]interface {}';

const errBadArgType = (expected: string, actual: unknown) => unwrappedError(`expected a ${expected}, but received a ${reflectTypeString(actual)}`);
const errNoMergeKey = (m: JsonObject, key: string) => unwrappedError(`map: ${goValue(m)} does not contain declared merge key: ${key}`);
const errBadPatchType = (directive: unknown, m: JsonObject) => unwrappedError(`unknown patch type: ${goString(directive)} in map: ${goValue(m)}`);

type ElementKind = 'map' | 'scalar';

/** Applies a strategic merge patch (already parsed from JSON) to `original`, returning a new document. */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: PatchSchema): unknown {
  const document = isJsonObject(original) ? cloneJson(original) : {};
  if (patch === null) return document;
  if (!isJsonObject(patch)) throw badRequest(`json: cannot unmarshal ${jsonKindName(patch)} into Go value of type ${mapType}`);
  return mergeMap(document, cloneJson(patch), schema);
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: SchemaNode | undefined): JsonObject {
  if (hasOwn(patch, directiveMarker)) return mapDirective(patch[directiveMarker], patch);
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, schema);
  for (const [patchKey, patchValue] of Object.entries(patch)) {
    let key = patchKey;
    const isDeleteList = patchKey.startsWith(deleteFromPrimitiveListPrefix);
    if (isDeleteList) key = directiveTarget(patchKey, deleteFromPrimitiveListPrefix, 'invalid patch format of primitive list') || patchKey;
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const current = hasOwn(original, key) ? original[key] : undefined;
    if (current === undefined || !sameGoType(current, patchValue)) {
      if (!isDeleteList) setOwn(original, key, taken(patchValue));
      continue;
    }
    const field = childSchema(schema, key);
    if (isJsonObject(current)) {
      const replaces = field?.type === 'struct' && field.patchStrategy === 'replace';
      setOwn(original, key, replaces ? taken(patchValue) : mergeMap(current, patchValue as JsonObject, field));
    } else if (Array.isArray(current)) {
      setOwn(original, key, mergeListField(current, patchValue as unknown[], field, isDeleteList));
    } else {
      setOwn(original, key, patchValue);
    }
  }
  return original;
}

/** A value copied from the patch: nulls inside it mean nothing (see the header). */
const taken = dropNullMembers;

function mapDirective(directive: unknown, patch: JsonObject): JsonObject {
  if (directive === 'replace') {
    delete patch[directiveMarker];
    return taken(patch);
  }
  if (directive === 'delete') return {};
  throw errBadPatchType(directive, patch);
}

/** The list a `$prefix/<list>` directive names; a malformed key is a 400. */
function directiveTarget(key: string, prefix: string, malformed: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) throw badRequest(malformed);
  return key.slice(slash + 1);
}

/** `$retainKeys`: every patched key must be listed, and unlisted keys are cleared from the original. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasOwn(patch, retainKeysDirective)) return;
  const retain = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retain)) throw badRequest('invalid patch format of retainKeys');
  const retained = new Set(retain);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(deleteFromPrimitiveListPrefix) || key.startsWith(setElementOrderPrefix)) continue;
    if (!retained.has(key)) throw badRequest('invalid patch format of retainKeys');
  }
  for (const key of Object.keys(original)) {
    if (!retained.has(key)) delete original[key];
  }
}

/** `$setElementOrder/<list>`: merges the list now and orders it as the directive says. */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, schema: SchemaNode | undefined): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(setElementOrderPrefix)) continue;
    const order = patch[directiveKey];
    delete patch[directiveKey];
    if (!Array.isArray(order)) throw errBadArgType(sliceType, order);
    const key = directiveTarget(directiveKey, setElementOrderPrefix, 'invalid patch format of setElementOrder list');
    const originalList = hasOwn(original, key) ? original[key] : undefined;
    const patchList = hasOwn(patch, key) ? patch[key] : undefined;
    if (originalList !== undefined && !Array.isArray(originalList)) throw errBadArgType(sliceType, originalList);
    if (patchList !== undefined && !Array.isArray(patchList)) throw errBadArgType(sliceType, patchList);
    const field = childSchema(schema, key);
    const mergeKey = field?.type === 'list' ? (field.patchMergeKey ?? '') : '';
    validateOrder(patchList ?? [], order, mergeKey);

    let merged: unknown[];
    if (originalList && patchList) merged = mergeListField(originalList, patchList, field, false);
    else if (originalList) merged = originalList;
    else if (patchList) merged = taken(patchList);
    else continue;

    const [ordered, serverOnly] = partition(merged, order, mergeKey);
    const kind = elementKind([originalList ?? [], patchList ?? []]);
    setOwn(original, key, normalizeElementOrder(ordered, serverOnly, order, originalList ?? [], mergeKey, kind));
    delete patch[key];
  }
}

/** The patch list may only name items the order names, in the same relative order. */
function validateOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? splitDeletions(patchList)[0] : patchList;
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p];
    if (isJsonObject(item) && hasOwn(item, directiveMarker)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(item, order[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw unwrappedError(`The order in patch list:\n${goValue(patchList)}\n doesn't match ${setElementOrderPrefix} list:\n${goValue(order)}\n`);
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  if (!isJsonObject(left)) throw errBadArgType(mapType, left);
  if (!isJsonObject(right)) throw errBadArgType(mapType, right);
  if (!hasOwn(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!hasOwn(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

function mergeListField(original: unknown[], patch: unknown[], field: SchemaNode | undefined, isDeleteList: boolean): unknown[] {
  if (field?.type === 'list' && field.patchStrategy === 'merge') return mergeList(original, patch, field, isDeleteList);
  return taken(patch);
}

function mergeList(original: unknown[], patch: unknown[], list: ListSchema, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind([original, patch]);
  const mergeKey = list.patchMergeKey ?? '';
  let base = original;
  let patchItems = patch;
  let merged: unknown[];
  if (kind === 'scalar') {
    if (isDeleteList) return original.filter((v) => !patch.includes(v));
    merged = [...new Set([...original, ...patch])];
  } else {
    if (!mergeKey) throw unwrappedError(`cannot merge lists without merge key for ${list.items ? 'struct' : 'string'}`);
    [base, patchItems] = applyListDirectives(original, patch as JsonObject[], mergeKey);
    merged = mergeByKey(base, patchItems as JsonObject[], mergeKey, list.items);
  }
  const [inPatch, serverOnly] = partition(merged, patchItems, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, patchItems, base, mergeKey, kind);
}

/** Elements carrying `$patch`: `delete` removes the matching items, `replace` makes the plain elements the list. */
function applyListDirectives(original: unknown[], patch: JsonObject[], mergeKey: string): [unknown[], JsonObject[]] {
  const plain: JsonObject[] = [];
  let base = original;
  let replace = false;
  for (const element of patch) {
    if (!hasOwn(element, directiveMarker)) {
      plain.push(element);
      continue;
    }
    const directive = element[directiveMarker];
    if (directive === 'delete') {
      if (!hasOwn(element, mergeKey)) throw errNoMergeKey(element, mergeKey);
      base = base.filter((item) => !(isJsonObject(item) && hasOwn(item, mergeKey) && item[mergeKey] === element[mergeKey]));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw unwrappedError('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, element);
    }
  }
  return replace ? [taken(plain), []] : [base, plain];
}

function mergeByKey(base: unknown[], patch: JsonObject[], mergeKey: string, items: SchemaNode | undefined): unknown[] {
  const merged = base.slice();
  for (const element of patch) {
    if (!hasOwn(element, mergeKey)) throw errNoMergeKey(element, mergeKey);
    const index = merged.findIndex((item) => isJsonObject(item) && hasOwn(item, mergeKey) && item[mergeKey] === element[mergeKey]);
    if (index >= 0) merged[index] = mergeMap(merged[index] as JsonObject, element, items);
    else merged.push(taken(element));
  }
  return merged;
}

/** The kind shared by all elements; mixed kinds and lists of lists are errors. */
function elementKind(lists: unknown[][]): ElementKind {
  const elements = lists.flat();
  const [first] = elements;
  if (elements.length === 0) throw unwrappedError('no elements in any of the given slices');
  if (Array.isArray(first)) throw genericInvalid();
  const type = reflectTypeString(first);
  if (elements.some((e) => reflectTypeString(e) !== type)) throw unwrappedError(`list element types are not identical: ${goValue(lists)}`);
  return isJsonObject(first) ? 'map' : 'scalar';
}

/** Splits `items` into those the `by` list names (by value, or by merge key) and the others. */
function partition(items: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const named: unknown[] = [];
  const others: unknown[] = [];
  for (const item of items) {
    let found: boolean;
    if (!mergeKey) {
      found = by.includes(item);
    } else {
      if (!isJsonObject(item)) throw errBadArgType(mapType, item);
      if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      found = findByKey(by, mergeKey, item[mergeKey]);
    }
    (found ? named : others).push(item);
  }
  return [named, others];
}

function findByKey(list: unknown[], mergeKey: string, value: unknown): boolean {
  for (const [index, element] of list.entries()) {
    if (!isJsonObject(element)) throw unwrappedError(`value for key ${index} is not a map`);
    if (hasOwn(element, mergeKey) && element[mergeKey] === value) return true;
  }
  return false;
}

/** Sorts each part by its own order, then interleaves the server-only items by their live positions. */
function normalizeElementOrder(
  inPatch: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: ElementKind,
): unknown[] {
  const patchSorted = sortByOrder(inPatch, patchOrder, mergeKey, kind);
  const serverSorted = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  const positionOf = (item: unknown): number => indexIn(serverOrder, item, mergeKey, kind);
  const result: unknown[] = [];
  let s = 0;
  let p = 0;
  while (s < serverSorted.length || p < patchSorted.length) {
    if (s >= serverSorted.length) result.push(patchSorted[p++]);
    else if (p >= patchSorted.length) result.push(serverSorted[s++]);
    else {
      const serverAt = positionOf(serverSorted[s]);
      const patchAt = positionOf(patchSorted[p]);
      // A server item goes first only if both are live items and it was before.
      if (serverAt >= 0 && patchAt >= 0 && serverAt < patchAt) result.push(serverSorted[s++]);
      else result.push(patchSorted[p++]);
    }
  }
  return result;
}

/** Stable sort by position in `order`; `$patch: delete` elements go last. */
function sortByOrder(items: unknown[], order: unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  let kept = items;
  let deletions: unknown[] = [];
  if (kind === 'map') {
    for (const item of [...items, ...order]) {
      if (!isJsonObject(item)) throw errBadArgType(mapType, item);
      if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
    [kept, deletions] = splitDeletions(items);
  }
  const positioned = kept.map((item) => ({ item, at: indexIn(order, item, mergeKey, kind) }));
  positioned.sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : 0));
  return [...positioned.map((p) => p.item), ...deletions];
}

function splitDeletions(list: unknown[]): [unknown[], unknown[]] {
  const kept: unknown[] = [];
  const deletions: unknown[] = [];
  for (const item of list) {
    if (!isJsonObject(item)) throw errBadArgType(mapType, item);
    (item[directiveMarker] === 'delete' ? deletions : kept).push(item);
  }
  return [kept, deletions];
}

function indexIn(list: unknown[], value: unknown, mergeKey: string, kind: ElementKind): number {
  if (kind !== 'map') return list.indexOf(value);
  const keyOf = (item: unknown): unknown => (isJsonObject(item) && hasOwn(item, mergeKey) ? item[mergeKey] : null);
  const wanted = keyOf(value);
  return list.findIndex((item) => keyOf(item) === wanted);
}
