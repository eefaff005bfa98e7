// PATCH: JSON patch, merge patch, strategic merge patch (built-in kinds) and server-side apply.
// The patch is applied to the stored object inside the update loop, so a concurrent write makes
// it re-apply; a resourceVersion the patch sets is a precondition.

import { badRequestStatus, failure, StatusError } from '../errors.ts';
import { cloneJson, isJsonObject, type KubeObject } from '../meta/object.ts';
import {
  applyJsonPatch,
  applyMergePatch,
  applyServerSideApply,
  applyStrategicMergePatch,
  decodePatchBody,
  fieldManagerName,
  patchedObjectInvalid,
  patchOptionsInvalidStatus,
  patchTypeOf,
  sortedJson,
  strategicMergePatchUnsupportedStatus,
  strategicSchemaFor,
  validatePatchOptions,
  type PatchType,
} from '../patch/index.ts';
import { goValue } from '../crd/go-format.ts';
import { converterError, jsonTypeError, structuredMergeError } from '../openapi/type-mismatch.ts';
import { apiVersionOf, type ResourceDefinition } from '../registry/types.ts';
import type { ServerContext } from './context.ts';
import { checkName, checkNamespace } from './decode.ts';
import { ignoredFieldsOf, patchSchemaOf } from './field-manager.ts';
import { parseWriteOptions, type WriteOptions } from './options.ts';
import type { ApiRequest, ObjectResult } from './request.ts';
import { requestKey } from './storage-key.ts';
import { admitAndCreate, guaranteedUpdate, handleUnknownFields } from './write.ts';

/**
 * The patch type of a request, or 415: with the media types a custom resource accepts for a strategic merge
 * patch (no details), else the generic answer of a patch in no known type, which carries empty details.
 */
export function requestPatchType(def: ResourceDefinition, contentType: string | undefined): PatchType {
  const type = patchTypeOf(contentType ?? '');
  if (type === 'strategic' && def.custom) throw new StatusError(strategicMergePatchUnsupportedStatus());
  if (!type) throw new StatusError(failure(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {}));
  return type;
}

/** The patch document: raw bytes from HTTP are decoded here; in-process callers may pass a value. */
function patchDocument(type: PatchType, body: unknown): unknown {
  if (typeof body === 'string' || body instanceof Uint8Array) return decodePatchBody(type, body);
  return body;
}

/** Applies a JSON, merge or strategic merge patch to `current`, giving a new object. */
export function applyPatch(def: ResourceDefinition, type: Exclude<PatchType, 'apply'>, current: KubeObject, patch: unknown, kindForSchema = def.kind, apiVersionForSchema = apiVersionOf(def.group, def.version)): KubeObject {
  // The patch functions return new documents and leave `original` (a stored object) untouched.
  const original = current;
  let patched: unknown;
  if (type === 'json') patched = applyJsonPatch(original, patch);
  else if (type === 'merge') patched = applyMergePatch(original, patch);
  else {
    const schema = strategicSchemaFor(apiVersionForSchema, kindForSchema);
    if (!schema) throw new StatusError(strategicMergePatchUnsupportedStatus());
    patched = applyStrategicMergePatch(original, patch, schema);
  }
  if (!isJsonObject(patched)) throw new StatusError(badRequestStatus('the patch produced an object that is not a JSON object'));
  const object = patched as KubeObject;
  if (!isJsonObject(object.metadata)) object.metadata = {};
  return object;
}

const storageForm = (def: ResourceDefinition, object: KubeObject): KubeObject => (def.toStorage ? def.toStorage(object) : object);

/**
 * The patched object is decoded as the kind's Go type: a value it cannot hold is a 422 naming the
 * patched document (JSON and merge patches) or the patch and the unstructured converter's error
 * (strategic merge patches).
 */
function checkPatchedTypes(def: ResourceDefinition, type: Exclude<PatchType, 'apply'>, patched: KubeObject, patch: unknown): void {
  const mismatch = def.strategy.typeMismatch?.(storageForm(def, patched));
  if (!mismatch) return;
  if (type === 'strategic') throw patchedObjectInvalid(goValue(patch), converterError(mismatch));
  throw patchedObjectInvalid(sortedJson(patched), jsonTypeError(mismatch));
}

function checkPatchedIdentity(req: ApiRequest, object: KubeObject): void {
  checkName(object, req.name ?? '');
  if (req.def.namespaced && (object.metadata.namespace ?? '') !== (req.namespace ?? '')) {
    throw new StatusError(badRequestStatus('the namespace of the provided object does not match the namespace sent on the request'));
  }
}

export async function patchObject(ctx: ServerContext, req: ApiRequest): Promise<ObjectResult> {
  const { def } = req;
  const type = requestPatchType(def, req.patchType);
  const options = parseWriteOptions(req.query, 'PatchOptions');
  const patch = patchDocument(type, req.body);
  if (type === 'apply') return applyObject(ctx, req, patch, options);
  return guaranteedUpdate(ctx, {
    req,
    options,
    isPut: false,
    recordFields: true,
    attempt(current) {
      const view = def.toExternal ? def.toExternal(current) : current;
      const patched = applyPatch(def, type, view, patch);
      checkPatchedTypes(def, type, patched, patch);
      checkPatchedIdentity(req, patched);
      const object = storageForm(def, patched);
      const warnings = handleUnknownFields(def, object, options);
      const rv = object.metadata.resourceVersion;
      return { object, precondition: rv && rv !== current.metadata.resourceVersion ? rv : undefined, warnings };
    },
  });
}

/** Server-side apply: creates the object when absent, otherwise merges the applied configuration. */
async function applyObject(ctx: ServerContext, req: ApiRequest, applied: unknown, options: WriteOptions): Promise<ObjectResult> {
  const { def } = req;
  const apply = (live: KubeObject | undefined): KubeObject => {
    const object = applyServerSideApply({
      live: live && cloneJson(def.toExternal ? def.toExternal(live) : live),
      applied: cloneJson(applied),
      fieldManager: fieldManagerName(options.fieldManager, req.userAgent),
      force: options.force,
      schema: patchSchemaOf(def),
      now: ctx.clock(),
      apiVersion: apiVersionOf(def.group, def.version),
      kind: def.kind,
      ...(req.subresource ? { subresource: req.subresource } : {}),
      ignoredFields: ignoredFieldsOf(def, req.subresource),
      typeError(config) {
        const mismatch = def.strategy.typeMismatch?.(storageForm(def, config as KubeObject));
        return mismatch && structuredMergeError(mismatch);
      },
    }) as KubeObject;
    if (!isJsonObject(object.metadata)) object.metadata = {};
    return object;
  };
  const optionErrors = validatePatchOptions('apply', { fieldManager: options.fieldManager, force: options.force });
  if (optionErrors.length) throw new StatusError(patchOptionsInvalidStatus(optionErrors));
  const appliedRv = isJsonObject(applied) && isJsonObject(applied.metadata) ? applied.metadata.resourceVersion : undefined;
  const existing = ctx.store.get(def.storageKey, requestKey(req));
  if (!existing && !req.subresource) {
    let object = apply(undefined);
    checkName(object, req.name ?? '');
    if (def.toStorage) object = def.toStorage(object);
    checkNamespace(def, object, req.namespace);
    const warnings = handleUnknownFields(def, object, options);
    return admitAndCreate(ctx, req, object, options, warnings, false);
  }
  return guaranteedUpdate(ctx, {
    req,
    options,
    isPut: false,
    recordFields: false,
    attempt(current) {
      let object = apply(current);
      checkPatchedIdentity(req, object);
      if (def.toStorage) object = def.toStorage(object);
      const warnings = handleUnknownFields(def, object, options);
      return { object, precondition: typeof appliedRv === 'string' && appliedRv && appliedRv !== current.metadata.resourceVersion ? appliedRv : undefined, warnings };
    },
  });
}
