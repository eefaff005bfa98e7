// The checks of `default` values in a structural schema (structuraldefaulting.ValidateDefaults):
// a default must not contain fields pruning would drop, embedded resources in it must be valid,
// and it must validate against the schema of its own node.

import { fieldInvalid, type FieldError } from '../errors.ts';
import { isJsonObject, jsonEqual, type JsonObject } from '../meta/object.ts';
import { compileNode } from './compile.ts';
import { embeddedResourceErrors } from './embedded-resources.ts';
import { childPath, keyPath } from './field-path.ts';
import { prunedValue } from './prune.ts';
import { schemaFieldErrors } from './schema-validator.ts';

const metaFields = new Set(['metadata', 'apiVersion', 'kind']);

/** Errors of the defaults in `schema` (the openAPIV3Schema at `path`). */
export function defaultValueErrors(schema: JsonObject, path: string): FieldError[] {
  return nodeErrors(schema, path, true, false);
}

function nodeErrors(s: JsonObject, path: string, isResourceRoot: boolean, insideMeta: boolean): FieldError[] {
  const embedded = isResourceRoot || s['x-kubernetes-embedded-resource'] === true;
  const errs: FieldError[] = [];
  // Defaults of metadata fields are forbidden at the root and are not checked further here.
  if (!(insideMeta && !embedded) && s.default !== undefined && s.default !== null) {
    const node = compileNode(s);
    const defaultPath = childPath(path, 'default');
    if (!jsonEqual(prunedValue(s.default, node, node.embeddedResource), s.default)) {
      errs.push(fieldInvalid(defaultPath, s.default, 'must not have unknown fields'));
    }
    const embeddedErrs = embeddedResourceErrors(node, s.default, defaultPath);
    errs.push(...(embeddedErrs.length ? embeddedErrs : schemaFieldErrors(node, s.default, defaultPath)));
  }
  if (isJsonObject(s.items)) errs.push(...nodeErrors(s.items, childPath(path, 'items'), false, insideMeta));
  const properties = isJsonObject(s.properties) ? s.properties : {};
  for (const key of Object.keys(properties).sort()) {
    const prop = properties[key];
    if (!isJsonObject(prop)) continue;
    const propInsideMeta = embedded ? metaFields.has(key) : insideMeta;
    errs.push(...nodeErrors(prop, keyPath(childPath(path, 'properties'), key), false, propInsideMeta));
  }
  return errs;
}
