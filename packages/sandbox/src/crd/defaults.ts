// Structural defaulting as the apiextensions server applies it on every decode (requests and
// reads from storage): a missing field, or a null one the schema does not allow, takes its
// `default`; defaulting then continues inside the values, so defaults nest.

import { cloneJson, isJsonObject, ownMember } from '../meta/object.ts';
import { setOwn } from '../patch/json-value.ts';
import type { CompiledSchema, SchemaNode } from './compile.ts';

/** Returns a defaulted copy of `obj`; the input is not modified. */
export function applySchemaDefaults(schema: CompiledSchema, obj: unknown): unknown {
  const object = cloneJson(obj);
  applyDefaults(object, schema.root);
  return object;
}

const isDisallowedNull = (x: unknown, s: SchemaNode | undefined): s is SchemaNode => x === null && s !== undefined && !s.nullable;

function applyDefaults(x: unknown, s: SchemaNode | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      if (isDisallowedNull(x[i], s.items) && s.items.hasDefault) x[i] = cloneJson(s.items.default);
      applyDefaults(x[i], s.items);
    }
    return;
  }
  if (!isJsonObject(x)) return;
  for (const [key, prop] of s.properties ?? []) {
    const value = ownMember(x, key);
    if (prop.hasDefault && (value === undefined || isDisallowedNull(value, prop))) setOwn(x, key, cloneJson(prop.default));
  }
  const additional = s.additionalProperties?.schema;
  for (const key of Object.keys(x)) {
    const prop = s.properties?.get(key);
    if (prop) applyDefaults(x[key], prop);
    else if (s.additionalProperties) {
      if (isDisallowedNull(x[key], additional) && additional.hasDefault) x[key] = cloneJson(additional.default);
      applyDefaults(x[key], additional);
    }
  }
}
