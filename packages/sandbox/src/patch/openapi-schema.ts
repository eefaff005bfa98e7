// Merge metadata of a custom resource, read from its CRD's structural schema (`openAPIV3Schema`),
// for server-side apply: `x-kubernetes-list-type` / `-list-map-keys` (key defaults from the item
// schema), `x-kubernetes-map-type`, properties as struct fields, `additionalProperties` as map
// values, and `x-kubernetes-preserve-unknown-fields` without properties as a deduced value.
// Custom resources take no strategic merge patch, so no patch strategies are read.

import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { objectMetaSchema } from './builtin-schemas.ts';
import { deducedSchema, type ListSchema, type PatchSchema, type SchemaNode } from './schema.ts';

/** The PatchSchema of a custom resource whose CRD version has `openAPIV3Schema`. */
export function patchSchemaFromOpenAPI(openAPIV3Schema: JsonObject): PatchSchema {
  const root = nodeOf(openAPIV3Schema);
  const fields = root?.type === 'struct' ? root.fields : {};
  return { type: 'struct', fields: { ...fields, metadata: objectMetaSchema } };
}

function nodeOf(schema: unknown): SchemaNode | undefined {
  if (!isJsonObject(schema)) return undefined;
  if (schema.type === 'array') return listOf(schema);
  if (schema.type !== 'object' && !isJsonObject(schema.properties) && !isJsonObject(schema.additionalProperties)) {
    return schema['x-kubernetes-preserve-unknown-fields'] === true ? deducedSchema : undefined;
  }
  const atomic = schema['x-kubernetes-map-type'] === 'atomic' ? ({ atomic: true } as const) : {};
  if (isJsonObject(schema.properties)) {
    const fields: Record<string, SchemaNode> = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      const node = nodeOf(property);
      if (node) fields[name] = node;
    }
    return { type: 'struct', fields, ...atomic };
  }
  if (isJsonObject(schema.additionalProperties)) {
    const values = nodeOf(schema.additionalProperties);
    return values ? { type: 'map', values, ...atomic } : { type: 'map', ...atomic };
  }
  return schema['x-kubernetes-preserve-unknown-fields'] === true ? deducedSchema : { type: 'struct', fields: {}, ...atomic };
}

function listOf(schema: JsonObject): ListSchema {
  const listType = schema['x-kubernetes-list-type'];
  const items = nodeOf(schema.items);
  if (listType === 'set') return { type: 'list', listType: 'set' };
  if (listType !== 'map') return { type: 'list', listType: 'atomic' };
  const keys = Array.isArray(schema['x-kubernetes-list-map-keys']) ? schema['x-kubernetes-list-map-keys'].filter((k): k is string => typeof k === 'string') : [];
  const itemProperties = isJsonObject(schema.items) && isJsonObject(schema.items.properties) ? schema.items.properties : {};
  const keyDefaults: Record<string, unknown> = {};
  for (const key of keys) {
    const property = itemProperties[key];
    if (isJsonObject(property) && property.default !== undefined) keyDefaults[key] = property.default;
  }
  return {
    type: 'list',
    listType: 'map',
    listMapKeys: keys,
    ...(Object.keys(keyDefaults).length ? { keyDefaults } : {}),
    ...(items ? { items } : {}),
  };
}
