// What encoding a built-in kind's Go struct leaves out: every map field is `omitempty`, so an empty
// map (`labels: {}`, a nodeSelector emptied by a patch, `resources.limits: {}`) is not written, and
// neither are ObjectMeta's empty lists (finalizers, ownerReferences). This walks an object along its
// OpenAPI schema and removes such values, as decoding into the type and encoding it again would.
// Empty objects of struct types (`securityContext: {}`, `emptyDir: {}`) stay. The same round trip turns
// a null in a string map (`labels: {"a": null}`) into the empty string: Go decodes a null into a string
// as nothing, and the map keeps the key with the zero value.

import { isJsonObject, ownMember } from '../meta/object.ts';
import { objectMetaName } from './builtin-schemas.ts';
import type { Schema } from './schema-builders.ts';
import { resolveSchema, type Schemas } from './unknown-fields.ts';

const objectMetaLists = ['finalizers', 'ownerReferences'];

const isMapSchema = (s: Schema): boolean => isJsonObject(s.additionalProperties) && !isJsonObject(s.properties);
/** map[string]string; not map[string][]byte, whose null element stays nil. */
const isStringMapSchema = (s: Schema): boolean => isMapSchema(s) && (s.additionalProperties as Schema).type === 'string' && (s.additionalProperties as Schema).format !== 'byte';

function walk(schemas: Schemas, schema: Schema | undefined, value: unknown): void {
  const { schema: s, definition } = resolveSchema(schemas, schema);
  if (!s || s['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (Array.isArray(value)) {
    if (s.items) for (const item of value) walk(schemas, s.items as Schema, item);
    return;
  }
  if (!isJsonObject(value) || !isJsonObject(s.properties)) return;
  const properties = s.properties as Record<string, Schema>;
  for (const [key, field] of Object.entries(value)) {
    const fieldSchema = resolveSchema(schemas, ownMember(properties, key)).schema;
    if (!fieldSchema) continue;
    const emptyMap = isMapSchema(fieldSchema) && isJsonObject(field) && Object.keys(field).length === 0;
    const emptyMetaList = definition === objectMetaName && objectMetaLists.includes(key) && Array.isArray(field) && field.length === 0;
    if (emptyMap || emptyMetaList) delete value[key];
    else if (isStringMapSchema(fieldSchema) && isJsonObject(field)) {
      for (const [mapKey, item] of Object.entries(field)) if (item === null) field[mapKey] = '';
    } else walk(schemas, ownMember(properties, key), field);
  }
}

/** Removes from `object` the empty values its Go type (`schemaName`) would not encode. */
export function dropEmptyValues(schemas: Schemas, schemaName: string, object: unknown): void {
  walk(schemas, schemas[schemaName], object);
}
