// Decoding a built-in kind drops the JSON fields its Go type does not have; the server reports them
// as `unknown field "spec.containers[0].bogusField"` (a Warning, or a 400 with Strict validation).
// This walks an object along its OpenAPI schema, removes such fields and returns their paths.

import { isJsonObject, ownMember } from '../meta/object.ts';
import type { Schema } from './schema-builders.ts';

export type Schemas = Readonly<Record<string, Schema>>;

/** A schema with its `$ref`s (and `allOf` wrappers) followed; `definition` names the last one followed. */
export function resolveSchema(schemas: Schemas, schema: Schema | undefined): { schema: Schema | undefined; definition?: string } {
  let current = schema;
  let definition: string | undefined;
  for (let depth = 0; current && depth < 8; depth++) {
    const ref = typeof current.$ref === 'string' ? current.$ref : undefined;
    const allOf = Array.isArray(current.allOf) ? (current.allOf[0] as Schema | undefined) : undefined;
    if (ref) {
      definition = ref.slice(ref.lastIndexOf('/') + 1);
      current = ownMember(schemas, definition);
    } else if (allOf) current = allOf;
    else break;
  }
  return { schema: current, ...(definition ? { definition } : {}) };
}

function walk(schemas: Schemas, schema: Schema | undefined, value: unknown, path: string, found: string[]): void {
  const s = resolveSchema(schemas, schema).schema;
  if (!s || s['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (Array.isArray(value)) {
    if (s.items) value.forEach((item, i) => walk(schemas, s.items as Schema, item, `${path}[${i}]`, found));
    return;
  }
  if (!isJsonObject(value)) return;
  const properties = isJsonObject(s.properties) ? (s.properties as Record<string, Schema>) : undefined;
  if (properties) {
    // In the order of the object's JSON as Go encodes a map (keys sorted): a patch's merged object is decoded
    // from that encoding. A create or update reorders them as its body has them (see handleUnknownFields).
    for (const key of Object.keys(value).sort()) {
      const child = path ? `${path}.${key}` : key;
      const fieldSchema = ownMember(properties, key);
      if (!fieldSchema) {
        found.push(child);
        delete value[key];
      } else {
        walk(schemas, fieldSchema, value[key], child, found);
      }
    }
    return;
  }
  if (isJsonObject(s.additionalProperties)) {
    for (const key of Object.keys(value).sort()) walk(schemas, s.additionalProperties as Schema, value[key], path ? `${path}.${key}` : key, found);
  }
}

/** Removes the fields `schemaName` does not define from `object`; returns their paths, keys in sorted order. */
export function dropUnknownFields(schemas: Schemas, schemaName: string, object: unknown): string[] {
  const found: string[] = [];
  walk(schemas, schemas[schemaName], object, '', found);
  return found;
}
