// The operations of structured-merge-diff that field ownership rests on, over plain JSON values read
// with a PatchSchema: the field set of a value, the comparison of two values, the merge of an
// applied configuration into a live object, and the removal of fields.
//
// Simplifications: every key of a struct is taken as a declared field (the schemas describe only
// fields with merge metadata, so an unknown field is not an error here); a live list whose items
// lack their keys or repeat a key is treated as atomic instead of failing; a `null` in an applied
// configuration removes the field (the typed round trip of the real server has the same effect).

import { cloneJson, isJsonObject, jsonEqual, type JsonObject } from '../meta/object.ts';
import { FieldSet, fieldElement, keyElement, pathString, valueElement, type PathElement } from './field-set.ts';
import { dropNullMembers, hasOwn, setOwn } from './json-value.ts';
import { childSchema, granularListOf, objectSchemaOf, type ListSchema, type SchemaNode } from './schema.ts';

/** A problem of an applied configuration, as structured-merge-diff words it (path, then message). */
interface ValueError {
  path: string;
  message: string;
}

type ItemElements = { ok: true; elements: PathElement[] } | { ok: false; errors: string[] };

/** The path elements of a granular list's items: keys (with defaults) for `map` lists, values for sets. */
function itemElements(list: ListSchema, items: unknown[], allowDuplicates: boolean): ItemElements {
  const elements: PathElement[] = [];
  const errors: string[] = [];
  const seen = new Set<PathElement>();
  items.forEach((item, index) => {
    let element: PathElement;
    if (list.listType === 'set') {
      element = valueElement(item);
    } else {
      if (!isJsonObject(item)) {
        errors.push(`element ${index}: associative list with keys may not have non-map elements`);
        return;
      }
      const keys: Record<string, unknown> = {};
      for (const name of list.listMapKeys ?? []) {
        const value = hasOwn(item, name) && item[name] !== null ? item[name] : list.keyDefaults?.[name];
        if (value === undefined) {
          errors.push(`element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`);
          return;
        }
        keys[name] = value;
      }
      element = keyElement(keys);
    }
    if (seen.has(element) && !allowDuplicates) errors.push(`duplicate entries for key ${pathString([element])}`);
    seen.add(element);
    elements.push(element);
  });
  if (errors.length) return { ok: false, errors };
  if (seen.size !== elements.length) return { ok: false, errors: [] };
  return { ok: true, elements };
}

/** The list problems of an applied configuration (missing keys, duplicates). */
export function appliedValueErrors(value: unknown, schema: SchemaNode | undefined): ValueError[] {
  const errors: ValueError[] = [];
  const walk = (v: unknown, node: SchemaNode | undefined, path: PathElement[]): void => {
    if (isJsonObject(v)) {
      const object = objectSchemaOf(node);
      if (object.atomic) return;
      for (const [key, child] of Object.entries(v)) walk(child, childSchema(object, key), [...path, fieldElement(key)]);
    } else if (Array.isArray(v)) {
      const list = granularListOf(node);
      if (!list) return;
      const indexed = itemElements(list, v, false);
      if (!indexed.ok) {
        errors.push(...indexed.errors.map((message) => ({ path: pathString(path), message })));
        return;
      }
      v.forEach((item, i) => walk(item, list.items, [...path, indexed.elements[i] ?? '']));
    }
  };
  walk(value, schema, []);
  return errors;
}

/**
 * The fields a value sets (structured-merge-diff's ToFieldSet): scalars, list items, atomic values,
 * map entries, and struct fields whose value is null or an empty object.
 */
export function fieldSetOf(value: JsonObject, schema: SchemaNode | undefined): FieldSet {
  const set = new FieldSet();
  const visit = (v: unknown, node: SchemaNode | undefined, path: PathElement[]): void => {
    if (isJsonObject(v)) {
      const object = objectSchemaOf(node);
      if (object.atomic) {
        set.insert(path);
        return;
      }
      for (const [key, child] of Object.entries(v)) {
        const childPath = [...path, fieldElement(key)];
        visit(child, childSchema(object, key), childPath);
        const emptyObject = isJsonObject(child) && Object.keys(child).length === 0;
        if (child === null || emptyObject || object.type === 'map') set.insert(childPath);
      }
    } else if (Array.isArray(v)) {
      const list = granularListOf(node);
      const indexed = list ? itemElements(list, v, true) : undefined;
      if (!list || !indexed?.ok) {
        set.insert(path);
        return;
      }
      v.forEach((item, i) => {
        const itemPath = [...path, indexed.elements[i] ?? ''];
        visit(item, list.items, itemPath);
        set.insert(itemPath);
      });
    } else {
      set.insert(path);
    }
  };
  visit(value, schema, []);
  return set;
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * What changed from `live` to `next` (structured-merge-diff's Compare). A value "exists" when it is
 * given, or when it is a field Go serializes even at its zero value (`present`) inside an existing
 * parent: filling such a field in adds what is inside it, not the field itself.
 */
export function compareValues(live: JsonObject, next: JsonObject, schema: SchemaNode | undefined): Comparison {
  const result: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  const exists = (value: unknown, node: SchemaNode | undefined, parentExists: boolean): boolean =>
    value !== undefined || (parentExists && node?.present === true);
  const visit = (l: unknown, r: unknown, node: SchemaNode | undefined, path: PathElement[], lExists: boolean, rExists: boolean): void => {
    let compound = false;
    if ((l === undefined || isJsonObject(l)) && (r === undefined || isJsonObject(r)) && !objectSchemaOf(node).atomic) {
      const object = objectSchemaOf(node);
      for (const key of new Set([...Object.keys(l ?? {}), ...Object.keys(r ?? {})])) {
        const lv = l && hasOwn(l, key) ? l[key] : undefined;
        const rv = r && hasOwn(r, key) ? r[key] : undefined;
        const child = childSchema(object, key);
        visit(lv, rv, child, [...path, fieldElement(key)], exists(lv, child, lExists), exists(rv, child, rExists));
      }
      compound = true;
    } else if ((l === undefined || Array.isArray(l)) && (r === undefined || Array.isArray(r))) {
      const list = granularListOf(node);
      const li = list && itemElements(list, l ?? [], true);
      const ri = list && itemElements(list, r ?? [], true);
      if (list && li?.ok && ri?.ok) {
        const left = new Map(li.elements.map((e, i) => [e, (l ?? [])[i]]));
        const right = new Map(ri.elements.map((e, i) => [e, (r ?? [])[i]]));
        for (const element of new Set([...li.elements, ...ri.elements])) {
          visit(left.get(element), right.get(element), list.items, [...path, element], left.has(element), right.has(element));
        }
        compound = true;
      }
    }
    if (path.length === 0) return;
    if (!lExists) result.added.insert(path);
    else if (!rExists) result.removed.insert(path);
    else if (!compound && !jsonEqual(l, r)) result.modified.insert(path);
  };
  visit(live, next, schema, [], true, true);
  return result;
}

/** Merges an applied configuration into a live object (structured-merge-diff's Merge). */
export function mergeApplied(live: JsonObject, applied: JsonObject, schema: SchemaNode | undefined): JsonObject {
  return mergeValue(live, applied, schema) as JsonObject;
}

function mergeValue(l: unknown, r: unknown, node: SchemaNode | undefined): unknown {
  if (isJsonObject(l) && isJsonObject(r)) {
    const object = objectSchemaOf(node);
    if (object.atomic) return dropNullMembers(cloneJson(r));
    const out = cloneJson(l);
    for (const [key, value] of Object.entries(r)) {
      if (value === null) delete out[key];
      else setOwn(out, key, hasOwn(l, key) ? mergeValue(l[key], value, childSchema(object, key)) : dropNullMembers(cloneJson(value)));
    }
    return out;
  }
  if (Array.isArray(l) && Array.isArray(r)) {
    const list = granularListOf(node);
    const li = list && itemElements(list, l, true);
    const ri = list && itemElements(list, r, true);
    if (list && li?.ok && ri?.ok) {
      return mergeItems(l, li.elements, r, ri.elements, (lv, rv) => (lv === undefined ? dropNullMembers(cloneJson(rv)) : mergeValue(lv, rv, list.items)));
    }
  }
  return dropNullMembers(cloneJson(r));
}

/**
 * structured-merge-diff's list merge order: live items stay where they are, applied items keep
 * their relative order, and items only in the applied list are placed after the live item that
 * precedes them in it (so new items end up after the live ones).
 */
function mergeItems(
  live: unknown[],
  liveElements: PathElement[],
  applied: unknown[],
  appliedElements: PathElement[],
  merge: (live: unknown, applied: unknown) => unknown,
): unknown[] {
  const liveBy = new Map(liveElements.map((e, i) => [e, live[i]]));
  const appliedBy = new Map(appliedElements.map((e, i) => [e, applied[i]]));
  const shared = appliedElements.filter((e) => liveBy.has(e));
  let sharedIndex = 0;
  const merged = new Set<PathElement>();
  const out: unknown[] = [];
  let l = 0;
  let r = 0;
  while (l < liveElements.length || r < appliedElements.length) {
    const le = liveElements[l];
    const re = appliedElements[r];
    if (le !== undefined && re !== undefined) {
      if (le === re) {
        merged.add(le);
        out.push(merge(liveBy.get(le), appliedBy.get(re)));
        l++;
        r++;
        sharedIndex++;
        continue;
      }
      const nextShared = shared[sharedIndex];
      if (appliedBy.has(le) && nextShared !== undefined && nextShared !== le) {
        // A shared item the applied list wants later: it is emitted when the applied side reaches it.
        l++;
        continue;
      }
    }
    if (le !== undefined) {
      if (!appliedBy.has(le)) {
        out.push(live[l]);
        l++;
        continue;
      }
      if (merged.has(le)) {
        l++;
        continue;
      }
    }
    if (re !== undefined) {
      merged.add(re);
      out.push(merge(liveBy.get(re), appliedBy.get(re)));
      r++;
      if (shared[sharedIndex] === re) sharedIndex++;
    }
  }
  return out;
}

/** Removes the fields and items of `set` from a value (structured-merge-diff's RemoveItems). */
export function removeFields(value: unknown, set: FieldSet, node: SchemaNode | undefined): unknown {
  if (isJsonObject(value)) {
    const object = objectSchemaOf(node);
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      const sub = set.children.get(fieldElement(key));
      if (sub?.member) continue;
      setOwn(out, key, sub ? removeFields(child, sub, childSchema(object, key)) : child);
    }
    return out;
  }
  if (Array.isArray(value)) {
    const list = granularListOf(node);
    const indexed = list && itemElements(list, value, true);
    if (!list || !indexed?.ok) return value;
    return value.flatMap((item, i) => {
      const sub = set.children.get(indexed.elements[i] ?? '');
      if (sub?.member) return [];
      return [sub ? removeFields(item, sub, list.items) : item];
    });
  }
  return value;
}

/**
 * The set plus every struct field on the way to its members (structured-merge-diff's
 * EnsureNamedFieldsAreMembers): pruning a field an applier stopped sending removes the struct field
 * itself once nobody owns anything below it.
 */
export function withNamedFields(set: FieldSet, node: SchemaNode | undefined): FieldSet {
  const out = new FieldSet();
  const walk = (from: FieldSet, schema: SchemaNode | undefined, path: PathElement[]): void => {
    for (const [element, child] of from.children) {
      const childPath = [...path, element];
      let childNode: SchemaNode | undefined;
      if (element.startsWith('f:')) {
        const object = objectSchemaOf(schema);
        childNode = childSchema(object, element.slice(2));
        if (object.type === 'struct') out.insert(childPath);
      } else {
        childNode = schema?.type === 'list' ? schema.items : undefined;
      }
      if (child.member) out.insert(childPath);
      walk(child, childNode, childPath);
    }
  };
  walk(set, node, []);
  return out;
}
