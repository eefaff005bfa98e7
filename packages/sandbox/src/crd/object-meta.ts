// What decoding into metav1.ObjectMeta does to a custom resource's metadata: fields ObjectMeta
// does not have are dropped (and reported, as strict decoding reports them), empty values that
// Go's omitempty leaves out disappear, and timestamps are rewritten as RFC 3339 in UTC.

import { isJsonObject, ownMember, type JsonObject } from '../meta/object.ts';
import { formatTimestamp, parseTimestamp } from '../meta/time.ts';
import { indexPath } from './field-path.ts';

type FieldKind = 'string' | 'int' | 'intPointer' | 'time' | 'stringMap' | 'stringList' | 'ownerReferences' | 'managedFields';

const objectMetaFields: Record<string, FieldKind> = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'int',
  creationTimestamp: 'time',
  deletionTimestamp: 'time',
  deletionGracePeriodSeconds: 'intPointer',
  labels: 'stringMap',
  annotations: 'stringMap',
  ownerReferences: 'ownerReferences',
  finalizers: 'stringList',
  managedFields: 'managedFields',
};

// OwnerReference's four identifying fields have no omitempty: Go writes them even when empty.
const ownerReferenceFields = ['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'];
const ownerReferenceRequired = ['apiVersion', 'kind', 'name', 'uid'];
const managedFieldsEntryFields = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'];

export interface ReducedObjectMeta {
  metadata: unknown;
  /** Paths of dropped fields, `<prefix>.<field>`, in the order strict decoding reports them. */
  unknownFields: string[];
}

/** Reduces `metadata` to ObjectMeta; values of the wrong type are left for validation to report. */
export function reduceObjectMeta(metadata: unknown, prefix: string): ReducedObjectMeta {
  if (!isJsonObject(metadata)) return { metadata, unknownFields: [] };
  const unknownFields: string[] = [];
  const out: JsonObject = {};
  for (const key of Object.keys(metadata).sort()) {
    const kind = ownMember(objectMetaFields, key);
    if (!kind) {
      unknownFields.push(`${prefix}.${key}`);
      continue;
    }
    const value = reduceField(kind, metadata[key], `${prefix}.${key}`, unknownFields);
    if (value !== undefined) out[key] = value;
  }
  // Keep the caller's key order for the fields that stay.
  const ordered: JsonObject = {};
  for (const key of Object.keys(metadata)) if (Object.hasOwn(out, key)) ordered[key] = out[key];
  return { metadata: ordered, unknownFields };
}

function reduceField(kind: FieldKind, value: unknown, path: string, unknownFields: string[]): unknown {
  if (value === null || value === undefined) return undefined;
  switch (kind) {
    case 'string':
      return value === '' ? undefined : value;
    case 'int':
      return value === 0 ? undefined : value;
    case 'intPointer':
      return value;
    case 'time':
      return typeof value === 'string' ? normalizeTime(value) : value;
    case 'stringMap':
      return isJsonObject(value) && Object.keys(value).length === 0 ? undefined : value;
    case 'stringList':
      return Array.isArray(value) && value.length === 0 ? undefined : value;
    case 'ownerReferences':
      return reduceList(value, path, unknownFields, ownerReferenceFields, ownerReferenceRequired);
    case 'managedFields':
      return reduceList(value, path, unknownFields, managedFieldsEntryFields, []);
  }
}

function reduceList(value: unknown, path: string, unknownFields: string[], known: string[], required: string[]): unknown {
  if (!Array.isArray(value)) return value;
  if (value.length === 0) return undefined;
  return value.map((item, i) => {
    if (!isJsonObject(item)) return item;
    const out: JsonObject = {};
    for (const key of required) out[key] = '';
    for (const key of Object.keys(item).sort()) {
      if (!known.includes(key)) unknownFields.push(`${indexPath(path, i)}.${key}`);
      else if (item[key] !== null && item[key] !== undefined && !(item[key] === '' && !required.includes(key))) out[key] = item[key];
    }
    return out;
  });
}

// metav1.Time keeps whole seconds and always serializes in UTC.
function normalizeTime(value: string): string {
  const ms = parseTimestamp(value);
  return ms === undefined ? value : formatTimestamp(ms);
}
