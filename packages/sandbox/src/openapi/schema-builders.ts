// A compact way to write OpenAPI v3 schemas of API types. A `closed` object lists every field of
// its Go type (unknown fields are reported and dropped); an `open` one stands for a type whose
// fields are not transcribed here (anything is accepted, as if preserved).

export type Schema = Record<string, unknown>;

export const schemaRef = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const described = (schema: Schema, description?: string): Schema => (description ? { description, ...schema } : schema);

export const str = (description?: string): Schema => described({ type: 'string' }, description);
export const int = (description?: string): Schema => described({ type: 'integer', format: 'int32' }, description);
export const int64 = (description?: string): Schema => described({ type: 'integer', format: 'int64' }, description);
export const bool = (description?: string): Schema => described({ type: 'boolean' }, description);
export const time = (description?: string): Schema => described({ type: 'string', format: 'date-time' }, description);
export const intOrString = (description?: string): Schema => described({ 'x-kubernetes-int-or-string': true }, description);
export const quantity = (): Schema => ({ 'x-kubernetes-int-or-string': true });
export const bytes = (description?: string): Schema => described({ type: 'string', format: 'byte' }, description);

export const list = (items: Schema, description?: string): Schema => described({ type: 'array', items }, description);
export const stringMap = (description?: string): Schema => described({ type: 'object', additionalProperties: { type: 'string' } }, description);
export const mapOf = (values: Schema, description?: string): Schema => described({ type: 'object', additionalProperties: values }, description);

/** An object whose every field is listed here. */
export function closed(properties: Record<string, Schema>, description?: string, required?: string[]): Schema {
  return described({ type: 'object', properties, ...(required?.length ? { required } : {}) }, description);
}

/** An object whose fields are not transcribed. */
export const open = (description?: string): Schema => described({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, description);

/** A reference with its own description, the way the real documents wrap `$ref` in `allOf`. */
export const refTo = (name: string, description?: string): Schema => (description ? { description, allOf: [schemaRef(name)] } : { allOf: [schemaRef(name)] });
