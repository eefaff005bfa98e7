// Values of the wrong JSON type where a built-in kind's Go type has a string map (labels,
// annotations, selectors, ConfigMap and Secret data). The real server decodes into Go structs and
// refuses them; the first one in document order is the answer, worded by whichever decoder met it:
// encoding/json for a body (`json: cannot unmarshal number into Go struct field
// ObjectMeta.metadata.labels of type string`, naming the innermost struct and the JSON path without
// list indexes or map keys), the unstructured converter for a strategic merge patch, and
// structured-merge-diff for an apply. Other typed fields are not checked.

import { goValue } from '../crd/go-format.ts';
import { isJsonObject, ownMember } from '../meta/object.ts';
import { jsonKindName } from '../patch/go-format.ts';
import type { Schema } from './schema-builders.ts';
import { resolveSchema, type Schemas } from './unknown-fields.ts';

export interface TypeMismatch {
  value: unknown;
  /** The Go type the value should decode into: `string`, `[]uint8`, `map[string]string`, `map[string][]uint8`. */
  goType: string;
  /** The innermost Go struct on the way, e.g. `ObjectMeta`. */
  struct: string;
  /** The JSON path from the decoded root, without indexes or keys, e.g. `metadata.labels`. */
  field: string;
  /** structured-merge-diff's path, with keys and indexes, e.g. `.metadata.labels.team`. */
  path: string;
}

interface Location {
  struct: string;
  field: string;
  path: string;
}

/** The Go element type of a string map schema, or undefined for any other schema. */
function stringMapElement(schema: Schema): string | undefined {
  const values = schema.additionalProperties;
  if (schema.type !== 'object' || !isJsonObject(values) || values.type !== 'string') return undefined;
  return values.format === 'byte' ? '[]uint8' : 'string';
}

/** `io.k8s.api.core.v1.PodSpec` → `PodSpec`. */
const goStructName = (definition: string): string => definition.slice(definition.lastIndexOf('.') + 1);

function find(schemas: Schemas, schema: Schema | undefined, value: unknown, at: Location): TypeMismatch | undefined {
  const resolved = resolveSchema(schemas, schema);
  const s = resolved.schema;
  if (!s || s['x-kubernetes-preserve-unknown-fields'] === true || value === null || value === undefined) return undefined;
  const struct = resolved.definition ? goStructName(resolved.definition) : at.struct;
  const element = stringMapElement(s);
  if (element) {
    if (!isJsonObject(value)) return { value, goType: `map[string]${element}`, struct, field: at.field, path: at.path };
    for (const [key, item] of Object.entries(value)) {
      if (item !== null && typeof item !== 'string') return { value: item, goType: element, struct, field: at.field, path: `${at.path}.${key}` };
    }
    return undefined;
  }
  if (Array.isArray(value)) {
    if (!isJsonObject(s.items)) return undefined;
    for (const [i, item] of value.entries()) {
      const found = find(schemas, s.items as Schema, item, { struct, field: at.field, path: `${at.path}[${i}]` });
      if (found) return found;
    }
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  const properties = isJsonObject(s.properties) ? (s.properties as Record<string, Schema>) : undefined;
  for (const [key, item] of Object.entries(value)) {
    const child = properties ? ownMember(properties, key) : isJsonObject(s.additionalProperties) ? (s.additionalProperties as Schema) : undefined;
    const found = child && find(schemas, child, item, { struct, field: properties ? (at.field ? `${at.field}.${key}` : key) : at.field, path: `${at.path}.${key}` });
    if (found) return found;
  }
  return undefined;
}

/**
 * The first value of `object` that does not fit a string map of schema `schemaName`. `at` places a
 * part decoded on its own (a custom resource's metadata is decoded as an ObjectMeta by itself).
 */
export function findTypeMismatch(schemas: Schemas, schemaName: string, object: unknown, at?: Location): TypeMismatch | undefined {
  return find(schemas, schemas[schemaName], object, at ?? { struct: goStructName(schemaName), field: '', path: '' });
}

/** encoding/json's UnmarshalTypeError. */
export const jsonTypeError = (m: TypeMismatch): string =>
  `json: cannot unmarshal ${jsonKindName(m.value)} into Go struct field ${m.struct}.${m.field} of type ${m.goType}`;

/** reflect.Kind of a decoded value, as the unstructured converter names it (integers are int64). */
function reflectKind(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return Array.isArray(v) ? 'slice' : 'map';
}

/** runtime.DefaultUnstructuredConverter's FromUnstructured error. */
export function converterError(m: TypeMismatch): string {
  if (m.goType.startsWith('map')) return `cannot restore map from ${reflectKind(m.value)}`;
  if (m.goType === '[]uint8') return `cannot restore slice from ${reflectKind(m.value)}`;
  // An integer converts to a string in reflect (as a rune), which the converter refuses by name.
  return reflectKind(m.value) === 'int64' ? 'cannot convert int64 to string' : 'unrecognized type: string';
}

/** fmt's %#v of a decoded JSON value inside an interface{}. */
function goSyntax(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  if (isJsonObject(v)) return `map[string]interface {}{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${goSyntax(v[k])}`).join(', ')}}`;
  return goValue(v);
}

/** structured-merge-diff's validation error of an applied configuration. */
export function structuredMergeError(m: TypeMismatch): { path: string; message: string } {
  if (m.goType.startsWith('map')) return { path: m.path, message: `expected map, got &{${goValue(m.value)}}` };
  return { path: m.path, message: `expected string, got &value.valueUnstructured{Value:${goSyntax(m.value)}}` };
}
