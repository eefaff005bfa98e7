// Validation of a custom resource against its CRD version, in the order of the real server's
// customResourceStrategy: type meta, the schema, the scale paths, embedded resources, list types.
// ObjectMeta validation (names, labels, annotations, finalizers) is the server core's; the real
// server reports those errors after the type meta errors and before the schema's.

import { fieldInvalid, type FieldError } from '../errors.ts';
import { isJsonObject } from '../meta/object.ts';
import type { CompiledSchema } from './compile.ts';
import { embeddedResourceErrors } from './embedded-resources.ts';
import { goTypeName, goValue } from './go-format.ts';
import { listTypeErrors } from './list-types.ts';
import { schemaFieldErrors } from './schema-validator.ts';
import type { ScaleSubresource } from './serving.ts';

export interface CustomResourceContext {
  kind: string;
  group: string;
  /** The served version the object is written as; when given, `apiVersion` must be `group/version`. */
  version?: string;
  /** The version's scale subresource, whose replica paths must hold integers. */
  scale?: ScaleSubresource;
  /** The stored object on update: list-type errors are only reported when it had none (ratcheting). */
  old?: unknown;
  /** `status` for writes to `/status`, which do not check the spec replicas path. */
  subresource?: 'status';
}

export function validateCustomResource(schema: CompiledSchema, obj: unknown, ctx: CustomResourceContext): FieldError[] {
  const typeMeta = typeMetaErrors(obj, ctx);
  if (typeMeta.length) return typeMeta;
  const errs = schemaFieldErrors(schema.root, obj);
  if (ctx.scale) {
    if (ctx.subresource !== 'status') errs.push(...replicasErrors(obj, ctx.scale.specReplicasPath));
    errs.push(...replicasErrors(obj, ctx.scale.statusReplicasPath));
    if (ctx.scale.labelSelectorPath) errs.push(...selectorErrors(obj, ctx.scale.labelSelectorPath));
  }
  errs.push(...embeddedResourceErrors(schema.root, obj));
  if (ctx.old === undefined || listTypeErrors(schema.root, ctx.old).length === 0) errs.push(...listTypeErrors(schema.root, obj));
  return errs;
}

function typeMetaErrors(obj: unknown, ctx: CustomResourceContext): FieldError[] {
  const o = isJsonObject(obj) ? obj : {};
  const errs: FieldError[] = [];
  const kind = typeof o.kind === 'string' ? o.kind : '';
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  if (kind !== ctx.kind) errs.push(fieldInvalid('kind', kind, `must be ${ctx.kind}`));
  if (ctx.version !== undefined && apiVersion !== `${ctx.group}/${ctx.version}`) {
    errs.push(fieldInvalid('apiVersion', apiVersion, `must be ${ctx.group}/${ctx.version}`));
  }
  return errs;
}

type Lookup = { found: false } | { found: true; value: unknown } | { error: string };

// unstructured.NestedFieldNoCopy: walks maps; a non-map on the way is an accessor error.
function lookup(obj: unknown, jsonPath: string): Lookup {
  const fields = jsonPath.replace(/^\./, '').split('.');
  let current: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (current === null) return { found: false };
    if (!isJsonObject(current)) {
      const at = `.${fields.slice(0, i + 1).join('.')}`;
      return { error: `${at} accessor error: ${goValue(current)} is of the type ${goTypeName(current)}, expected map[string]interface{}` };
    }
    const key = fields[i] ?? '';
    if (!Object.hasOwn(current, key)) return { found: false };
    current = current[key];
  }
  return { found: true, value: current };
}

const maxInt32 = 2147483647;

function replicasErrors(obj: unknown, jsonPath: string): FieldError[] {
  const found = lookup(obj, jsonPath);
  if ('error' in found) return [fieldInvalid(jsonPath, 0, found.error)];
  if (!found.found) return [];
  const v = found.value;
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    return [fieldInvalid(jsonPath, 0, `${jsonPath} accessor error: ${goValue(v)} is of the type ${goTypeName(v)}, expected int64`)];
  }
  if (v < 0) return [fieldInvalid(jsonPath, v, 'should be a non-negative integer')];
  if (v > maxInt32) return [fieldInvalid(jsonPath, v, `should be less than or equal to ${maxInt32}`)];
  return [];
}

function selectorErrors(obj: unknown, jsonPath: string): FieldError[] {
  const found = lookup(obj, jsonPath);
  if ('error' in found) return [fieldInvalid(jsonPath, '', found.error)];
  if (found.found && typeof found.value !== 'string') {
    return [fieldInvalid(jsonPath, '', `${jsonPath} accessor error: ${goValue(found.value)} is of the type ${goTypeName(found.value)}, expected string`)];
  }
  return [];
}
