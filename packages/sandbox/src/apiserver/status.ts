// Status bodies the request pipeline needs beyond the shared vocabulary in errors.ts.

import { failure, StatusError, type FieldError, type Status, type StatusDetails } from '../errors.ts';
import { goFieldErrorString } from '../validation/index.ts';
import type { ResourceDefinition } from '../registry/types.ts';

/** A Failure Status without `reason`, as the server sends for raw storage errors (e.g. a bad resourceVersion). */
export function reasonlessFailure(code: number, message: string): StatusError {
  const status = failure(code, '', message, undefined);
  delete status.reason;
  return new StatusError(status);
}

/** `Status Success` answering a DELETE of a kind that does not return the object. */
export function deletedStatus(def: ResourceDefinition, name: string, uid: string | undefined): Status {
  const details: StatusDetails = { name };
  if (def.group) details.group = def.group;
  details.kind = def.resource;
  if (uid) details.uid = uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 };
}

export const notFoundPath = (): StatusError =>
  new StatusError(failure(404, 'NotFound', 'the server could not find the requested resource', {}));

/** 403 with the resource named as the real server does (`configmaps "new" is forbidden: …`). */
export function forbiddenStatus(def: ResourceDefinition, name: string, why: string, details?: StatusDetails): StatusError {
  const qualified = def.group ? `${def.resource}.${def.group}` : def.resource;
  const d: StatusDetails = details ?? { name };
  if (!details) {
    if (def.group) d.group = def.group;
    d.kind = def.resource;
  }
  return new StatusError(failure(403, 'Forbidden', `${qualified} "${name}" is forbidden: ${why}`, d));
}

/**
 * 422 Invalid for an object. Like field.ErrorList.ToAggregate, the message lists each distinct error
 * once while `details.causes` keeps every cause (the real server reports some checks twice). The
 * kind is named in its storage group: an events.k8s.io Event is invalid as `Event "e1"`.
 */
export function invalidObject(def: ResourceDefinition, name: string, errors: readonly FieldError[]): StatusError {
  const group = def.storageApiVersion.includes('/') ? (def.storageApiVersion.split('/')[0] ?? '') : '';
  const rendered = errors.map(goFieldErrorString);
  const distinct = [...new Set(rendered)];
  const qualifiedKind = group ? `${def.kind}.${group}` : def.kind;
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (group) details.group = group;
  details.kind = def.kind;
  details.causes = errors.map((e, i) => ({ reason: e.type, message: (rendered[i] ?? '').slice(e.field.length + 2), field: e.field }));
  const message = `${qualifiedKind} "${name}" is invalid: ${distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`}`;
  return new StatusError(failure(422, 'Invalid', message, details));
}
