// A built-in object in the order Go encodes its type: struct fields as the type declares them (the order of
// the schema's properties, transcribed from the API types), map keys sorted. Fields of types the schemas leave
// open keep the order they were written in. Orderers are compiled once per schema.

import { orderedItems, sortedMap, type OrderMarks } from '../meta/go-order.ts';
import { isJsonObject, type JsonObject } from '../meta/object.ts';
import type { Schema } from './schema-builders.ts';
import { resolveSchema, type Schemas } from './unknown-fields.ts';

/** Returns the value in encoding order: the value itself when it already is. */
export type Orderer = (value: unknown, marks: OrderMarks) => unknown;

const identity: Orderer = (value) => value;
const compiled = new WeakMap<Schemas, Map<string, Orderer>>();

/** The orderer of a named schema (a `$ref` target), compiled on first use; recursive schemas are fine. */
function named(schemas: Schemas, name: string): Orderer {
  let bySchema = compiled.get(schemas);
  if (!bySchema) compiled.set(schemas, (bySchema = new Map()));
  const known = bySchema.get(name);
  if (known) return known;
  let orderer: Orderer | undefined;
  const lazy: Orderer = (value, marks) => (orderer ??= compile(schemas, schemas[name], undefined))(value, marks);
  bySchema.set(name, lazy);
  return lazy;
}

function compile(schemas: Schemas, schema: Schema | undefined, fieldOrder: readonly string[] | undefined): Orderer {
  const { schema: s, definition } = resolveSchema(schemas, schema);
  // A reference: its target's orderer, compiled once (and so a recursive schema ends).
  if (definition !== undefined && fieldOrder === undefined) return named(schemas, definition);
  if (!s || s['x-kubernetes-preserve-unknown-fields'] === true) return identity;
  if (s.items) return listOrderer(compile(schemas, s.items as Schema, undefined));
  if (isJsonObject(s.properties)) {
    const properties = s.properties as Record<string, Schema>;
    return structOrderer(fieldOrder ?? Object.keys(properties), (field) => compile(schemas, properties[field], undefined));
  }
  if (isJsonObject(s.additionalProperties)) {
    const values = compile(schemas, s.additionalProperties as Schema, undefined);
    return (value, marks) => (isJsonObject(value) ? sortedMap(value, marks, (item) => values(item, marks)) : value);
  }
  return identity;
}

function listOrderer(items: Orderer): Orderer {
  if (items === identity) return identity;
  return (value, marks) => (Array.isArray(value) ? orderedItems(value, (item) => items(item, marks)) : value);
}

/** Fields in declaration order; fields the type does not declare (none after decoding) keep theirs, last. */
function structOrderer(fields: readonly string[], fieldOrderer: (field: string) => Orderer): Orderer {
  const position = new Map(fields.map((field, i) => [field, i]));
  const orderers = new Map<string, Orderer>();
  const ordererOf = (field: string): Orderer => {
    let orderer = orderers.get(field);
    if (!orderer) orderers.set(field, (orderer = fieldOrderer(field)));
    return orderer;
  };
  return (value, marks) => {
    if (!isJsonObject(value)) return value;
    const keys = Object.keys(value);
    let inOrder = true;
    let changed = false;
    let last = -1;
    const ordered = keys.map((key) => {
      const at = position.get(key) ?? fields.length;
      if (at < last) inOrder = false;
      last = Math.max(last, at);
      const item = value[key];
      const orderedItem = position.has(key) ? ordererOf(key)(item, marks) : item;
      if (orderedItem !== item) changed = true;
      return { key, at, item: orderedItem };
    });
    if (inOrder && !changed) return value;
    if (!inOrder) ordered.sort((a, b) => a.at - b.at);
    const out: JsonObject = {};
    for (const { key, item } of ordered) {
      if (key === '__proto__') Object.defineProperty(out, key, { value: item, writable: true, enumerable: true, configurable: true });
      else out[key] = item;
    }
    return out;
  };
}

const kindOrderers = new WeakMap<Schemas, Map<string, Orderer>>();

/**
 * The orderer of a top-level kind: TypeMeta first (its `kind`, then `apiVersion`, as Go declares them), then
 * the kind's own fields.
 */
export function kindOrderer(schemas: Schemas, schemaName: string): Orderer {
  let bySchema = kindOrderers.get(schemas);
  if (!bySchema) kindOrderers.set(schemas, (bySchema = new Map()));
  const known = bySchema.get(schemaName);
  if (known) return known;
  const s = schemas[schemaName];
  const properties = isJsonObject(s?.properties) ? Object.keys(s.properties) : [];
  const fields = ['kind', 'apiVersion', ...properties.filter((field) => field !== 'kind' && field !== 'apiVersion')];
  const orderer = compile(schemas, s, fields);
  bySchema.set(schemaName, orderer);
  return orderer;
}
