// The Status bodies the API server's patch handler returns, beyond the shared vocabulary of
// ../errors.ts. The builders return a StatusError ready to throw, except the 415, which the HTTP
// layer answers with directly.

import { badRequestStatus, failure, invalidStatus, StatusError, type Status } from '../errors.ts';

/** 400 BadRequest with the handler's message. */
export const badRequest = (message: string): StatusError => new StatusError(badRequestStatus(message));

/**
 * 422 from NewGenericServerResponse: JSON-patch failures (missing path, failed test, unknown op)
 * and two strategic-merge-patch errors. The message is fixed and the details are empty.
 */
export const genericInvalid = (): StatusError =>
  new StatusError(failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {}));

/**
 * 422 for a patched object the decoder refuses: NewInvalid with no kind and no name, on the field
 * `patch`, whose value is the patched document (or, for a strategic merge patch, the patch).
 */
export function patchedObjectInvalid(value: string, why: string): StatusError {
  const status = invalidStatus({ kind: '', group: '', name: '' }, [{ type: 'FieldValueInvalid', field: 'patch', value, detail: why }]);
  // Go omits the empty kind.
  delete status.details?.kind;
  return new StatusError(status);
}

/** A plain Go error that reached the response writer unwrapped: 500 with no reason and no details. */
export function unwrappedError(message: string): StatusError {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 };
  return new StatusError(status);
}

/** 413 for a JSON patch with too many operations. */
export const requestEntityTooLarge = (message: string): StatusError =>
  new StatusError(failure(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`, undefined));

/** The patch types a custom resource accepts, in the order the server lists them. */
export const customResourcePatchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
] as const;

/** The patch types a built-in kind accepts, in the order the server lists them. */
export const builtinPatchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;

/** 415 for `application/strategic-merge-patch+json` on a custom resource (no details, as the server sends it). */
export const strategicMergePatchUnsupportedStatus = (): Status =>
  failure(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${customResourcePatchTypes.join(', ')}`,
    undefined,
  );
