// ObjectMeta validation as apimachinery's api/validation does it on create and update, plus the
// stricter finalizer rule that built-in kinds add (pkg/apis/core/validation), in the real order.

import { fieldForbidden, fieldInvalid, fieldRequired, fieldTooLong, type FieldError } from '../errors.ts';
import { goQuote } from '../crd/go-format.ts';
import { goLiteral, goStringSliceText } from './golang.ts';
import { asArray, asNumber, asObject, asString, asStringMap, isPresent } from './json.ts';
import { isQualifiedName, isValidLabelValue, nameIsDNSLabel, nameIsDNSSubdomain, type NameValidator } from './names.ts';

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
export const FIELD_IMMUTABLE = 'field is immutable';
export const IS_NEGATIVE_ERROR = 'must be greater than or equal to 0';

const standardFinalizers = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

export interface MetaCreateOptions {
  namespaced: boolean;
  /** How metadata.name (and generateName, as a prefix) is checked; DNS-1123 subdomain by default. */
  nameValidator?: NameValidator;
  /**
   * Built-in kinds also require a finalizer without '/' to be a standard one (reported with an
   * indexed field); the generic apimachinery check (CRs, webhooks, leases) does not.
   */
  standardFinalizerNames?: boolean;
}

export function validateLabels(labels: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [key, value] of Object.entries(asStringMap(labels))) {
    errs.push(...validateLabelName(key, path));
    for (const msg of isValidLabelValue(value)) errs.push(fieldInvalid(path, value, msg));
  }
  return errs;
}

export function validateLabelName(name: string, path: string): FieldError[] {
  return isQualifiedName(name).map((msg) => fieldInvalid(path, name, msg));
}

/** Annotation keys are qualified names compared in lower case; values are free-form but count toward 256 KiB. */
export function validateAnnotations(annotations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(asStringMap(annotations))) {
    for (const msg of isQualifiedName(key.toLowerCase())) errs.push(fieldInvalid(path, key, msg));
    size += Buffer.byteLength(key, 'utf8') + Buffer.byteLength(value, 'utf8');
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldTooLong(path, '', TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

function ownerReferenceLiteral(ref: Record<string, unknown>): string {
  const ptr = (v: unknown): string => (typeof v === 'boolean' ? `(*bool)(${v})` : '(*bool)(nil)');
  return `v1.OwnerReference{APIVersion:${goQuote(asString(ref.apiVersion))}, Kind:${goQuote(asString(ref.kind))}, Name:${goQuote(asString(ref.name))}, UID:${goQuote(asString(ref.uid))}, Controller:${ptr(ref.controller)}, BlockOwnerDeletion:${ptr(ref.blockOwnerDeletion)}}`;
}

/** The version part of an apiVersion as schema.FromAPIVersionAndKind reads it. */
function apiVersionParts(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  return { group: '', version: '' };
}

function validateOwnerReferences(refs: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = asArray(refs).map(asObject);
  let firstController = '';
  for (const ref of list) {
    const apiVersion = asString(ref.apiVersion);
    const kind = asString(ref.kind);
    const gv = apiVersionParts(apiVersion);
    if (gv.version === '') errs.push(fieldInvalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (kind === '') errs.push(fieldInvalid(`${path}.kind`, kind, 'must not be empty'));
    if (asString(ref.name) === '') errs.push(fieldInvalid(`${path}.name`, '', 'must not be empty'));
    if (asString(ref.uid) === '') errs.push(fieldInvalid(`${path}.uid`, '', 'must not be empty'));
    if (gv.group === '' && gv.version === 'v1' && kind === 'Event')
      errs.push(fieldInvalid(path, goLiteral(ownerReferenceLiteral(ref)), '/v1, Kind=Event is disallowed from being an owner'));
    if (ref.controller === true) {
      const current = `${kind}/${asString(ref.name)}`;
      if (firstController !== '')
        errs.push(
          fieldInvalid(
            path,
            goLiteral(`[]v1.OwnerReference{${list.map(ownerReferenceLiteral).join(', ')}}`),
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      else firstController = current;
    }
  }
  return errs;
}

function validateFinalizers(finalizers: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = asArray(finalizers).map(asString);
  for (const f of list) errs.push(...isQualifiedName(f).map((msg) => fieldInvalid(path, f, msg)));
  if (list.includes('orphan') && list.includes('foregroundDeletion'))
    errs.push(fieldInvalid(path, goLiteral(goStringSliceText(list)), 'finalizer orphan and foregroundDeletion cannot be both set'));
  return errs;
}

/** A finalizer without a '/' must be one of the standard names (kubernetes, orphan, foregroundDeletion). */
export function validateStandardFinalizerName(finalizer: string, path: string): FieldError[] {
  return finalizer.split('/').length === 1 && !standardFinalizers.has(finalizer)
    ? [fieldInvalid(path, finalizer, 'name is neither a standard finalizer name nor is it fully qualified')]
    : [];
}

function validateManagedFields(entries: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  asArray(entries).forEach((raw, i) => {
    const entry = asObject(raw);
    const p = `${path}[${i}]`;
    const operation = asString(entry.operation);
    if (operation !== 'Apply' && operation !== 'Update') errs.push(fieldInvalid(`${p}.operation`, operation, 'must be `Apply` or `Update`'));
    const fieldsType = asString(entry.fieldsType);
    if (fieldsType !== '' && fieldsType !== 'FieldsV1') errs.push(fieldInvalid(`${p}.fieldsType`, fieldsType, 'must be `FieldsV1`'));
    const manager = asString(entry.manager);
    if (manager.length > 128) errs.push(fieldTooLong(`${p}.manager`, manager, 128));
    [...manager].forEach((ch, pos) => {
      const code = ch.codePointAt(0) ?? 0;
      if (code < 0x20 || (code >= 0x7f && code < 0xa0))
        errs.push(fieldInvalid(`${p}.manager`, manager, `invalid character U+${code.toString(16).toUpperCase().padStart(4, '0')} (at position ${pos})`));
    });
    if (asString(entry.subresource).length > 256) errs.push(fieldTooLong(`${p}.subresource`, entry.subresource, 256));
  });
  return errs;
}

function standardFinalizerErrors(meta: Record<string, unknown>): FieldError[] {
  return asArray(meta.finalizers).flatMap((f, i) => validateStandardFinalizerName(asString(f), `metadata.finalizers[${i}]`));
}

/** The metadata checks shared by create and update (everything after name and namespace). */
function validateMetaCommon(meta: Record<string, unknown>): FieldError[] {
  return [
    ...validateLabels(meta.labels, 'metadata.labels'),
    ...validateAnnotations(meta.annotations, 'metadata.annotations'),
    ...validateOwnerReferences(meta.ownerReferences, 'metadata.ownerReferences'),
    ...validateFinalizers(meta.finalizers, 'metadata.finalizers'),
    ...validateManagedFields(meta.managedFields, 'metadata.managedFields'),
  ];
}

/**
 * ValidateObjectMeta for a create (name generation already done): generateName, name, namespace,
 * generation, labels, annotations, ownerReferences, finalizers, managedFields, then (built-ins) the
 * indexed standard-finalizer check.
 */
export function validateObjectMetaCreate(metadata: unknown, opts: MetaCreateOptions): FieldError[] {
  const meta = asObject(metadata);
  const nameFn = opts.nameValidator ?? nameIsDNSSubdomain;
  const errs: FieldError[] = [];
  const generateName = asString(meta.generateName);
  if (generateName !== '') for (const msg of nameFn(generateName, true)) errs.push(fieldInvalid('metadata.generateName', generateName, msg));
  const name = asString(meta.name);
  if (name === '') errs.push(fieldRequired('metadata.name', 'name or generateName is required'));
  else for (const msg of nameFn(name, false)) errs.push(fieldInvalid('metadata.name', name, msg));
  const namespace = asString(meta.namespace);
  if (opts.namespaced) {
    if (namespace === '') errs.push(fieldRequired('metadata.namespace'));
    else for (const msg of nameIsDNSLabel(namespace, false)) errs.push(fieldInvalid('metadata.namespace', namespace, msg));
  } else if (namespace !== '') {
    errs.push(fieldForbidden('metadata.namespace', 'not allowed on this type'));
  }
  const generation = asNumber(meta.generation) ?? 0;
  if (generation < 0) errs.push(fieldInvalid('metadata.generation', generation, IS_NEGATIVE_ERROR));
  errs.push(...validateMetaCommon(meta));
  if (opts.standardFinalizerNames) errs.push(...standardFinalizerErrors(meta));
  return errs;
}

/** Go's time.Time String() for an RFC 3339 timestamp: `2006-01-02 15:04:05 +0000 UTC`. */
function goTimeText(value: unknown): string {
  if (typeof value !== 'string') return 'null';
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return value;
  const iso = new Date(ms).toISOString();
  const frac = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? `.${frac}` : ''} +0000 UTC`;
}

/** Scalars compared as Go compares them: absent, null and the zero string are the same value. */
function immutable(path: string, newValue: unknown, oldValue: unknown, render: (v: unknown) => unknown): FieldError[] {
  const unset = (v: unknown): unknown => (v === undefined || v === null || v === '' ? null : v);
  return unset(newValue) === unset(oldValue) ? [] : [fieldInvalid(path, render(newValue), FIELD_IMMUTABLE)];
}

/** "no new finalizers can be added if the object is being deleted", listing the new ones sorted. */
function validateNoNewFinalizers(newFinalizers: unknown, oldFinalizers: unknown, path: string): FieldError[] {
  const old = new Set(asArray(oldFinalizers).map(asString));
  const extra = [...new Set(asArray(newFinalizers).map(asString))].filter((f) => !old.has(f)).sort();
  return extra.length === 0
    ? []
    : [fieldForbidden(path, `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSliceText(extra)}`)];
}

/**
 * ValidateObjectMetaUpdate: no new finalizers while deleting, resourceVersion present, generation
 * not decremented, immutable identity fields, then the same checks as on create.
 */
export function validateObjectMetaUpdate(newMetadata: unknown, oldMetadata: unknown, opts: { standardFinalizerNames?: boolean } = {}): FieldError[] {
  const meta = asObject(newMetadata);
  const old = asObject(oldMetadata);
  const errs: FieldError[] = [];
  if (isPresent(old.deletionTimestamp)) errs.push(...validateNoNewFinalizers(meta.finalizers, old.finalizers, 'metadata.finalizers'));
  if (asString(meta.resourceVersion) === '') errs.push(fieldInvalid('metadata.resourceVersion', '', 'must be specified for an update'));
  const generation = asNumber(meta.generation) ?? 0;
  if (generation < (asNumber(old.generation) ?? 0)) errs.push(fieldInvalid('metadata.generation', generation, 'must not be decremented'));
  const asText = (v: unknown): unknown => asString(v);
  errs.push(...immutable('metadata.name', asString(meta.name), asString(old.name), asText));
  errs.push(...immutable('metadata.namespace', asString(meta.namespace), asString(old.namespace), asText));
  errs.push(...immutable('metadata.uid', asString(meta.uid), asString(old.uid), asText));
  errs.push(...immutable('metadata.creationTimestamp', meta.creationTimestamp, old.creationTimestamp, goTimeText));
  errs.push(...immutable('metadata.deletionTimestamp', meta.deletionTimestamp, old.deletionTimestamp, goTimeText));
  errs.push(
    ...immutable('metadata.deletionGracePeriodSeconds', meta.deletionGracePeriodSeconds, old.deletionGracePeriodSeconds, (v) =>
      typeof v === 'number' ? v : 'null',
    ),
  );
  errs.push(...validateMetaCommon(meta));
  if (opts.standardFinalizerNames) errs.push(...standardFinalizerErrors(meta));
  return errs;
}
