// Value validation of JSON against a compiled schema, with the semantics and messages of
// kube-openapi's SchemaValidator that the real apiextensions server runs: the same validator
// chain per node, the same "match count" that picks which failing anyOf/oneOf branch to report,
// the same de-duplication of identical messages, and the same conversion to field errors.

import { fieldRequired, type FieldError } from '../errors.ts';
import { isJsonObject, jsonEqual, ownMember } from '../meta/object.ts';
import type { SchemaNode } from './compile.ts';
import { childPath } from './field-path.ts';
import { matchesFormat } from './formats.ts';
import { goFloat, goQuote } from './go-format.ts';

type IssueCode =
  | 'invalidType'
  | 'required'
  | 'tooLong'
  | 'enum'
  | 'maxItems'
  | 'tooManyProperties'
  | 'invalid'
  | 'composite';

/** One kube-openapi error: `name` is its dotted path, `message` the full sentence. */
interface Issue {
  readonly code: IssueCode;
  readonly name: string;
  readonly value: unknown;
  readonly message: string;
  readonly allowed?: readonly unknown[];
  readonly limit?: number;
}

interface Result {
  readonly issues: Issue[];
  matchCount: number;
}

type ValueKind = 'bool' | 'string' | 'int' | 'float' | 'slice' | 'map';

const newResult = (matchCount = 0): Result => ({ issues: [], matchCount });

const failure = (issue: Issue): Result => ({ issues: [issue], matchCount: 0 });

// Identical messages are reported once, as kube-openapi's Result.AddErrors does.
function addIssue(r: Result, issue: Issue): void {
  if (!r.issues.some((i) => i.message === issue.message)) r.issues.push(issue);
}

function merge(r: Result, other: Result | undefined): void {
  if (!other) return;
  for (const issue of other.issues) addIssue(r, issue);
  r.matchCount += other.matchCount;
}

const isValid = (r: Result): boolean => r.issues.length === 0;

function kindOf(data: unknown): ValueKind {
  if (typeof data === 'boolean') return 'bool';
  if (typeof data === 'string') return 'string';
  if (typeof data === 'number') return Number.isInteger(data) && Math.abs(data) < 2 ** 63 ? 'int' : 'float';
  return Array.isArray(data) ? 'slice' : 'map';
}

// The JSON type and format kube-openapi infers from a decoded Go value.
const schemaTypeOf: Record<ValueKind, string> = { bool: 'boolean', string: 'string', int: 'integer', float: 'number', slice: 'array', map: 'object' };
const goFormatOf: Record<ValueKind, string> = { bool: '', string: '', int: 'int64', float: 'double', slice: '', map: '' };

const invalidType = (name: string, typeName: string, actual: string): Issue => ({
  code: 'invalidType',
  name,
  value: actual,
  message: `${name} in body must be of type ${typeName}: ${goQuote(actual)}`,
});

const composite = (message: string): Issue => ({ code: 'composite', name: '', value: '', message });

function validateType(s: SchemaNode, data: unknown, path: string): Result {
  if (data === null || data === undefined) {
    if (s.validatorTypes.length > 0 && !s.validatorTypes.includes('null') && !s.nullable) {
      return failure(invalidType(path, s.validatorTypes.join(','), 'null'));
    }
    return newResult(1);
  }
  const kind = kindOf(data);
  const schType = schemaTypeOf[kind];
  const format = goFormatOf[kind];
  const types = s.validatorTypes;
  const isIntFloat = schType === 'integer' && types.includes('number');
  if (kind !== 'string' && kind !== 'slice' && s.format && !(types.includes(schType) || format === s.format || isIntFloat)) {
    return failure(invalidType(path, s.format, format));
  }
  if (!(types.includes('number') || types.includes('integer')) && s.format && (kind === 'string' || kind === 'slice')) {
    return newResult(1);
  }
  if (!(types.includes(schType) || isIntFloat)) return failure(invalidType(path, types.join(','), schType));
  return newResult(1);
}

function validateCombinators(s: SchemaNode, data: unknown, path: string): Result {
  const main = newResult();
  const quoted = goQuote(path);
  if (s.anyOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    for (const sub of s.anyOf) {
      const r = validateValue(sub, data, path);
      if (isValid(r)) {
        best = undefined;
        firstSuccess = r;
        break;
      }
      if (!best || r.matchCount > best.matchCount) best = r;
    }
    if (!firstSuccess) addIssue(main, composite(`${quoted} must validate at least one schema (anyOf)`));
    merge(main, best ?? firstSuccess);
  }
  if (s.oneOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    let validated = 0;
    for (const sub of s.oneOf) {
      const r = validateValue(sub, data, path);
      if (isValid(r)) {
        validated++;
        best = undefined;
        firstSuccess ??= r;
        continue;
      }
      if (validated === 0 && (!best || r.matchCount > best.matchCount)) best = r;
    }
    if (validated !== 1) {
      const detail = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
      addIssue(main, composite(`${quoted} must validate one and only one schema (oneOf). ${detail}`));
      merge(main, best);
    } else {
      merge(main, firstSuccess);
    }
  }
  if (s.allOf.length > 0) {
    let validated = 0;
    for (const sub of s.allOf) {
      const r = validateValue(sub, data, path);
      if (isValid(r)) validated++;
      merge(main, r);
    }
    if (validated !== s.allOf.length) {
      addIssue(main, composite(`${quoted} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}`));
    }
  }
  if (s.not && isValid(validateValue(s.not, data, path))) {
    addIssue(main, composite(`${quoted} must not validate the schema (not)`));
  }
  main.matchCount++;
  return main;
}

function validateString(s: SchemaNode, data: string, path: string): Result | undefined {
  const length = [...data].length;
  if (s.maxLength !== undefined && length > s.maxLength) {
    return failure({ code: 'tooLong', name: path, value: data, limit: s.maxLength, message: `${path} in body should be at most ${s.maxLength} chars long` });
  }
  if (s.minLength !== undefined && length < s.minLength) {
    return failure({ code: 'invalid', name: path, value: data, message: `${path} in body should be at least ${s.minLength} chars long` });
  }
  if (s.pattern) {
    const re = s.patternRegexp;
    const shown = typeof re === 'string' ? `${s.pattern}, but pattern is invalid: ${re}` : s.pattern;
    if (typeof re === 'string' || !re?.test(data)) {
      return failure({ code: 'invalid', name: path, value: data, message: `${path} in body should match '${shown}'` });
    }
  }
  return undefined;
}

function validateFormat(s: SchemaNode, data: string, path: string): Result | undefined {
  return matchesFormat(s.format, data) ? undefined : failure(invalidType(path, s.format, data));
}

// Go compares an integer value against bounds converted to int64 (truncated), a float value
// against the float bounds; the message prints the bound the comparison used.
function validateNumber(s: SchemaNode, data: number, kind: ValueKind, path: string): Result {
  const res = newResult();
  const isInt = kind === 'int';
  const shown = (bound: number): string => (isInt ? String(Math.trunc(bound)) : goFloat(bound));
  if (s.multipleOf !== undefined) {
    const factor = isInt && Math.trunc(s.multipleOf) !== 0 ? Math.trunc(s.multipleOf) : s.multipleOf;
    const asInt = isInt && Math.trunc(s.multipleOf) !== 0;
    if (factor < 0) {
      merge(res, failure({ code: 'invalid', name: path, value: factor, message: `factor MultipleOf declared for ${path} must be positive: ${asInt ? factor : goFloat(factor)}` }));
    } else if (asInt ? data % factor !== 0 : !isJsonInteger(factor < 1 ? (1 / factor) * data : data / factor)) {
      merge(res, failure({ code: 'invalid', name: path, value: data, message: `${path} in body should be a multiple of ${asInt ? factor : goFloat(factor)}` }));
    }
  }
  if (s.minimum !== undefined) {
    const bound = isInt ? Math.trunc(s.minimum) : s.minimum;
    if (s.exclusiveMinimum ? data <= bound : data < bound) {
      const words = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      merge(res, failure({ code: 'invalid', name: path, value: data, message: `${path} in body should be ${words} ${shown(s.minimum)}` }));
    }
  }
  if (s.maximum !== undefined) {
    const bound = isInt ? Math.trunc(s.maximum) : s.maximum;
    if (s.exclusiveMaximum ? data >= bound : data > bound) {
      const words = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
      merge(res, failure({ code: 'invalid', name: path, value: data, message: `${path} in body should be ${words} ${shown(s.maximum)}` }));
    }
  }
  res.matchCount++;
  return res;
}

function isJsonInteger(f: number): boolean {
  if (!Number.isFinite(f)) return false;
  const rounded = Math.round(f);
  return f === rounded || Math.abs(f - rounded) / Math.abs(f) < 1e-9;
}

function validateSlice(s: SchemaNode, data: unknown[], path: string): Result {
  const r = newResult();
  if (s.items) for (let i = 0; i < data.length; i++) merge(r, validateValue(s.items, data[i], `${path}[${i}]`));
  if (s.minItems !== undefined && data.length < s.minItems) {
    addIssue(r, { code: 'invalid', name: path, value: data.length, message: `${path} in body should have at least ${s.minItems} items` });
  }
  if (s.maxItems !== undefined && data.length > s.maxItems) {
    addIssue(r, { code: 'maxItems', name: path, value: data.length, limit: s.maxItems, message: `${path} in body should have at most ${s.maxItems} items` });
  }
  if (s.uniqueItems && data.some((v, i) => data.slice(0, i).some((u) => jsonEqual(u, v)))) {
    addIssue(r, { code: 'invalid', name: path, value: undefined, message: `${path} in body shouldn't contain duplicates` });
  }
  r.matchCount++;
  return r;
}

function validateEnum(s: SchemaNode, data: unknown, path: string): Result | undefined {
  if (!s.enum || s.enum.length === 0) return undefined;
  if (data !== null && data !== undefined && s.enum.some((e) => e !== null && jsonEqual(e, data))) return undefined;
  return failure({ code: 'enum', name: path, value: data ?? null, allowed: s.enum, message: `${path} in body should be one of ${JSON.stringify(s.enum)}` });
}

function validateObject(s: SchemaNode, data: Record<string, unknown>, path: string): Result {
  const keys = Object.keys(data).filter((k) => data[k] !== undefined);
  if (s.minProperties !== undefined && keys.length < s.minProperties) {
    return failure({ code: 'invalid', name: path, value: keys.length, message: `${path} in body should have at least ${s.minProperties} properties` });
  }
  if (s.maxProperties !== undefined && keys.length > s.maxProperties) {
    return failure({ code: 'tooManyProperties', name: path, value: keys.length, limit: s.maxProperties, message: `${path} in body should have at most ${s.maxProperties} properties` });
  }
  const res = newResult();
  const additional = s.additionalProperties;
  for (const key of keys) {
    if (s.properties?.has(key)) continue;
    if (additional && !additional.allows) {
      addIssue(res, { code: 'invalid', name: path, value: key, message: `${path}.${key} in body is a forbidden property` });
    } else if (additional?.schema) {
      merge(res, validateValue(additional.schema, data[key], `${path}.${key}`));
    }
  }
  for (const [name, prop] of s.properties ?? []) {
    const value = ownMember(data, name);
    if (value !== undefined) merge(res, validateValue(prop, value, path ? `${path}.${name}` : name));
  }
  for (const name of s.required) {
    if (ownMember(data, name) === undefined) addIssue(res, { code: 'required', name: `${path}.${name}`, value: undefined, message: `${path}.${name} in body is required` });
  }
  return res;
}

function validateValue(s: SchemaNode, data: unknown, path: string): Result {
  const r = newResult();
  if (data === null || data === undefined) {
    merge(r, validateType(s, data, path));
    merge(r, validateEnum(s, data, path));
    return r;
  }
  const kind = kindOf(data);
  const run = (applies: boolean, validate: () => Result | undefined): void => {
    if (!applies) return;
    merge(r, validate());
    r.matchCount++;
  };
  run(s.validatorTypes.length > 0 || s.format !== '', () => validateType(s, data, path));
  run(true, () => validateCombinators(s, data, path));
  run(kind === 'string', () => validateString(s, data as string, path));
  run(kind === 'string' && s.format !== '', () => validateFormat(s, data as string, path));
  run(kind === 'int' || kind === 'float', () => validateNumber(s, data as number, kind, path));
  run(kind === 'slice', () => validateSlice(s, data as unknown[], path));
  run(true, () => validateEnum(s, data, path));
  run(kind === 'map' && isJsonObject(data), () => validateObject(s, data as Record<string, unknown>, path));
  r.matchCount++;
  return r;
}

/**
 * Validates `data` against `schema` and returns the field errors the real server reports.
 * `basePath` prefixes every field (the real server validates CRD defaults under `….default`);
 * without it, errors that carry no field (anyOf/oneOf/allOf/not) show the field `<nil>`.
 */
export function schemaFieldErrors(schema: SchemaNode, data: unknown, basePath?: string): FieldError[] {
  return validateValue(schema, data, '').issues.map((issue) => toFieldError(issue, basePath));
}

function toFieldError(issue: Issue, basePath: string | undefined): FieldError {
  if (issue.code === 'composite') return { type: 'FieldValueInvalid', field: basePath ?? '<nil>', value: '', detail: issue.message };
  const name = issue.name.startsWith('.') ? issue.name.slice(1) : issue.name;
  const field = name ? childPath(basePath ?? '', name) : (basePath ?? '<nil>');
  switch (issue.code) {
    case 'required':
      return fieldRequired(field, '');
    case 'enum':
      return {
        type: 'FieldValueNotSupported',
        field,
        value: issue.value,
        detail: `supported values: ${(issue.allowed ?? []).map((v) => goQuote(typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`,
      };
    case 'tooLong':
      return { type: 'FieldValueTooLong', field, value: issue.value, detail: `may not be more than ${issue.limit} ${issue.limit === 1 ? 'byte' : 'bytes'}` };
    case 'maxItems':
    case 'tooManyProperties':
      return { type: 'FieldValueTooMany', field, value: issue.value, detail: `must have at most ${issue.limit} ${issue.limit === 1 ? 'item' : 'items'}` };
    case 'invalidType':
      return { type: 'FieldValueTypeInvalid', field, value: issue.value, detail: issue.message };
    default:
      return { type: 'FieldValueInvalid', field, value: issue.value ?? '', detail: issue.message };
  }
}
