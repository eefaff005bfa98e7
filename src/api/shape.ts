// Checks of untrusted JSON against a structural OpenAPI v3 schema. The shape (types, nested properties, list
// items and map values): the code that reads an object trusts its TypeScript type, and this is what makes
// that trust hold for anything that arrives over the network (an AdmissionReview may be forged). The bounds
// (maxItems, maxLength, maxProperties): what a handler does for each item or byte stays within what the
// schema allows, whoever sent the object. Formats and patterns are the API server's business.

import { ownMember } from './own-member.ts';

type Schema = Record<string, unknown>;

const describe = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function typeProblem(value: unknown, schema: Schema): string | undefined {
  if (schema['x-kubernetes-int-or-string'] === true) {
    return Number.isInteger(value) || typeof value === 'string' ? undefined : 'must be an integer or a string';
  }
  switch (schema.type) {
    case 'object':
      return isObject(value) ? undefined : 'must be an object';
    case 'array':
      return Array.isArray(value) ? undefined : 'must be an array';
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'integer':
      return Number.isInteger(value) ? undefined : 'must be an integer';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    default:
      return undefined;
  }
}

/**
 * A place where `value` does not have the schema's shape, as `path: got X, must be Y`, or
 * undefined. `null` is accepted only where the schema says `nullable` (the API server drops other nulls
 * before admission). Iterative: a forged object nested a million deep costs no stack.
 */
export function shapeProblem(value: unknown, schema: Schema, path: string): string | undefined {
  const pending: [unknown, Schema, string][] = [[value, schema, path]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, currentSchema, where] = next;
    if (current === null && currentSchema.nullable === true) continue;
    const problem = typeProblem(current, currentSchema);
    if (problem) return `${where}: got ${describe(current)}, ${problem}`;
    for (const [step, child, childSchema] of childSchemas(current, currentSchema)) pending.push([child, childSchema, `${where}${step}`]);
  }
  return undefined;
}

/** A list's items or a map's values in the schema, when it says. */
function childSchemas(value: unknown, schema: Schema): [string, unknown, Schema][] {
  if (Array.isArray(value)) {
    const items = schema.items as Schema | undefined;
    return items ? value.map((item, i): [string, unknown, Schema] => [`[${i}]`, item, items]) : [];
  }
  if (!isObject(value)) return [];
  const properties = schema.properties as Record<string, Schema> | undefined;
  const values = schema.additionalProperties as Schema | undefined;
  const children: [string, unknown, Schema][] = [];
  for (const [key, child] of Object.entries(value)) {
    const childSchema = ownMember(properties, key) ?? (typeof values === 'object' ? values : undefined);
    if (childSchema) children.push([`.${key}`, child, childSchema]);
  }
  return children;
}

/** The bound of `schema` that `value` exceeds, in apimachinery's words, or undefined. */
function boundProblem(value: unknown, schema: Schema, path: string): string | undefined {
  const { maxItems, maxLength, maxProperties } = schema as { maxItems?: number; maxLength?: number; maxProperties?: number };
  if (Array.isArray(value) && maxItems !== undefined && value.length > maxItems) return `${path}: Too many: ${value.length}: must have at most ${maxItems} items`;
  // The schema counts characters; a string is never shorter in characters than in UTF-16 units.
  if (typeof value === 'string' && maxLength !== undefined && value.length > maxLength && [...value].length > maxLength) {
    return `${path}: Too long: may not be more than ${maxLength} bytes`;
  }
  if (isObject(value) && maxProperties !== undefined && Object.keys(value).length > maxProperties) {
    return `${path}: Too many: ${Object.keys(value).length}: must have at most ${maxProperties} items`;
  }
  return undefined;
}

/**
 * The first place where `value` exceeds a bound of the schema (`spec.hooks: Too many: 5000: must have at
 * most 32 items`), or undefined. A list over its bound is reported before any of its items is looked at, so
 * the check costs no more than the bounds allow; `path` is the field path of `value` ('' for an object).
 */
export function boundsProblem(value: unknown, schema: Schema, path = ''): string | undefined {
  const pending: [unknown, Schema, string][] = [[value, schema, path]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, currentSchema, where] = next;
    const problem = boundProblem(current, currentSchema, where);
    if (problem) return problem;
    for (const [step, child, childSchema] of childSchemas(current, currentSchema)) pending.push([child, childSchema, where === '' ? step.replace(/^\./, '') : `${where}${step}`]);
  }
  return undefined;
}
