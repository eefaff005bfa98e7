// The write path shared by create, update, patch and apply: decoding checks, defaulting, admission,
// the strategy's BeforeCreate/BeforeUpdate steps, validation, no-op detection, and the optimistic
// read-modify-write against the store (GuaranteedUpdate: retried on a race unless the client gave a
// resourceVersion precondition).

import { alreadyExistsStatus, conflictStatus, failure, notFoundStatus, StatusError, withEarlierWarnings, type FieldError } from '../errors.ts';
import { jsonEqual, objectKey, type KubeObject } from '../meta/object.ts';
import { generateNameFrom } from '../meta/names.ts';
import { formatTimestamp } from '../meta/time.ts';
import { apiVersionOf, type GroupVersionKind, type ResourceDefinition, type WriteContext } from '../registry/types.ts';
import { StorageError, type StoredEntry } from '../storage/store.ts';
import { randomUUID } from 'node:crypto';
import type { AdmissionAttributes, ApiServerAdmissionOperation } from './admission.ts';
import type { ServerContext } from './context.ts';
import { manageFieldsOnUpdate, type FieldManagerRequest } from './field-manager.ts';
import { fieldManagerName } from '../patch/index.ts';
import type { WriteOptions } from './options.ts';
import { parseResourceVersion } from './options.ts';
import type { ApiRequest, BodyKeys, ObjectResult } from './request.ts';
import { cannotBeHandled } from './decode.ts';
import { inEncodedOrder } from './encoded-order.ts';
import { invalidObject } from './status.ts';
import { requestKey } from './storage-key.ts';
import { writeOrigin } from './write-origin.ts';

export const targetOf = (def: ResourceDefinition, name: string): { resource: string; group: string; name: string } => ({
  resource: def.resource,
  group: def.group,
  name,
});

export function admissionAttributes(
  req: ApiRequest,
  operation: ApiServerAdmissionOperation,
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
  dryRun: boolean,
  options: Record<string, unknown>,
): AdmissionAttributes {
  const { def } = req;
  return {
    operation,
    kind: { group: def.group, version: def.version, kind: def.kind },
    resource: { group: def.group, version: def.version, resource: def.resource },
    subresource: req.subresource,
    namespace: def.namespaced ? req.namespace : undefined,
    name: req.name ?? object?.metadata.name ?? '',
    object,
    oldObject,
    dryRun,
    options: { kind: options.kind, apiVersion: 'meta.k8s.io/v1', ...options, ...(dryRun ? { dryRun: ['All'] } : {}) },
    userInfo: req.user,
  };
}

/** Awaits a step that yields warnings; if it fails, the failure carries the warnings recorded before. */
export async function recordWarnings(warnings: string[], step: Promise<string[]>): Promise<void> {
  try {
    warnings.push(...(await step));
  } catch (err) {
    throw withEarlierWarnings(err, warnings);
  }
}

/**
 * Fields the schema does not know: dropped, and reported as warnings or (Strict) a 400. A built-in kind's
 * decoder meets them in the order of the body's text, repeated keys among them (a custom resource's pruning
 * reports them sorted, after the repeated keys); a patch reports them in the order its merged object encodes.
 */
export function handleUnknownFields(def: ResourceDefinition, object: KubeObject, options: WriteOptions, bodyKeys?: BodyKeys): string[] {
  const unknown = def.strategy.dropUnknownFields?.(object) ?? [];
  const found: Problem[] = [...(bodyKeys?.duplicates ?? []).map((path) => ({ path, repeat: true })), ...unknown.map((path) => ({ path, repeat: false }))];
  const ordered = !def.custom && bodyKeys && found.length > 1 ? inDocumentOrder(found, bodyKeys) : found;
  const problems = ordered.map(({ path, repeat }) => `${repeat ? 'duplicate' : 'unknown'} field "${path}"`);
  if (options.fieldValidation === 'Strict' && problems.length) throw cannotBeHandled(def, `strict decoding error: ${problems.join(', ')}`);
  return options.fieldValidation === 'Warn' ? problems : [];
}

/** A field strict decoding refuses: one the kind does not have, or a key its object repeats. */
interface Problem {
  path: string;
  repeat: boolean;
}

/** The problems by where the body has them: an unknown field where its key is, a repeat where it repeats. */
function inDocumentOrder(problems: readonly Problem[], bodyKeys: BodyKeys): Problem[] {
  const keyOf = ({ path, repeat }: Problem): string => `${repeat ? 'repeat' : 'first'} ${path}`;
  const positions = new Map<string, number[]>();
  bodyKeys.inOrder().forEach((key, i) => {
    const list = positions.get(keyOf(key));
    if (list) list.push(i);
    else positions.set(keyOf(key), [i]);
  });
  return problems
    .map((problem, i) => ({ problem, at: positions.get(keyOf(problem))?.shift() ?? Infinity, i }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map(({ problem }) => problem);
}

/** The CreateOptions/UpdateOptions fields a request set, as admission reviews carry them. */
function writeOptionsForAdmission(req: ApiRequest, options: WriteOptions): Record<string, unknown> {
  const fieldValidation = req.query.get('fieldValidation');
  return {
    ...(options.fieldManager ? { fieldManager: options.fieldManager } : {}),
    ...(fieldValidation ? { fieldValidation } : {}),
  };
}

function fieldManagerRequest(req: ApiRequest, options: WriteOptions, now: number): FieldManagerRequest {
  return {
    manager: fieldManagerName(options.fieldManager, req.userAgent),
    apiVersion: apiVersionOf(req.def.group, req.def.version),
    subresource: req.subresource,
    now,
  };
}

/** Defaulting, admission, BeforeCreate, validation and storage of a new object. */
export async function admitAndCreate(
  ctx: ServerContext,
  req: ApiRequest,
  object: KubeObject,
  options: WriteOptions,
  warnings: string[],
  recordFields: boolean,
): Promise<ObjectResult> {
  const { def } = req;
  const now = ctx.clock();
  const wctx: WriteContext = { now, dryRun: options.dryRun, operation: 'create' };
  // Steps below may replace object.metadata (custom resource defaulting rebuilds the object), so it
  // is read afresh each time.
  const prefix = object.metadata.name ? undefined : object.metadata.generateName;
  const generatedName = prefix ? generateNameFrom(prefix) : undefined;
  if (generatedName) object.metadata.name = generatedName;
  // A Job's generated selector needs its uid while defaulting.
  object.metadata.uid = randomUUID();
  def.strategy.omitEmpty?.(object);
  def.strategy.applyDefaults(object, wctx);
  if (recordFields) manageFieldsOnUpdate(def, object, undefined, fieldManagerRequest(req, options, now));
  // Mutating admission runs before BeforeCreate: system fields are wiped, the uid is not assigned
  // yet, nor a name that is to be generated (the request then names no object).
  const { uid } = object.metadata;
  for (const field of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const) delete object.metadata[field];
  if (generatedName) delete object.metadata.name;
  const attributes = admissionAttributes(req, 'CREATE', object, undefined, options.dryRun, {
    kind: 'CreateOptions',
    ...writeOptionsForAdmission(req, options),
  });
  await recordWarnings(warnings, ctx.admission.admit(attributes));
  def.strategy.omitEmpty?.(object);
  object.metadata.uid = uid;
  if (!object.metadata.name && object.metadata.generateName) {
    object.metadata.name = object.metadata.generateName === prefix && generatedName ? generatedName : generateNameFrom(object.metadata.generateName);
  }

  def.strategy.prepareForCreate(object, wctx);
  const meta = object.metadata;
  meta.creationTimestamp = formatTimestamp(now);
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.resourceVersion;
  if (def.strategy.tracksGeneration) meta.generation = 1;
  else delete meta.generation;
  if (def.namespaced) meta.namespace = req.namespace;
  const errors = def.strategy.validateCreate(object);
  if (errors.length) throw withEarlierWarnings(invalidObject(def, meta.name ?? '', errors), warnings);
  warnings.push(...(def.strategy.warnings?.(object) ?? []));
  // Validating admission sees the complete object, generated name included.
  await recordWarnings(warnings, ctx.admission.validate({ ...attributes, name: req.name ?? meta.name ?? '' }));

  const stored = inEncodedOrder(object, def.custom);
  if (options.dryRun) return { type: 'object', code: 201, object: stored, warnings };
  const name = meta.name ?? '';
  try {
    const entry = ctx.store.create(def.storageKey, objectKey(req.namespace, name), stored, writeOrigin(req));
    return { type: 'object', code: 201, object: entry.object, entry, warnings };
  } catch (err) {
    if (err instanceof StorageError && err.code === 'exists') throw new StatusError(alreadyExistsStatus(targetOf(def, name)));
    throw err;
  }
}

export interface UpdateAttempt {
  /** The object the client wants, built from the stored one (a PUT body, a patched copy). */
  object: KubeObject;
  /** A resourceVersion the client required (PUT body, or one a patch changed): a precondition. */
  precondition: string | undefined;
  warnings: string[];
}

export interface UpdatePlan {
  req: ApiRequest;
  options: WriteOptions;
  /** PUT requires the RV for custom resources; patches never do. */
  isPut: boolean;
  /** Builds the desired object from the stored one; called again if a concurrent write won. */
  attempt(current: KubeObject): Promise<UpdateAttempt> | UpdateAttempt;
  /** Server-side apply records its own managed fields. */
  recordFields: boolean;
  /** Admission sees the subresource's own kind instead of the object (the Scale of `/scale`). */
  admissionView?: AdmissionView;
}

export interface AdmissionView {
  subresource: string;
  kind: GroupVersionKind;
  /** The view of an object (new or stored). */
  view(object: KubeObject): KubeObject;
  /** The object with what mutating admission changed in its view. */
  fold(view: KubeObject, object: KubeObject): KubeObject;
}

const maxRetries = 16;

/** Runs an update (PUT, PATCH or apply to an existing object) to completion. */
export async function guaranteedUpdate(ctx: ServerContext, plan: UpdatePlan): Promise<ObjectResult> {
  const { req } = plan;
  const { def } = req;
  const name = req.name ?? '';
  const key = requestKey(req);
  for (let retry = 0; ; retry++) {
    const entry = ctx.store.get(def.storageKey, key);
    if (!entry) throw new StatusError(notFoundStatus(targetOf(def, name)));
    const result = await updateOnce(ctx, plan, entry);
    if (result !== 'retry') return result;
    if (retry >= maxRetries) throw new StatusError(conflictStatus(targetOf(def, name)));
  }
}

async function updateOnce(ctx: ServerContext, plan: UpdatePlan, entry: StoredEntry): Promise<ObjectResult | 'retry'> {
  const { req, options } = plan;
  const { def } = req;
  const name = req.name ?? '';
  const current = entry.object;
  const attempt = await plan.attempt(current);
  const { precondition, warnings } = attempt;
  let { object } = attempt;
  if (precondition !== undefined) {
    if (parseResourceVersion(precondition) !== entry.rv) throw new StatusError(conflictStatus(targetOf(def, name)));
  } else if (plan.isPut && def.strategy.requiresResourceVersionOnUpdate) {
    throw resourceVersionRequired(def, name);
  }
  const now = ctx.clock();
  const wctx: WriteContext = { now, dryRun: options.dryRun, operation: 'update', old: current };
  def.strategy.omitEmpty?.(object);
  // `/finalize` changes exactly what the namespace defaults restore on update.
  if (req.subresource !== 'finalize') def.strategy.applyDefaults(object, wctx);
  if (plan.recordFields) manageFieldsOnUpdate(def, object, current, fieldManagerRequest(req, options, now));
  object.metadata.resourceVersion = current.metadata.resourceVersion;
  const { admissionView: view } = plan;
  const attributes = admissionAttributes(req, 'UPDATE', object, current, options.dryRun, {
    kind: 'UpdateOptions',
    ...writeOptionsForAdmission(req, options),
  });
  const admitted = view ? { ...attributes, kind: view.kind, subresource: view.subresource, object: view.view(object), oldObject: view.view(current) } : attributes;
  await recordWarnings(warnings, ctx.admission.admit(admitted));
  if (view && admitted.object) object = view.fold(admitted.object, object);
  def.strategy.omitEmpty?.(object);

  beforeUpdate(def, req.subresource, object, current, wctx);
  const errors = validateUpdateOf(def, req.subresource, object, current);
  if (errors.length) throw withEarlierWarnings(invalidObject(def, name, errors), warnings);
  warnings.push(...(def.strategy.warnings?.(object) ?? []));
  await recordWarnings(warnings, ctx.admission.validate(view ? { ...admitted, object: view.view(object) } : attributes));

  if (isNoOp(object, current)) return { type: 'object', code: 200, object: current, entry, warnings };
  const updated = inEncodedOrder(object, def.custom);
  if (options.dryRun) return { type: 'object', code: 200, object: updated, warnings };
  try {
    if (shouldDeleteDuringUpdate(def, updated, current)) {
      ctx.store.delete(def.storageKey, entry.key, writeOrigin(req), entry.rv);
      updated.metadata.resourceVersion = String(entry.rv);
      return { type: 'object', code: 200, object: updated, warnings };
    }
    const stored = ctx.store.update(def.storageKey, entry.key, updated, writeOrigin(req), entry.rv);
    return { type: 'object', code: 200, object: stored.object, entry: stored, warnings };
  } catch (err) {
    if (err instanceof StorageError && err.code === 'conflict') {
      if (precondition !== undefined) throw new StatusError(conflictStatus(targetOf(def, name)));
      return 'retry';
    }
    if (err instanceof StorageError && err.code === 'notFound') throw new StatusError(notFoundStatus(targetOf(def, name)));
    throw err;
  }
}

/** rest.BeforeUpdate: system fields come from the stored object, then the strategy prepares. */
function beforeUpdate(def: ResourceDefinition, subresource: string | undefined, object: KubeObject, old: KubeObject, wctx: WriteContext): void {
  const meta = object.metadata;
  const oldMeta = old.metadata;
  if (def.strategy.tracksGeneration && oldMeta.generation !== undefined) meta.generation = oldMeta.generation;
  else delete meta.generation;
  if (!meta.uid) meta.uid = oldMeta.uid;
  meta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
  else delete meta.deletionTimestamp;
  if (oldMeta.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  else delete meta.deletionGracePeriodSeconds;
  if (def.namespaced) meta.namespace = oldMeta.namespace;
  const { strategy } = def;
  if (subresource === 'status') strategy.prepareForStatusUpdate(object, old, wctx);
  else if (subresource === 'finalize' && strategy.prepareForFinalizeUpdate) strategy.prepareForFinalizeUpdate(object, old);
  else if (subresource === 'ephemeralcontainers' && strategy.prepareForEphemeralContainersUpdate) strategy.prepareForEphemeralContainersUpdate(object, old);
  else strategy.prepareForUpdate(object, old, wctx);
}

/** The strategy's update validation for the endpoint written to. */
function validateUpdateOf(def: ResourceDefinition, subresource: string | undefined, object: KubeObject, old: KubeObject): FieldError[] {
  const { strategy } = def;
  if (subresource === 'status') return strategy.validateStatusUpdate(object, old);
  if (subresource === 'ephemeralcontainers' && strategy.validateEphemeralContainersUpdate) return strategy.validateEphemeralContainersUpdate(object, old);
  return strategy.validateUpdate(object, old);
}

/** A write that changes nothing but managedFields keeps the stored object and version, with no event. */
function isNoOp(object: KubeObject, current: KubeObject): boolean {
  const strip = (o: KubeObject): KubeObject => {
    const { managedFields: _m, resourceVersion: _r, ...meta } = o.metadata;
    return { ...o, metadata: meta };
  };
  return jsonEqual(strip(object), strip(current));
}

/**
 * An object being deleted goes with an update that leaves it no finalizer, unless a grace period is pending (a
 * pod on a node, even a terminal one: the kubelet's DELETE ends the wait), as the real store's
 * shouldDeleteDuringUpdate decides.
 */
function shouldDeleteDuringUpdate(def: ResourceDefinition, object: KubeObject, old: KubeObject): boolean {
  if ((object.metadata.finalizers ?? []).length > 0) return false;
  if (!old.metadata.deletionTimestamp) return false;
  if (def.strategy.blocksDeletion?.(object)) return false;
  const grace = old.metadata.deletionGracePeriodSeconds;
  return grace === undefined || grace === 0;
}

/** Custom resources require a resourceVersion on PUT; the error names the resource, not the Kind. */
function resourceVersionRequired(def: ResourceDefinition, name: string): StatusError {
  const qualified = def.group ? `${def.resource}.${def.group}` : def.resource;
  const detail = 'Invalid value: 0x0: must be specified for an update';
  return new StatusError(
    failure(422, 'Invalid', `${qualified} "${name}" is invalid: metadata.resourceVersion: ${detail}`, {
      name,
      ...(def.group ? { group: def.group } : {}),
      kind: def.resource,
      causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'metadata.resourceVersion' }],
    }),
  );
}
