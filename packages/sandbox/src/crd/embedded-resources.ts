// Checks of objects embedded in a custom resource (x-kubernetes-embedded-resource): they need an
// apiVersion and a kind, and the kind and metadata must be well-formed.

import { fieldInvalid, fieldRequired, type FieldError } from '../errors.ts';
import { isJsonObject } from '../meta/object.ts';
import type { SchemaNode } from './compile.ts';
import { dns1035LabelErrors } from './dns-names.ts';
import { childPath, indexPath, keyPath } from './field-path.ts';

/** Errors of the embedded resources inside `x` (the root object itself is not one). */
export function embeddedResourceErrors(s: SchemaNode | undefined, x: unknown, path = ''): FieldError[] {
  if (!s) return [];
  if (Array.isArray(x)) return x.flatMap((item, i) => embeddedResourceErrors(s.items, item, indexPath(path, i)));
  if (!isJsonObject(x)) return [];
  const errs = s.embeddedResource ? embeddedResourceOwnErrors(x, path) : [];
  for (const key of Object.keys(x)) {
    const prop = s.properties?.get(key);
    if (prop) errs.push(...embeddedResourceErrors(prop, x[key], childPath(path, key)));
    else if (s.additionalProperties) errs.push(...embeddedResourceErrors(s.additionalProperties.schema, x[key], keyPath(path, key)));
  }
  return errs;
}

function embeddedResourceOwnErrors(x: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersionPath = childPath(path, 'apiVersion');
  const kindPath = childPath(path, 'kind');
  if (!('apiVersion' in x)) errs.push(fieldRequired(apiVersionPath));
  if (!('kind' in x)) errs.push(fieldRequired(kindPath));
  for (const [key, value] of Object.entries(x)) {
    if (key === 'apiVersion') {
      if (typeof value !== 'string') errs.push(fieldInvalid(apiVersionPath, value, 'must be a string'));
      else if (!value) errs.push(fieldRequired(apiVersionPath));
      else if (value !== '/' && value.split('/').length > 2) errs.push(fieldInvalid(apiVersionPath, value, `unexpected GroupVersion string: ${value}`));
    } else if (key === 'kind') {
      if (typeof value !== 'string') errs.push(fieldInvalid(kindPath, value, 'must be a string'));
      else if (!value) errs.push(fieldRequired(kindPath));
      else {
        const kindErrs = dns1035LabelErrors(value.toLowerCase());
        if (kindErrs.length) errs.push(fieldInvalid(kindPath, value, `may have mixed case, but should otherwise match: ${kindErrs.join(',')}`));
      }
    } else if (key === 'metadata') {
      errs.push(...embeddedMetadataErrors(value, childPath(path, 'metadata')));
    }
  }
  return errs;
}

// Embedded names follow the path-segment rule (they are never stored under their own URL).
function embeddedMetadataErrors(metadata: unknown, path: string): FieldError[] {
  if (metadata === null) return [];
  if (!isJsonObject(metadata)) return [fieldInvalid(path, metadata, `json: cannot unmarshal ${jsonKind(metadata)} into Go value of type v1.ObjectMeta`)];
  const name = metadata.name;
  if (typeof name !== 'string' || !name) return [];
  const namePath = childPath(path, 'name');
  if (name === '.' || name === '..') return [fieldInvalid(namePath, name, `may not be '${name}'`)];
  const errs: FieldError[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errs.push(fieldInvalid(namePath, name, `may not contain '${illegal}'`));
  return errs;
}

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : typeof v;
}
