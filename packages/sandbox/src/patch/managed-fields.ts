// metadata.managedFields: who owns which fields. This module decodes and encodes the entries, and
// records the ownership an ordinary write (create, update, non-apply patch) takes, as the API
// server's field manager does for an `Update` operation:
// - the fields the write added or changed become the writer's, and leave every other manager;
//   fields it removed leave every manager; a write that changes nothing changes no entry;
// - one entry per (manager, operation, apiVersion, subresource); an Update entry's set is the union
//   of what the manager took over time, and its time is the time of its last change;
// - apiVersion, kind and the server-owned metadata fields are never recorded; fields the endpoint
//   resets (`status` on the main resource, `spec` on /status) are ignored when the caller says so;
// - managedFields sent in a PUT/patch body replace the stored ones when they decode (an empty list
//   clears them), as they do on the real server;
// - at most 10 Update entries: the oldest are merged into `ancient-changes` per apiVersion;
// - entries are sorted like the server sorts them: operation, time, manager, apiVersion, subresource.

import { goQuote, goValue } from '../crd/go-format.ts';
import { fieldForbidden, fieldInvalid, fieldRequired, fieldTooLong, invalidStatus, type FieldError, type Status } from '../errors.ts';
import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { formatTimestamp } from '../meta/time.ts';
import { FieldSet, fieldElement, pathString, type FieldPath } from './field-set.ts';
import type { PatchType } from './patch-body.ts';
import { schemaWithMetadataOnly } from './builtin-schemas.ts';
import type { PatchSchema, SchemaNode } from './schema.ts';
import { compareValues, type Comparison } from './structured.ts';

type Operation = 'Apply' | 'Update';

interface Manager {
  manager: string;
  operation: Operation;
  apiVersion: string;
  /** '' for the main resource. */
  subresource: string;
  time: string | undefined;
  fields: FieldSet;
}

/** Managers by identity: the JSON of (manager, operation, apiVersion for Update, subresource). */
export type Managers = Map<string, Manager>;

/** Field paths given as field names, e.g. `['status']` or `['metadata', 'deletionTimestamp']`. */
export type FieldNamePath = readonly string[];

const maxUpdateManagers = 10;
const fieldManagerMaxLength = 128;

/** Fields no manager ever owns: type meta and the metadata the server sets. */
const strippedFields = FieldSet.of(
  [['apiVersion'], ['kind'], ['metadata'], ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => ['metadata', f])].map(
    (names) => names.map(fieldElement),
  ),
);

/** A manager's set without the fields no manager owns. */
export const withoutStrippedFields = (set: FieldSet): FieldSet => set.difference(strippedFields);

export const toFieldPaths = (paths: readonly FieldNamePath[] = []): FieldPath[] => paths.map((p) => p.map(fieldElement));

export function managerIdentity(m: Pick<Manager, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  const identity: Record<string, string> = {};
  if (m.manager) identity.manager = m.manager;
  identity.operation = m.operation;
  if (m.operation === 'Update' && m.apiVersion) identity.apiVersion = m.apiVersion;
  if (m.subresource) identity.subresource = m.subresource;
  return JSON.stringify(identity);
}

/** RFC 3339 with whole seconds in UTC, as metav1.Time serializes; `now` is a timestamp or epoch milliseconds. */
export function managedTime(now: string | number): string {
  const ms = typeof now === 'number' ? now : Date.parse(now);
  return Number.isNaN(ms) ? String(now) : formatTimestamp(ms);
}

/** Decodes `metadata.managedFields`; throws an Error worded like the server's decoder on a bad entry. */
export function decodeManagedFields(entries: unknown): Managers {
  const managers: Managers = new Map();
  if (entries === undefined || entries === null) return managers;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  entries.forEach((entry: unknown, index) => {
    const e = isJsonObject(entry) ? entry : {};
    const text = (key: string): string => (typeof e[key] === 'string' ? e[key] : '');
    const operation = text('operation');
    if (operation !== 'Apply' && operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (!text('apiVersion')) throw new Error('apiVersion must not be empty');
    const fieldsType = text('fieldsType');
    if (fieldsType === '') throw new Error(`missing fieldsType in managed fields entry ${index}`);
    if (fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${index}`);
    let fields: FieldSet;
    try {
      // A stored list decodes into sets that keep their frozen encodings: only what a write changes is
      // encoded again (FieldSet.toFieldsV1).
      fields = FieldSet.fromFieldsV1(e.fieldsV1 ?? {});
    } catch (err) {
      throw new Error(`error decoding versioned set from ${goValue(e)}: ${(err as Error).message}`, { cause: err });
    }
    const manager: Manager = {
      manager: text('manager'),
      operation,
      apiVersion: text('apiVersion'),
      subresource: text('subresource'),
      time: text('time') || undefined,
      fields,
    };
    managers.set(managerIdentity(manager), manager);
  });
  return managers;
}

/** The `metadata.managedFields` list for `managers` (undefined when nobody owns anything). */
function encodeManagedFields(managers: Managers): JsonObject[] | undefined {
  if (managers.size === 0) return undefined;
  const seconds = (m: Manager): number => (m.time ? Math.floor(Date.parse(m.time) / 1000) || 0 : 0);
  const order = (a: Manager, b: Manager): number =>
    compare(a.operation, b.operation) ||
    seconds(a) - seconds(b) ||
    compare(a.manager, b.manager) ||
    compare(a.apiVersion, b.apiVersion) ||
    compare(a.subresource, b.subresource);
  return [...managers.values()].sort(order).map((m) => {
    const entry: JsonObject = {};
    if (m.manager) entry.manager = m.manager;
    entry.operation = m.operation;
    entry.apiVersion = m.apiVersion;
    if (m.time) entry.time = m.time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = m.fields.toFieldsV1();
    if (m.subresource) entry.subresource = m.subresource;
    return entry;
  });
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Writes the encoded managers into a copy's metadata (removing the field when there are none). */
export function withManagedFields(object: JsonObject, managers: Managers): JsonObject {
  const metadata = isJsonObject(object.metadata) ? { ...object.metadata } : {};
  const encoded = encodeManagedFields(capUpdateManagers(managers));
  if (encoded) metadata.managedFields = encoded;
  else delete metadata.managedFields;
  return { ...object, metadata };
}

/** A copy of an object without `metadata.managedFields`, the form ownership is computed on. */
export function withoutManagedFields(object: JsonObject): JsonObject {
  if (!isJsonObject(object.metadata) || !('managedFields' in object.metadata)) return object;
  const { managedFields: _dropped, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/** Merges the oldest Update entries into `ancient-changes` (one per apiVersion) beyond the cap. */
export function capUpdateManagers(managers: Managers, max = maxUpdateManagers): Managers {
  const updaters = [...managers.entries()].filter(([, m]) => m.operation === 'Update');
  if (updaters.length <= max) return managers;
  const seconds = (m: Manager): number => (m.time ? Math.floor(Date.parse(m.time) / 1000) || 0 : 0);
  updaters.sort(([ia, a], [ib, b]) => seconds(a) - seconds(b) || compare(ia, ib));
  const out: Managers = new Map(managers);
  const firstOfVersion = new Map<string, string>();
  let count = updaters.length;
  for (const [identity, m] of updaters) {
    if (count <= max) break;
    const bucketIdentity = managerIdentity({ manager: 'ancient-changes', operation: 'Update', apiVersion: m.apiVersion, subresource: '' });
    const first = firstOfVersion.get(m.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(m.apiVersion, identity);
      continue;
    }
    // (The Go code would merge an existing bucket into itself and lose it; this keeps it.)
    if (identity === bucketIdentity) continue;
    let bucket = out.get(bucketIdentity);
    if (!bucket) {
      const firstManager = out.get(first);
      out.delete(first);
      bucket = { manager: 'ancient-changes', operation: 'Update', apiVersion: m.apiVersion, subresource: '', time: firstManager?.time, fields: firstManager?.fields ?? new FieldSet() };
    }
    out.set(bucketIdentity, { ...bucket, fields: m.fields.union(bucket.fields), time: m.time });
    out.delete(identity);
    count--;
  }
  return out;
}

/** A Comparison without the fields under `ignored` (the endpoint's reset fields). */
export function ignoring(comparison: Comparison, ignored: readonly FieldPath[]): Comparison {
  if (ignored.length === 0) return comparison;
  return {
    added: comparison.added.excluding(ignored),
    modified: comparison.modified.excluding(ignored),
    removed: comparison.removed.excluding(ignored),
  };
}

/**
 * Fields changed by a write leave the other managers: `taken` (added or modified) and `removed`.
 * Returns the conflicts, per manager identity, that the write took from others.
 */
export function takeFrom(managers: Managers, comparison: Comparison, except: string | undefined): Map<string, FieldSet> {
  const taken = comparison.added.union(comparison.modified);
  const conflicts = new Map<string, FieldSet>();
  for (const [identity, m] of managers) {
    if (identity === except) continue;
    const conflict = m.fields.intersection(taken);
    if (!conflict.isEmpty()) conflicts.set(identity, conflict);
  }
  return conflicts;
}

/** Removes conflicting and removed fields from the managers (all but `except`), dropping empty ones. */
export function releaseFields(managers: Managers, conflicts: Map<string, FieldSet>, removed: FieldSet, except: string | undefined): void {
  for (const [identity, m] of managers) {
    if (identity === except) continue;
    const conflict = conflicts.get(identity);
    // Most writes release nothing from most managers: keep their sets (and so their cached encodings).
    if (!conflict && m.fields.intersection(removed).isEmpty()) continue;
    const fields = m.fields.difference(conflict ?? new FieldSet()).difference(removed);
    if (fields.isEmpty()) managers.delete(identity);
    else managers.set(identity, { ...m, fields });
  }
}

export interface UpdateRecord {
  /** The stored object before the write; undefined on create. */
  live: object | undefined;
  /** The object about to be stored (after the patch or PUT body, before the strategy). */
  updated: object;
  /** `fieldManagerName(query fieldManager, User-Agent)`. */
  manager: string;
  /** The endpoint's group/version, e.g. `v1`, `apps/v1`. */
  apiVersion: string;
  /** `status`, `scale`, … for writes to a subresource. */
  subresource?: string;
  schema: PatchSchema | undefined;
  /**
   * Fields the endpoint resets, which nobody owns through it: typically `[['status']]` for the main
   * resource of a kind with a status subresource, and `[['spec']]` (plus what the strategy resets)
   * for `/status`.
   */
  ignoredFields?: readonly FieldNamePath[];
  /** RFC 3339 timestamp or epoch milliseconds. */
  now: string | number;
}

/**
 * Records the ownership a non-apply write takes (operation `Update`) and returns a copy of
 * `updated` with its new `metadata.managedFields`.
 */
export function recordUpdateManagedFields(input: UpdateRecord): JsonObject {
  const updated = input.updated as JsonObject;
  const subresource = input.subresource ?? '';
  let managers: Managers;
  try {
    managers = managersForUpdate(input.live as JsonObject | undefined, updated, subresource !== '');
  } catch {
    // The server clears managedFields it cannot decode rather than failing the write.
    return withoutManagedFields(updated);
  }
  const self = { manager: input.manager, operation: 'Update' as const, apiVersion: input.apiVersion, subresource };
  updateOwnership(managers, {
    live: withoutManagedFields((input.live ?? {}) as JsonObject),
    next: withoutManagedFields(updated),
    who: self,
    schema: input.schema ?? schemaWithMetadataOnly,
    ignored: toFieldPaths(input.ignoredFields),
    time: managedTime(input.now),
  });
  return withManagedFields(updated, managers);
}

/**
 * The Update step (also used for `before-first-apply`): other managers lose what the write changed
 * or removed, and the writer's entry gains what it added or changed.
 */
export function updateOwnership(
  managers: Managers,
  write: {
    live: JsonObject;
    next: JsonObject;
    who: Pick<Manager, 'manager' | 'operation' | 'apiVersion' | 'subresource'>;
    schema: SchemaNode;
    ignored: readonly FieldPath[];
    time: string;
  },
): void {
  const comparison = ignoring(compareValues(write.live, write.next, write.schema), write.ignored);
  releaseFields(managers, takeFrom(managers, comparison, undefined), comparison.removed, undefined);
  const gained = withoutStrippedFields(comparison.added.union(comparison.modified));
  if (gained.isEmpty()) return;
  const identity = managerIdentity(write.who);
  const previous = managers.get(identity);
  managers.set(identity, { ...write.who, time: write.time, fields: previous ? previous.fields.union(gained) : gained });
}

/** The managers a write starts from: the body's managedFields if they decode, else the stored ones. */
function managersForUpdate(live: JsonObject | undefined, updated: JsonObject, isSubresource: boolean): Managers {
  const stored = () => decodeManagedFields(isJsonObject(live?.metadata) ? live.metadata.managedFields : undefined);
  if (isSubresource) return stored();
  const sent = isJsonObject(updated.metadata) ? updated.metadata.managedFields : undefined;
  if (Array.isArray(sent) && (sent.length === 0 || (sent.length === 1 && isEmptyEntry(sent[0])))) return new Map();
  try {
    const managers = decodeManagedFields(sent);
    if (managers.size > 0) return managers;
  } catch {
    // Clients that do not understand managedFields must not lose them: fall back to the stored ones.
  }
  return stored();
}

const isEmptyEntry = (entry: unknown): boolean => isJsonObject(entry) && Object.values(entry).every((v) => v === undefined || v === null || v === '');

/** The 409 of an apply that conflicts with other managers, worded and shaped as the server sends it. */
export function applyConflictStatus(conflicts: ReadonlyMap<string, FieldSet>, managers: Managers): Status {
  const identities = [...conflicts.keys()].sort();
  const describe = (identity: string): string => describeManager(managers.get(identity));
  const all = identities.flatMap((identity) => (conflicts.get(identity)?.paths() ?? []).map((path) => ({ identity, path })));
  const causes = all.map(({ identity, path }) => ({ reason: 'FieldManagerConflict', message: `conflict with ${describe(identity)}`, field: pathString(path) }));
  let message: string;
  if (all.length === 1 && all[0]) {
    message = `Apply failed with 1 conflict: conflict with ${describe(all[0].identity)}: ${pathString(all[0].path)}`;
  } else {
    const lines = identities.flatMap((identity) => [
      `conflicts with ${describe(identity)}`,
      ...(conflicts.get(identity)?.paths() ?? []).map((path) => `- ${pathString(path)}`),
    ]);
    message = `Apply failed with ${all.length} conflicts: ${lines.join('\n')}`;
  }
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Conflict', details: { causes }, code: 409 };
}

function describeManager(m: Manager | undefined): string {
  if (!m) return '""';
  let text = goQuote(m.manager);
  if (m.subresource) text += ` with subresource ${goQuote(m.subresource)}`;
  if (m.operation === 'Update') text += ` using ${m.apiVersion}`;
  return text;
}

/**
 * The manager of a write: the `fieldManager` query parameter, else the User-Agent up to its first
 * `/`, without unprintable characters and cut to 128 bytes (an empty User-Agent gives '').
 */
export function fieldManagerName(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  const prefix = (userAgent ?? '').split('/')[0] ?? '';
  let out = '';
  let bytes = 0;
  for (const ch of prefix) {
    if (!isPrintable(ch)) continue;
    const size = Buffer.byteLength(ch);
    if (bytes + size > fieldManagerMaxLength) break;
    out += ch;
    bytes += size;
  }
  return out;
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const isPrintable = (ch: string): boolean => ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);

/** `ValidateFieldManager`: at most 128 bytes, printable characters only. */
export function validateFieldManager(fieldManager: string, field = 'fieldManager'): FieldError[] {
  const errors: FieldError[] = [];
  if (Buffer.byteLength(fieldManager) > fieldManagerMaxLength) errors.push(fieldTooLong(field, fieldManager, fieldManagerMaxLength));
  let position = 0;
  for (const ch of fieldManager) {
    const code = ch.codePointAt(0) ?? 0;
    if (!isPrintable(ch)) {
      errors.push(fieldInvalid(field, fieldManager, `invalid character U+${code.toString(16).toUpperCase().padStart(4, '0')} (at position ${position})`));
    }
    position += Buffer.byteLength(ch);
  }
  return errors;
}

/** The fieldManager and force checks of `ValidatePatchOptions` (dryRun and fieldValidation are the caller's). */
export function validatePatchOptions(patchType: PatchType, options: { fieldManager?: string; force?: boolean }): FieldError[] {
  const errors: FieldError[] = [];
  if (patchType !== 'apply' && options.force !== undefined) errors.push(fieldForbidden('force', 'may not be specified for non-apply patch'));
  if (patchType === 'apply' && !options.fieldManager) errors.push(fieldRequired('fieldManager', 'is required for apply patch'));
  return [...errors, ...validateFieldManager(options.fieldManager ?? '')];
}

/** 422 `PatchOptions.meta.k8s.io "" is invalid: …` for option errors. */
export const patchOptionsInvalidStatus = (errors: readonly FieldError[]): Status =>
  invalidStatus({ kind: 'PatchOptions', group: 'meta.k8s.io', name: '' }, errors);
