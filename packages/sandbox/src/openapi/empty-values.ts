// What encoding a built-in kind's Go struct leaves out: every map field is `omitempty`, so an empty
// map (`labels: {}`, a nodeSelector emptied by a patch, `resources.limits: {}`) is not written, and
// neither are ObjectMeta's empty lists (finalizers, ownerReferences). This walks an object along its
// OpenAPI schema and removes such values, as decoding into the type and encoding it again would.
// Empty objects of struct types (`securityContext: {}`, `emptyDir: {}`) stay.

import { isJsonObject } from '../meta/object.ts';
import { objectMetaName } from './builtin-schemas.ts';
import type { Schema } from './schema-builders.ts';
import { resolveSchema, type Schemas } from './unknown-fields.ts';

const objectMetaLists = ['finalizers', 'ownerReferences'];

const isMapSchema = (s: Schema): boolean => isJsonObject(s.additionalProperties) && !isJsonObject(s.properties);

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
    const fieldSchema = resolveSchema(schemas, properties[key]).schema;
    if (!fieldSchema) continue;
    const emptyMap = isMapSchema(fieldSchema) && isJsonObject(field) && Object.keys(field).length === 0;
    const emptyMetaList = definition === objectMetaName && objectMetaLists.includes(key) && Array.isArray(field) && field.length === 0;
    if (emptyMap || emptyMetaList) delete value[key];
    else walk(schemas, properties[key], field);
  }
}

/** Removes from `object` the empty values its Go type (`schemaName`) would not encode. */
export function dropEmptyValues(schemas: Schemas, schemaName: string, object: unknown): void {
  walk(schemas, schemas[schemaName], object);
}
