// A CRD's openAPIV3Schema compiled once into a typed tree. The tree serves both the structural
// algorithms (pruning, defaulting, list types, embedded resources) and kube-openapi's value
// validation; patterns are compiled here so validating many objects does not recompile them.

import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { compileGoRegexp } from './go-regexp.ts';
import { isSupportedStringFormat } from './formats.ts';

export interface AdditionalProperties {
  /** `additionalProperties: false` is the only case where this is false. */
  readonly allows: boolean;
  readonly schema: SchemaNode | undefined;
}

export interface SchemaNode {
  /** The declared `type`, or '' when absent. */
  readonly type: string;
  /** The types the value validator accepts: `[type]`, `['integer','string']` for int-or-string, or none. */
  readonly validatorTypes: readonly string[];
  /** The format the value validator sees: formats the real server does not support are dropped. */
  readonly format: string;
  readonly nullable: boolean;
  readonly hasDefault: boolean;
  readonly default: unknown;
  readonly enum: readonly unknown[] | undefined;
  readonly maximum: number | undefined;
  readonly exclusiveMaximum: boolean;
  readonly minimum: number | undefined;
  readonly exclusiveMinimum: boolean;
  readonly multipleOf: number | undefined;
  readonly maxLength: number | undefined;
  readonly minLength: number | undefined;
  readonly pattern: string;
  /** The compiled pattern, or the compile error text. */
  readonly patternRegexp: RegExp | string | undefined;
  readonly maxItems: number | undefined;
  readonly minItems: number | undefined;
  readonly uniqueItems: boolean;
  readonly maxProperties: number | undefined;
  readonly minProperties: number | undefined;
  readonly required: readonly string[];
  /** Properties in sorted key order (the order the real server persists a schema in). */
  readonly properties: ReadonlyMap<string, SchemaNode> | undefined;
  readonly additionalProperties: AdditionalProperties | undefined;
  readonly items: SchemaNode | undefined;
  readonly allOf: readonly SchemaNode[];
  readonly anyOf: readonly SchemaNode[];
  readonly oneOf: readonly SchemaNode[];
  readonly not: SchemaNode | undefined;
  readonly preserveUnknownFields: boolean;
  readonly embeddedResource: boolean;
  readonly intOrString: boolean;
  readonly listType: string | undefined;
  readonly listMapKeys: readonly string[];
}

/** A compiled `openAPIV3Schema`; build it once per CRD version and reuse it for every object. */
export interface CompiledSchema {
  readonly root: SchemaNode;
}

export function compileSchema(openAPIV3Schema: unknown): CompiledSchema {
  return { root: compileNode(isJsonObject(openAPIV3Schema) ? openAPIV3Schema : {}) };
}

export function compileNode(raw: JsonObject): SchemaNode {
  const type = typeof raw.type === 'string' ? raw.type : '';
  const intOrString = raw['x-kubernetes-int-or-string'] === true;
  const pattern = typeof raw.pattern === 'string' ? raw.pattern : '';
  return {
    type,
    validatorTypes: intOrString ? ['integer', 'string'] : type ? [type] : [],
    format: supportedFormat(raw.format),
    nullable: raw.nullable === true,
    hasDefault: 'default' in raw && raw.default !== null && raw.default !== undefined,
    default: raw.default,
    enum: Array.isArray(raw.enum) ? raw.enum : undefined,
    maximum: numberOrUndefined(raw.maximum),
    exclusiveMaximum: raw.exclusiveMaximum === true,
    minimum: numberOrUndefined(raw.minimum),
    exclusiveMinimum: raw.exclusiveMinimum === true,
    multipleOf: numberOrUndefined(raw.multipleOf),
    maxLength: numberOrUndefined(raw.maxLength),
    minLength: numberOrUndefined(raw.minLength),
    pattern,
    patternRegexp: pattern ? compilePattern(pattern) : undefined,
    maxItems: numberOrUndefined(raw.maxItems),
    minItems: numberOrUndefined(raw.minItems),
    uniqueItems: raw.uniqueItems === true,
    maxProperties: numberOrUndefined(raw.maxProperties),
    minProperties: numberOrUndefined(raw.minProperties),
    required: stringList(raw.required),
    properties: compileProperties(raw.properties),
    additionalProperties: compileAdditionalProperties(raw.additionalProperties),
    items: isJsonObject(raw.items) ? compileNode(raw.items) : undefined,
    allOf: compileList(raw.allOf),
    anyOf: compileList(raw.anyOf),
    oneOf: compileList(raw.oneOf),
    not: isJsonObject(raw.not) ? compileNode(raw.not) : undefined,
    preserveUnknownFields: raw['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource: raw['x-kubernetes-embedded-resource'] === true,
    intOrString,
    listType: typeof raw['x-kubernetes-list-type'] === 'string' ? raw['x-kubernetes-list-type'] : undefined,
    listMapKeys: stringList(raw['x-kubernetes-list-map-keys']),
  };
}

// The real server strips formats it does not support before validating: only string formats of
// its list survive (the numeric int32/int64/float/double are dropped too, so they check nothing).
function supportedFormat(format: unknown): string {
  return typeof format === 'string' && isSupportedStringFormat(format) ? format : '';
}

function compilePattern(pattern: string): RegExp | string {
  try {
    return compileGoRegexp(pattern);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function compileProperties(raw: unknown): ReadonlyMap<string, SchemaNode> | undefined {
  if (!isJsonObject(raw)) return undefined;
  const out = new Map<string, SchemaNode>();
  for (const key of Object.keys(raw).sort()) {
    const value = raw[key];
    out.set(key, compileNode(isJsonObject(value) ? value : {}));
  }
  return out;
}

function compileAdditionalProperties(raw: unknown): AdditionalProperties | undefined {
  if (typeof raw === 'boolean') return { allows: raw, schema: undefined };
  if (isJsonObject(raw)) return { allows: true, schema: compileNode(raw) };
  return undefined;
}

function compileList(raw: unknown): SchemaNode[] {
  return Array.isArray(raw) ? raw.filter(isJsonObject).map(compileNode) : [];
}

function numberOrUndefined(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}
