// Server-side apply (PATCH with `application/apply-patch+yaml`).
//
// Field ownership, as implemented here (structured-merge-diff's rules, simplified where noted in
// structured.ts):
// - The applier owns exactly the fields of its applied configuration: scalars, list items (keyed by
//   the schema's list-map keys, or by value for sets), atomic lists/structs/maps as a whole, map
//   entries, and fields set to null or `{}`. Type meta and server-set metadata are never owned.
// - The configuration is merged into the live object: objects key by key, keyed lists and sets
//   item by item (live order kept, new items after), atomic values and scalars replaced.
// - Fields the applier owned before and no longer applies are removed, unless another manager
//   owns them (or, for a struct field, something under them).
// - A field that another manager owns and that the apply adds or changes is a conflict: 409
//   `Apply failed with N conflict(s)` with one `FieldManagerConflict` cause per field, unless
//   `force`, which moves the field to the applier. Applying the value another manager set shares
//   ownership without conflict. Fields the apply removes leave every manager.
// - An object whose managedFields are empty (created without them) first has all its fields given
//   to an Update manager `before-first-apply`, so the first applier conflicts with what exists.
// - Creating by apply (no live object) gives the applier everything it sent.
// - The applier's entry is (manager, Apply, subresource); its time moves only when the object
//   changed. Other entries keep theirs. Encoding, sorting and capping are managed-fields.ts's.

import { StatusError } from '../errors.ts';
import { isJsonObject, jsonEqual, type JsonObject } from '../meta/object.ts';
import { FieldSet } from './field-set.ts';
import { jsonKindName } from './go-format.ts';
import {
  applyConflictStatus,
  decodeManagedFields,
  ignoring,
  managedTime,
  managerIdentity,
  patchOptionsInvalidStatus,
  releaseFields,
  takeFrom,
  toFieldPaths,
  updateOwnership,
  validatePatchOptions,
  withManagedFields,
  withoutManagedFields,
  withoutStrippedFields,
  type FieldNamePath,
  type Managers,
} from './managed-fields.ts';
import { schemaWithMetadataOnly } from './builtin-schemas.ts';
import type { PatchSchema } from './schema.ts';
import { badRequest, unwrappedError } from './status.ts';
import { appliedValueErrors, compareValues, fieldSetOf, mergeApplied, removeFields, withNamedFields } from './structured.ts';

export interface ServerSideApplyInput {
  /** The stored object, or undefined to create by apply. */
  live: object | undefined;
  /** The decoded apply body. */
  applied: unknown;
  fieldManager: string;
  force: boolean;
  /** The kind's merge metadata (`strategicSchemaFor`, or `patchSchemaFromOpenAPI` for a custom resource). */
  schema: PatchSchema | undefined;
  /** RFC 3339 timestamp or epoch milliseconds. */
  now: string | number;
  /**
   * The endpoint's group/version and kind. The applied object must name them exactly (400
   * `invalid object type: …` otherwise); when omitted, the live object's (or applied object's) are used.
   */
  apiVersion?: string;
  kind?: string;
  subresource?: string;
  /** Fields the endpoint resets (see UpdateRecord.ignoredFields). */
  ignoredFields?: readonly FieldNamePath[];
  /** A value of the applied object that the kind's type cannot hold, as structured-merge-diff words it. */
  typeError?(applied: JsonObject): { path: string; message: string } | undefined;
}

/** Applies a configuration; returns the new object with its `metadata.managedFields`. */
export function applyServerSideApply(input: ServerSideApplyInput): JsonObject {
  const optionErrors = validatePatchOptions('apply', { fieldManager: input.fieldManager, force: input.force });
  if (optionErrors.length) throw new StatusError(patchOptionsInvalidStatus(optionErrors));
  const applied = input.applied;
  if (!isJsonObject(applied)) {
    throw badRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKindName(applied)} into Go value of type map[string]interface {}`);
  }
  const live = input.live === undefined ? undefined : withoutManagedFields(input.live as JsonObject);
  const expectedVersion = input.apiVersion ?? text(live?.apiVersion) ?? text(applied.apiVersion) ?? '';
  const expectedKind = input.kind ?? text(live?.kind) ?? text(applied.kind) ?? '';
  const appliedGvk = groupVersionKind(text(applied.apiVersion) ?? '', text(applied.kind) ?? '');
  // A served endpoint always has a kind and version, so an applied object without them never matches.
  if (!applied.apiVersion || !applied.kind || appliedGvk !== groupVersionKind(expectedVersion, expectedKind)) {
    throw badRequest(`invalid object type: ${appliedGvk}`);
  }
  const appliedMeta = isJsonObject(applied.metadata) ? applied.metadata : {};
  if (appliedMeta.managedFields !== undefined && appliedMeta.managedFields !== null) throw badRequest('metadata.managedFields must be nil');

  const schema = input.schema ?? schemaWithMetadataOnly;
  const typeError = input.typeError?.(applied);
  const errors = [...appliedValueErrors(applied, schema), ...(typeError ? [typeError] : [])];
  if (errors.length) {
    const detail = errors.length === 1 ? format(errors[0]) : ['errors:', ...errors.map((e) => `  ${format(e)}`)].join('\n');
    const name = `${text(appliedMeta.namespace) ?? ''}/${text(appliedMeta.name) ?? ''}`;
    throw unwrappedError(`failed to create typed patch object (${appliedGvk}; ${name}): ${detail}`);
  }

  const stored = input.live as JsonObject | undefined;
  let managers: Managers;
  try {
    managers = decodeManagedFields(isJsonObject(stored?.metadata) ? stored.metadata.managedFields : undefined);
  } catch (err) {
    throw unwrappedError(`failed to decode managed fields: ${(err as Error).message}`);
  }
  const time = managedTime(input.now);
  const subresource = input.subresource ?? '';
  const ignored = toFieldPaths(input.ignoredFields);
  const base = live ?? {};
  if (live && managers.size === 0) {
    updateOwnership(managers, {
      live: {},
      next: live,
      who: { manager: 'before-first-apply', operation: 'Update', apiVersion: expectedVersion, subresource },
      schema,
      ignored,
      time,
    });
  }

  const applier = { manager: input.fieldManager, operation: 'Apply' as const, apiVersion: expectedVersion, subresource };
  const identity = managerIdentity(applier);
  const previous = managers.get(identity)?.fields;
  const configured = fieldSetOf(applied, schema).excluding(ignored);
  managers.set(identity, { ...applier, time: managers.get(identity)?.time, fields: configured });

  let merged = mergeApplied(base, applied, schema);
  if (previous && !previous.isEmpty()) {
    const owned = [...managers.values()].reduce((all, m) => all.union(m.fields), new FieldSet());
    const stale = withNamedFields(previous, schema).difference(withNamedFields(owned, schema));
    merged = removeFields(merged, stale, schema) as JsonObject;
  }

  const comparison = ignoring(compareValues(base, merged, schema), ignored);
  const conflicts = takeFrom(managers, comparison, identity);
  if (conflicts.size > 0 && !input.force) throw new StatusError(applyConflictStatus(conflicts, managers));
  releaseFields(managers, conflicts, comparison.removed, identity);

  const fields = withoutStrippedFields(configured);
  const changed = !jsonEqual(base, merged);
  if (fields.isEmpty()) managers.delete(identity);
  else managers.set(identity, { ...applier, time: changed ? time : managers.get(identity)?.time, fields });
  return withManagedFields(changed ? merged : base, managers);
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** schema.GroupVersionKind's String(): `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`, `/, Kind=`. */
function groupVersionKind(apiVersion: string, kind: string): string {
  const parts = apiVersion.split('/');
  const [group, version] = parts.length === 1 ? ['', parts[0] ?? ''] : parts.length === 2 ? parts : ['', ''];
  return `${group}/${version}, Kind=${kind}`;
}

const format = (e: { path: string; message: string } | undefined): string => (e ? (e.path ? `${e.path}: ${e.message}` : e.message) : '');
