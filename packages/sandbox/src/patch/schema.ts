// The merge metadata of an API type: what the Go struct tags (`patchStrategy`, `patchMergeKey`) tell
// a strategic merge patch, and what the OpenAPI markers (`x-kubernetes-list-type`,
// `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`) tell server-side apply. Only fields that
// carry metadata need to be described: an undescribed field of a struct is a plain field (objects
// merge key by key, lists are replaced / atomic, scalars are replaced).

import { ownMember } from '../meta/object.ts';

/**
 * Go serializes the field even when it holds the zero value (a struct that is not a pointer, a list
 * or map without `omitempty`), so an empty object already has it: an Update that fills it in adds
 * what is inside, not the field itself (no `.` for it in managedFields).
 */
interface AlwaysPresent {
  readonly present?: true;
}

/** A Go struct: named fields. */
export interface StructSchema extends AlwaysPresent {
  readonly type: 'struct';
  readonly fields: Readonly<Record<string, SchemaNode>>;
  /** `patchStrategy:"replace"`: a strategic merge patch replaces the whole object. */
  readonly patchStrategy?: 'replace';
  /** `patchStrategy:"retainKeys"` (documentation of the Go tag; `$retainKeys` works on any map). */
  readonly retainKeys?: true;
  /** `+structType=atomic`: server-side apply owns and replaces it as a whole. */
  readonly atomic?: true;
}

/** A Go map (`map[string]T`): the keys are data (labels, ConfigMap data, resource lists). */
export interface MapSchema extends AlwaysPresent {
  readonly type: 'map';
  /** The schema of every value; absent for scalar values. */
  readonly values?: SchemaNode;
  /** `+mapType=atomic` (nodeSelector, Service selector). */
  readonly atomic?: true;
}

export interface ListSchema extends AlwaysPresent {
  readonly type: 'list';
  /** `patchStrategy:"merge"`: scalars merge as a set, objects merge on `patchMergeKey`. */
  readonly patchStrategy?: 'merge' | 'replace';
  readonly patchMergeKey?: string;
  /** `patchStrategy:"merge,retainKeys"` (documentation of the Go tag). */
  readonly retainKeys?: true;
  /** `x-kubernetes-list-type`; a list without one is atomic. */
  readonly listType?: 'atomic' | 'set' | 'map';
  /** `x-kubernetes-list-map-keys` of a `map` list. */
  readonly listMapKeys?: readonly string[];
  /** Defaults of key fields, used by server-side apply when an element omits one (ports: protocol TCP). */
  readonly keyDefaults?: Readonly<Record<string, unknown>>;
  readonly items?: SchemaNode;
}

export type SchemaNode = StructSchema | MapSchema | ListSchema;

/** The merge metadata of one kind: the schema of its top-level object. */
export type PatchSchema = StructSchema;

/** A struct whose fields carry no metadata: what an undescribed field of a described type is. */
export const plainStruct: StructSchema = { type: 'struct', fields: {} };

/** What structured-merge-diff deduces for a value without a schema: objects are maps, lists atomic. */
export const deducedSchema: MapSchema = (() => {
  const node: { type: 'map'; values?: SchemaNode } = { type: 'map' };
  node.values = node;
  return node;
})();

/** The schema of a child value: a declared field, a map value, or a plain field. */
export function childSchema(node: SchemaNode | undefined, key: string): SchemaNode | undefined {
  if (node?.type === 'struct') return ownMember(node.fields, key);
  if (node?.type === 'map') return node.values;
  return undefined;
}

/** The schema an object value is read with (a list schema or none means a plain struct). */
export const objectSchemaOf = (node: SchemaNode | undefined): StructSchema | MapSchema =>
  node && node.type !== 'list' ? node : plainStruct;

/** The list schema of a granular list, or undefined for an atomic one. */
export const granularListOf = (node: SchemaNode | undefined): ListSchema | undefined =>
  node?.type === 'list' && (node.listType === 'set' || node.listType === 'map') ? node : undefined;

// Builders, so that the per-kind tables read like the Go struct tags they transcribe.

export const struct = (fields: Record<string, SchemaNode>, extra: Omit<StructSchema, 'type' | 'fields'> = {}): StructSchema => ({
  type: 'struct',
  fields,
  ...extra,
});

export const mapOf = (values?: SchemaNode): MapSchema => (values ? { type: 'map', values } : { type: 'map' });

export const atomicMap: MapSchema = { type: 'map', atomic: true };

export const atomicStruct = (fields: Record<string, SchemaNode> = {}): StructSchema => ({ type: 'struct', fields, atomic: true });

/** `patchStrategy:"merge" patchMergeKey:"<key>"` with `+listType=map` on `listMapKeys` (defaults to the merge key). */
export function mergeList(
  mergeKey: string,
  items: SchemaNode,
  options: { listMapKeys?: readonly string[]; keyDefaults?: Record<string, unknown>; retainKeys?: true; listType?: 'atomic' | 'map' } = {},
): ListSchema {
  const listType = options.listType ?? 'map';
  return {
    type: 'list',
    patchStrategy: 'merge',
    patchMergeKey: mergeKey,
    listType,
    ...(listType === 'map' ? { listMapKeys: options.listMapKeys ?? [mergeKey] } : {}),
    ...(options.keyDefaults ? { keyDefaults: options.keyDefaults } : {}),
    ...(options.retainKeys ? { retainKeys: true as const } : {}),
    items,
  };
}

/** The node, marked as serialized even when zero (see AlwaysPresent). */
export const present = <T extends SchemaNode>(node: T): T => ({ ...node, present: true });

/** `patchStrategy:"merge"` on a list of scalars with `+listType=set` (finalizers, podCIDRs). */
export const mergeSet: ListSchema = { type: 'list', patchStrategy: 'merge', listType: 'set' };

/** `+listType=set` without a strategic merge strategy (replaced by a strategic merge patch). */
export const set: ListSchema = { type: 'list', listType: 'set' };

/** `+listType=map` without a strategic merge strategy. */
export const keyedList = (listMapKeys: readonly string[], items: SchemaNode = plainStruct): ListSchema => ({
  type: 'list',
  listType: 'map',
  listMapKeys,
  items,
});

/** A list without metadata: replaced by a strategic merge patch, atomic for server-side apply. */
export const atomicList: ListSchema = { type: 'list', listType: 'atomic' };
