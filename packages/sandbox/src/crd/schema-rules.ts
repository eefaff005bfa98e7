// The per-node rules apiextensions applies to every schema of a CRD
// (ValidateCustomResourceDefinitionOpenAPISchema): supported keywords and types, where defaults
// may appear, additionalProperties versus properties, and the x-kubernetes-* list and map rules.
// Errors come out in the real server's order: a node's keyword errors, then its children's, then
// its list/map extension errors.

import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../errors.ts';
import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { childPath, indexPath, keyPath } from './field-path.ts';

const openAPIV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const metaFields = new Set(['metadata', 'kind', 'apiVersion']);
const validationReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

export interface RuleContext {
  readonly allowDefaults: boolean;
  readonly disallowDefaultsReason: string;
  readonly insideResourceMeta: boolean;
}

export const rootRuleContext: RuleContext = { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false };

const withForbiddenDefaults = (ctx: RuleContext, reason: string): RuleContext => ({ ...ctx, allowDefaults: false, disallowDefaultsReason: reason });

const typeOf = (s: JsonObject): string => (typeof s.type === 'string' ? s.type : '');

export function schemaRuleErrors(s: JsonObject, path: string, ctx: RuleContext, isRoot: boolean): FieldError[] {
  const errs = keywordErrors(s, path, ctx);
  const child = (name: string): string => childPath(path, name);

  if (s.uniqueItems === true) errs.push(fieldForbidden(child('uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const properties = isJsonObject(s.properties) ? s.properties : {};
  const hasProperties = Object.keys(properties).length > 0;
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (hasProperties && (s.additionalProperties === false || isJsonObject(s.additionalProperties))) {
      errs.push(fieldForbidden(child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    if (isJsonObject(s.additionalProperties)) {
      const sub = ctx.insideResourceMeta ? withForbiddenDefaults(ctx, 'inside additionalProperties applying to object metadata') : ctx;
      errs.push(...schemaRuleErrors(s.additionalProperties, child('additionalProperties'), sub, false));
    }
  }
  for (const key of Object.keys(properties).sort()) {
    const prop = properties[key];
    let sub = ctx;
    if ((isRoot || s['x-kubernetes-embedded-resource'] === true) && metaFields.has(key)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = withForbiddenDefaults(sub, `in top-level ${key}`);
    }
    errs.push(...schemaRuleErrors(isJsonObject(prop) ? prop : {}, keyPath(child('properties'), key), sub, false));
  }
  if (isJsonObject(s.not)) errs.push(...schemaRuleErrors(s.not, child('not'), ctx, false));
  for (const junctor of ['allOf', 'oneOf', 'anyOf']) {
    const list = s[junctor];
    if (Array.isArray(list)) list.forEach((sub, i) => errs.push(...schemaRuleErrors(isJsonObject(sub) ? sub : {}, indexPath(child(junctor), i), ctx, false)));
  }
  if (isJsonObject(s.items)) errs.push(...schemaRuleErrors(s.items, child('items'), ctx, false));

  errs.push(...extensionErrors(s, path));
  errs.push(...validationRuleErrors(s, path));
  return errs;
}

function keywordErrors(s: JsonObject, path: string, ctx: RuleContext): FieldError[] {
  const errs: FieldError[] = [];
  const child = (name: string): string => childPath(path, name);
  const type = typeOf(s);
  if (type && !openAPIV3Types.includes(type)) errs.push(fieldNotSupported(child('type'), type, openAPIV3Types));
  if (s.default !== undefined && s.default !== null && !ctx.allowDefaults) {
    errs.push(fieldForbidden(child('default'), ctx.disallowDefaultsReason ? `must not be set ${ctx.disallowDefaultsReason}` : 'must not be set'));
  }
  if (typeof s.id === 'string' && s.id) errs.push(fieldForbidden(child('id'), 'id is not supported'));
  if (s.additionalItems !== undefined && s.additionalItems !== null) errs.push(fieldForbidden(child('additionalItems'), 'additionalItems is not supported'));
  if (isJsonObject(s.patternProperties) && Object.keys(s.patternProperties).length) errs.push(fieldForbidden(child('patternProperties'), 'patternProperties is not supported'));
  if (isJsonObject(s.definitions) && Object.keys(s.definitions).length) errs.push(fieldForbidden(child('definitions'), 'definitions is not supported'));
  if (isJsonObject(s.dependencies)) errs.push(fieldForbidden(child('dependencies'), 'dependencies is not supported'));
  if (typeof s.$ref === 'string') errs.push(fieldForbidden(child('$ref'), '$ref is not supported'));
  if (type === 'null') errs.push(fieldForbidden(child('type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length) errs.push(fieldForbidden(child('items'), 'items must be a schema object and not an array'));
  if (ctx.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true) {
    errs.push(fieldForbidden(child('x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
  return errs;
}

function extensionErrors(s: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const child = (name: string): string => childPath(path, name);
  const type = typeOf(s);
  const listType = typeof s['x-kubernetes-list-type'] === 'string' ? s['x-kubernetes-list-type'] : undefined;
  const mapType = typeof s['x-kubernetes-map-type'] === 'string' ? s['x-kubernetes-map-type'] : undefined;
  const mapKeys = Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'].filter((k): k is string => typeof k === 'string') : [];
  const items = isJsonObject(s.items) ? s.items : undefined;
  const itemProperties = items && isJsonObject(items.properties) ? items.properties : {};

  if (s['x-kubernetes-preserve-unknown-fields'] === false) errs.push(fieldInvalid(child('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  if (mapType !== undefined && type !== 'object') {
    const detail = 'must be object if x-kubernetes-map-type is specified';
    errs.push(type ? fieldInvalid(child('type'), type, detail) : fieldRequired(child('type'), detail));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') errs.push(fieldNotSupported(child('x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  if (listType !== undefined && type !== 'array') {
    const detail = 'must be array if x-kubernetes-list-type is specified';
    errs.push(type ? fieldInvalid(child('type'), type, detail) : fieldRequired(child('type'), detail));
  } else if (listType === 'set' && items) {
    const atomic = 'must be atomic as item of a list with x-kubernetes-list-type=set';
    const itemListType = items['x-kubernetes-list-type'];
    if (typeOf(items) === 'array' && typeof itemListType === 'string' && itemListType !== 'atomic') {
      errs.push(fieldInvalid(childPath(child('items'), 'x-kubernetes-list-type'), itemListType, atomic));
    } else if (typeOf(items) === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errs.push(fieldInvalid(childPath(child('items'), 'x-kubernetes-map-type'), typeof itemListType === 'string' ? itemListType : null, atomic));
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(fieldNotSupported(child('x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }
  if (mapKeys.length) {
    const detail = 'must be map if x-kubernetes-list-map-keys is non-empty';
    if (listType === undefined) errs.push(fieldRequired(child('x-kubernetes-list-type'), detail));
    else if (listType !== 'map') errs.push(fieldInvalid(child('x-kubernetes-list-type'), listType, detail));
  }
  if (listType === 'map') {
    if (!mapKeys.length) errs.push(fieldRequired(child('x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (!items) errs.push(fieldRequired(child('items'), 'must have a schema if x-kubernetes-list-type is map'));
    else if (typeOf(items) !== 'object') {
      errs.push(fieldInvalid(childPath(child('items'), 'type'), typeOf(items), "must be object if parent array's x-kubernetes-list-type is map"));
    } else {
      const seen = new Set<string>();
      for (const key of mapKeys) {
        const prop = itemProperties[key];
        if (isJsonObject(prop)) {
          if (typeOf(prop) === 'array' || typeOf(prop) === 'object') {
            errs.push(fieldInvalid(childPath(keyPath(childPath(child('items'), 'properties'), key), 'type'), typeOf(items), "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          errs.push(fieldInvalid(child('x-kubernetes-list-map-keys'), mapKeys, 'entries must all be names of item properties'));
        }
        if (seen.has(key)) errs.push(fieldInvalid(child('x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'));
        seen.add(key);
      }
    }
  }
  if (items && (listType === 'set' || listType === 'map')) {
    if (items.nullable === true) errs.push(fieldForbidden(childPath(child('items'), 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
    if (listType === 'map') {
      const required = Array.isArray(items.required) ? items.required : [];
      for (const key of mapKeys) {
        const prop = itemProperties[key];
        if (!isJsonObject(prop)) continue;
        const propPath = keyPath(childPath(child('items'), 'properties'), key);
        if (!required.includes(key) && (prop.default === undefined || prop.default === null)) {
          errs.push(fieldRequired(childPath(propPath, 'default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
        }
        if (prop.nullable === true) errs.push(fieldForbidden(childPath(propPath, 'nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
  }
  return errs;
}

// The static checks of x-kubernetes-validations; the CEL rules themselves are not compiled.
function validationRuleErrors(s: JsonObject, path: string): FieldError[] {
  const rules = s['x-kubernetes-validations'];
  if (!Array.isArray(rules)) return [];
  const errs: FieldError[] = [];
  rules.forEach((raw, i) => {
    const rule = isJsonObject(raw) ? raw : {};
    const at = (name: string): string => childPath(indexPath(childPath(path, 'x-kubernetes-validations'), i), name);
    const text = (v: unknown): string => (typeof v === 'string' ? v : '');
    const ruleText = text(rule.rule).trim();
    const message = text(rule.message);
    if (!ruleText) errs.push(fieldRequired(at('rule'), 'rule is not specified'));
    else if (message && !message.trim()) errs.push(fieldInvalid(at('message'), message, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(message.trim())) errs.push(fieldInvalid(at('message'), message, 'message must not contain line breaks'));
    else if (/[\n\r]/.test(ruleText) && !message.trim()) errs.push(fieldRequired(at('message'), 'message must be specified if rule contains line breaks'));
    const messageExpression = text(rule.messageExpression);
    if (messageExpression && !messageExpression.trim()) errs.push(fieldRequired(at('messageExpression'), 'messageExpression must be non-empty if specified'));
    if (typeof rule.reason === 'string' && !validationReasons.includes(rule.reason)) errs.push(fieldNotSupported(at('reason'), rule.reason, validationReasons));
    const fieldPath = text(rule.fieldPath);
    if (fieldPath && !fieldPath.trim()) errs.push(fieldInvalid(at('fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    if (/[\n\r]/.test(fieldPath)) errs.push(fieldInvalid(at('fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
  });
  return errs;
}
