// Shape checks of untrusted JSON against a structural OpenAPI v3 schema: types, nested properties, list
// items and map values. The code that reads an object trusts its TypeScript type; this is what makes that
// trust hold for anything that arrives over the network (an AdmissionReview may be forged). Only the
// shape is checked; bounds and formats are the API server's business.

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
    if (Array.isArray(current)) {
      const items = currentSchema.items as Schema | undefined;
      if (items) current.forEach((item, i) => pending.push([item, items, `${where}[${i}]`]));
    } else if (isObject(current)) {
      const properties = currentSchema.properties as Record<string, Schema> | undefined;
      const values = currentSchema.additionalProperties as Schema | undefined;
      for (const [key, child] of Object.entries(current)) {
        const childSchema = ownMember(properties, key) ?? (typeof values === 'object' ? values : undefined);
        if (childSchema) pending.push([child, childSchema, `${where}.${key}`]);
      }
    }
  }
  return undefined;
}
