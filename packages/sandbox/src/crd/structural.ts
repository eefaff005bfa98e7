// The structural-schema rules of apiextensions.k8s.io/v1 (schema.ValidateStructural), checked on
// the schema as the user wrote it: every node specifies its type, value validations (allOf,
// anyOf, oneOf, not) only restrict what the structure already declares, metadata is restricted
// to name and generateName. The real server sorts these errors by their text.

import { fieldErrorString, fieldForbidden, fieldInvalid, fieldRequired, type FieldError } from '../errors.ts';
import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { childPath, indexPath, keyPath } from './field-path.ts';
import { compileGoRegexp } from './go-regexp.ts';

type Level = 'root' | 'item' | 'field';

const missingTypeDetail: Record<Level, string> = {
  root: 'must not be empty at the root',
  item: 'must not be empty for specified array items',
  field: 'must not be empty for specified object fields',
};

const objectList = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);
const sortedProperties = (s: JsonObject): [string, JsonObject][] =>
  isJsonObject(s.properties)
    ? Object.keys(s.properties)
        .sort()
        .map((k) => [k, isJsonObject((s.properties as JsonObject)[k]) ? ((s.properties as JsonObject)[k] as JsonObject) : {}])
    : [];
const typeOf = (s: JsonObject): string => (typeof s.type === 'string' ? s.type : '');

/** Whether a JSON value is Go's zero value of the field it decodes into (absent for pointers). */
export function isZeroValue(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  return isJsonObject(v) && Object.keys(v).length === 0;
}

const meaningfulKeys = (s: JsonObject): string[] => Object.keys(s).filter((k) => !isZeroValue(s[k]));

// anyOf: [{type: integer}, {type: string}] (alone, or first in an allOf) is the accepted
// int-or-string spelling, so its `type`s are not reported as non-structural.
function isIntOrStringAnyOf(anyOf: unknown): boolean {
  const list = objectList(anyOf);
  if (!Array.isArray(anyOf) || anyOf.length !== 2 || list.length !== 2) return false;
  const [a, b] = list as [JsonObject, JsonObject];
  const only = (s: JsonObject, type: string): boolean => meaningfulKeys(s).join() === 'type' && s.type === type;
  return only(a, 'integer') && only(b, 'string');
}

/** ValidateStructural: the structural errors of `schema` at `path`, sorted as the real server sorts them. */
export function structuralErrors(schema: JsonObject, path: string): FieldError[] {
  const errs = [...invariantErrors(schema, 'root', path), ...completenessErrors(schema, path)];
  return errs
    .map((e) => [fieldErrorString(e), e] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, e]) => e);
}

function invariantErrors(s: JsonObject, level: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeOf(s);
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const hasAdditional = s.additionalProperties !== undefined && s.additionalProperties !== null;

  if (type === 'array' && !isJsonObject(s.items)) errs.push(fieldRequired(childPath(path, 'items'), 'must be specified'));
  if (isJsonObject(s.items)) errs.push(...invariantErrors(s.items, 'item', childPath(path, 'items')));
  for (const [key, prop] of sortedProperties(s)) errs.push(...invariantErrors(prop, 'field', keyPath(childPath(path, 'properties'), key)));
  if (hasAdditional) {
    if (level === 'root') errs.push(fieldForbidden(childPath(path, 'additionalProperties'), 'must not be used at the root'));
    if (isJsonObject(s.additionalProperties)) errs.push(...invariantErrors(s.additionalProperties, 'field', childPath(path, 'additionalProperties')));
  }

  if (intOrString && preserve) errs.push(fieldInvalid(childPath(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) errs.push(fieldInvalid(childPath(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));

  const skipAnyOf = isIntOrStringAnyOf(s.anyOf);
  const firstAllOf = objectList(s.allOf)[0];
  const skipFirstAllOfAnyOf = firstAllOf !== undefined && isIntOrStringAnyOf(firstAllOf.anyOf);
  errs.push(...valueValidationErrors(s, skipAnyOf, skipFirstAllOfAnyOf, path));

  const checkMetadata = level === 'root' || embedded;
  if (embedded && type !== 'object') {
    const detail = 'must be object if x-kubernetes-embedded-resource is true';
    errs.push(type ? fieldInvalid(childPath(path, 'type'), type, detail) : fieldRequired(childPath(path, 'type'), detail));
  } else if (!type && !intOrString && !preserve) {
    errs.push(fieldRequired(childPath(path, 'type'), missingTypeDetail[level]));
  }
  if (embedded && hasAdditional) errs.push(fieldForbidden(childPath(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  if (level === 'root' && type && type !== 'object') errs.push(fieldInvalid(childPath(path, 'type'), type, 'must be object at the root'));

  const properties = isJsonObject(s.properties) ? s.properties : {};
  for (const name of ['kind', 'apiVersion']) {
    const prop = properties[name];
    if (checkMetadata && isJsonObject(prop) && typeOf(prop) !== 'string') {
      errs.push(fieldInvalid(childPath(keyPath(childPath(path, 'properties'), name), 'type'), typeOf(prop), 'must be string'));
    }
  }
  if (isJsonObject(properties.metadata)) errs.push(...metadataErrors(properties.metadata, checkMetadata, level, keyPath(childPath(path, 'properties'), 'metadata')));
  if (embedded && !preserve && Object.keys(properties).length === 0) {
    errs.push(fieldRequired(childPath(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  return errs;
}

// The root's metadata may declare only the `name` and `generateName` properties (and its type).
function metadataErrors(s: JsonObject, checkMetadata: boolean, level: Level, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && typeOf(s) !== 'object') errs.push(fieldInvalid(childPath(path, 'type'), typeOf(s), 'must be object'));
  if (level === 'root') {
    const propertyNames = isJsonObject(s.properties) ? Object.keys(s.properties) : [];
    const onlyNames = propertyNames.length > 0 && propertyNames.every((n) => n === 'name' || n === 'generateName');
    const rest = meaningfulKeys(s).filter((k) => k !== 'type' && k !== 'default' && !(k === 'properties' && onlyNames));
    if (rest.length) errs.push(fieldForbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
  return errs;
}

function valueValidationErrors(v: JsonObject, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!skipAnyOf) objectList(v.anyOf).forEach((sub, i) => errs.push(...nestedErrors(sub, false, indexPath(childPath(path, 'anyOf'), i))));
  objectList(v.allOf).forEach((sub, i) => errs.push(...nestedErrors(sub, skipFirstAllOfAnyOf && i === 0, indexPath(childPath(path, 'allOf'), i))));
  objectList(v.oneOf).forEach((sub, i) => errs.push(...nestedErrors(sub, false, indexPath(childPath(path, 'oneOf'), i))));
  if (isJsonObject(v.not)) errs.push(...nestedErrors(v.not, false, childPath(path, 'not')));
  if (typeof v.pattern === 'string' && v.pattern) {
    try {
      compileGoRegexp(v.pattern);
    } catch (err) {
      errs.push(fieldInvalid(childPath(path, 'pattern'), v.pattern, `must be a valid regular expression, but isn't: ${err instanceof Error ? err.message : String(err)}`));
    }
  }
  return errs;
}

const forbiddenInNested: [string, (v: unknown) => boolean, string][] = [
  ['type', (v) => typeof v === 'string' && v !== '', 'must be empty to be structural'],
  ['additionalProperties', (v) => v !== undefined && v !== null, 'must be undefined to be structural'],
  ['default', (v) => v !== undefined && v !== null, 'must be undefined to be structural'],
  ['title', (v) => typeof v === 'string' && v !== '', 'must be empty to be structural'],
  ['description', (v) => typeof v === 'string' && v !== '', 'must be empty to be structural'],
  ['nullable', (v) => v === true, 'must be false to be structural'],
  ['externalDocs', (v) => v !== undefined && v !== null, 'must be undefined to be structural'],
  ['x-kubernetes-preserve-unknown-fields', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-int-or-string', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-list-map-keys', (v) => Array.isArray(v) && v.length > 0, 'must be empty to be structural'],
  ['x-kubernetes-list-type', (v) => typeof v === 'string', 'must be undefined to be structural'],
  ['x-kubernetes-map-type', (v) => typeof v === 'string', 'must be undefined to be structural'],
  ['x-kubernetes-validations', (v) => Array.isArray(v) && v.length > 0, 'must be empty to be structural'],
];

// Inside allOf/anyOf/oneOf/not only value validations may appear.
function nestedErrors(v: JsonObject, skipAnyOf: boolean, path: string): FieldError[] {
  const errs = valueValidationErrors(v, skipAnyOf, false, path);
  if (isJsonObject(v.items)) errs.push(...nestedErrors(v.items, false, childPath(path, 'items')));
  for (const [key, prop] of sortedProperties(v)) errs.push(...nestedErrors(prop, false, keyPath(childPath(path, 'properties'), key)));
  for (const [name, present, detail] of forbiddenInNested) if (present(v[name])) errs.push(fieldForbidden(childPath(path, name), detail));
  if (isJsonObject(v.properties) && 'metadata' in v.properties) {
    errs.push(fieldForbidden(keyPath(childPath(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  }
  return errs;
}

// Every field or item a value validation mentions must also be declared outside value validations
// (checked for the root's own allOf/anyOf/oneOf/not, as the real server does).
function completenessErrors(s: JsonObject, path: string): FieldError[] {
  return junctorCompleteness(s, s, path, path);
}

function junctorCompleteness(v: JsonObject, s: JsonObject | undefined, sPath: string, vPath: string): FieldError[] {
  const errs: FieldError[] = [];
  if (isJsonObject(v.not)) errs.push(...nestedCompleteness(v.not, s, sPath, childPath(vPath, 'not')));
  for (const junctor of ['allOf', 'anyOf', 'oneOf']) {
    objectList(v[junctor]).forEach((sub, i) => errs.push(...nestedCompleteness(sub, s, sPath, indexPath(childPath(vPath, junctor), i))));
  }
  return errs;
}

function nestedCompleteness(v: JsonObject, s: JsonObject | undefined, sPath: string, vPath: string): FieldError[] {
  if (!s) return [fieldRequired(sPath, `because it is defined in ${vPath}`)];
  const errs = junctorCompleteness(v, s, sPath, vPath);
  if (isJsonObject(v.items)) errs.push(...nestedCompleteness(v.items, isJsonObject(s.items) ? s.items : undefined, childPath(sPath, 'items'), childPath(vPath, 'items')));
  const declared = isJsonObject(s.properties) ? s.properties : {};
  for (const [key, prop] of sortedProperties(v)) {
    const sProp = declared[key];
    const sPropPath = keyPath(childPath(sPath, 'properties'), key);
    const vPropPath = keyPath(childPath(vPath, 'properties'), key);
    if (!isJsonObject(sProp)) errs.push(fieldRequired(sPropPath, `because it is defined in ${vPropPath}`));
    else errs.push(...nestedCompleteness(prop, sProp, sPropPath, vPropPath));
  }
  return errs;
}
