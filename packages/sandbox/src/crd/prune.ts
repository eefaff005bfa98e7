// Structural pruning, as the real server's decoder applies it to custom resources: fields the
// schema does not specify are dropped (x-kubernetes-preserve-unknown-fields keeps them), metadata
// is reduced to ObjectMeta at the root and in embedded resources, and nulls the schema does not
// allow (and cannot default) are removed.

import { cloneJson, isJsonObject } from '../meta/object.ts';
import type { CompiledSchema, SchemaNode } from './compile.ts';
import { childPath, indexPath, keyPath } from './field-path.ts';
import { reduceObjectMeta } from './object-meta.ts';

const metaFields = new Set(['apiVersion', 'kind', 'metadata']);

export interface PruneResult {
  /** A pruned copy; the input is not modified. */
  object: unknown;
  /**
   * Paths of the dropped fields in the order the real server lists them in its
   * `Warning: 299 - "unknown field \"…\""` header (or its strict-decoding error): unknown root
   * metadata fields first, then the pruned fields sorted, then unknown embedded metadata fields.
   */
  unknownFields: string[];
}

export function pruneUnknownFields(schema: CompiledSchema, obj: unknown): PruneResult {
  const object = cloneJson(obj);
  if (!isJsonObject(object)) return { object, unknownFields: [] };
  const unknownFields: string[] = [];
  if ('metadata' in object) {
    const reduced = reduceObjectMeta(object.metadata, 'metadata');
    object.metadata = reduced.metadata;
    unknownFields.push(...reduced.unknownFields);
  }
  const pruned: string[] = [];
  prune(object, schema.root, '', pruned, true);
  unknownFields.push(...pruned.sort());
  dropDisallowedNulls(object, schema.root);
  const embedded: string[] = [];
  reduceEmbeddedMetadata(object, schema.root, '', embedded);
  unknownFields.push(...embedded.sort());
  return { object, unknownFields };
}

/** A pruned copy of a value of schema `s` (a resource root keeps apiVersion, kind and metadata). */
export function prunedValue(value: unknown, s: SchemaNode, isResourceRoot: boolean): unknown {
  const copy = cloneJson(value);
  prune(copy, s, '', [], isResourceRoot || s.embeddedResource);
  return copy;
}

function prune(x: unknown, s: SchemaNode | undefined, path: string, out: string[], embedded = s?.embeddedResource ?? false): void {
  if (s?.preserveUnknownFields) {
    keepUnknown(x, s, path, out, embedded);
    return;
  }
  if (Array.isArray(x)) {
    x.forEach((item, i) => prune(item, s?.items, indexPath(path, i), out));
    return;
  }
  if (!isJsonObject(x)) return;
  for (const key of Object.keys(x)) {
    if (s && embedded && metaFields.has(key)) continue;
    const prop = s?.properties?.get(key);
    if (prop) prune(x[key], prop, childPath(path, key), out);
    else if (s?.additionalProperties) prune(x[key], s.additionalProperties.schema, childPath(path, key), out);
    else {
      delete x[key];
      out.push(childPath(path, key));
    }
  }
}

// Below x-kubernetes-preserve-unknown-fields unknown fields stay, but specified ones are pruned.
function keepUnknown(x: unknown, s: SchemaNode | undefined, path: string, out: string[], embedded = s?.embeddedResource ?? false): void {
  if (!s) return;
  if (Array.isArray(x)) {
    x.forEach((item, i) => keepUnknown(item, s.items, indexPath(path, i), out));
    return;
  }
  if (!isJsonObject(x)) return;
  for (const key of Object.keys(x)) {
    if (embedded && metaFields.has(key)) continue;
    const prop = s.properties?.get(key);
    if (prop) prune(x[key], prop, childPath(path, key), out);
    else if (s.additionalProperties) prune(x[key], s.additionalProperties.schema, childPath(path, key), out);
  }
}

// A null where the schema is not nullable and has no default is dropped (a default fills it later).
function dropDisallowedNulls(x: unknown, s: SchemaNode | undefined): void {
  if (Array.isArray(x)) {
    for (const item of x) dropDisallowedNulls(item, s?.items);
    return;
  }
  if (!isJsonObject(x)) return;
  for (const key of Object.keys(x)) {
    const fieldSchema = s?.properties?.get(key) ?? s?.additionalProperties?.schema;
    if (x[key] === null && fieldSchema && !fieldSchema.nullable && !fieldSchema.hasDefault) delete x[key];
    else dropDisallowedNulls(x[key], fieldSchema);
  }
}

function reduceEmbeddedMetadata(x: unknown, s: SchemaNode | undefined, path: string, out: string[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    x.forEach((item, i) => reduceEmbeddedMetadata(item, s.items, indexPath(path, i), out));
    return;
  }
  if (!isJsonObject(x)) return;
  if (s.embeddedResource && 'metadata' in x) {
    const reduced = reduceObjectMeta(x.metadata, childPath(path, 'metadata'));
    x.metadata = reduced.metadata;
    out.push(...reduced.unknownFields);
  }
  for (const key of Object.keys(x)) {
    const prop = s.properties?.get(key);
    if (prop) reduceEmbeddedMetadata(x[key], prop, childPath(path, key), out);
    else if (s.additionalProperties) reduceEmbeddedMetadata(x[key], s.additionalProperties.schema, keyPath(path, key), out);
  }
}
