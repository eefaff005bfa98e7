// The API server's error vocabulary: field errors (as apimachinery's field.Error renders them) and
// the metav1.Status bodies the real server returns. Every sandbox module reports failures through
// these types so kubectl and client libraries see the exact shapes of a real kube-apiserver.

export type FieldErrorType =
  | 'FieldValueInvalid'
  | 'FieldValueRequired'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueDuplicate'
  | 'FieldValueNotSupported'
  | 'FieldValueTypeInvalid'
  | 'FieldValueNotFound'
  | 'InternalError';

export interface FieldError {
  type: FieldErrorType;
  /** Dotted path with indexes, e.g. `spec.containers[0].image` or `metadata.labels`. */
  field: string;
  /** Rendered value for the types that show one (Invalid, Duplicate, NotSupported, TypeInvalid, NotFound). */
  value?: unknown;
  /** Free text after the type's fixed words (e.g. "must be no more than 63 characters"). */
  detail?: string;
}

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | { resourceVersion?: string };
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export const fieldInvalid = (field: string, value: unknown, detail: string): FieldError => ({
  type: 'FieldValueInvalid',
  field,
  value,
  detail,
});
export const fieldRequired = (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, detail });
export const fieldForbidden = (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, detail });
export const fieldDuplicate = (field: string, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, value });
export const fieldTooLong = (field: string, value: unknown, max: number): FieldError => ({
  type: 'FieldValueTooLong',
  field,
  value,
  detail: `may not be more than ${max} bytes`,
});
export const fieldNotSupported = (field: string, value: unknown, supported: readonly string[]): FieldError => ({
  type: 'FieldValueNotSupported',
  field,
  value,
  detail: supported.length ? `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : '',
});
export const fieldTypeInvalid = (field: string, value: unknown, detail: string): FieldError => ({
  type: 'FieldValueTypeInvalid',
  field,
  value,
  detail,
});

/** A value the validator already rendered as Go's `%#v` would (e.g. `[]string{"a"}`): printed verbatim. */
export interface GoLiteralValue {
  goLiteral: string;
}

const isGoLiteral = (value: unknown): value is GoLiteralValue =>
  typeof value === 'object' && value !== null && typeof (value as GoLiteralValue).goLiteral === 'string';

/** Go's %#v-like rendering used by field.Error for values: strings quoted, numbers bare, objects elided. */
export function renderFieldValue(value: unknown): string {
  if (isGoLiteral(value)) return value.goLiteral;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[]${value.length ? '…' : ''}`;
  return '"object"';
}

const typeWords: Record<FieldErrorType, string> = {
  FieldValueInvalid: 'Invalid value',
  FieldValueRequired: 'Required value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueNotFound: 'Not found',
  InternalError: 'Internal error',
};

const typesShowingValue = new Set<FieldErrorType>([
  'FieldValueInvalid',
  'FieldValueTooMany',
  'FieldValueDuplicate',
  'FieldValueNotSupported',
  'FieldValueTypeInvalid',
  'FieldValueNotFound',
]);

/** The error text without the field prefix: the `message` of a Status cause. */
export function fieldErrorBody(e: FieldError): string {
  let s = typeWords[e.type];
  // An error built without a value (Go's field.OmitValueType) prints no value part.
  if (typesShowingValue.has(e.type) && e.value !== undefined) s += `: ${renderFieldValue(e.value)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** `<field>: <body>`, as field.Error.Error() prints it. */
export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

export interface InvalidTarget {
  /** Kind, e.g. `Pod`, `Deployment`, `Widget`. */
  kind: string;
  /** API group; empty for the core group. */
  group: string;
  name: string;
}

/** 422 Invalid, e.g. `Pod "b1" is invalid: spec.containers: Required value`. */
export function invalidStatus(target: InvalidTarget, errors: readonly FieldError[]): Status {
  const qualifiedKind = target.group ? `${target.kind}.${target.group}` : target.kind;
  const rendered = errors.map(fieldErrorString);
  const body = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
  const details: StatusDetails = {};
  if (target.name) details.name = target.name;
  if (target.group) details.group = target.group;
  details.kind = target.kind;
  details.causes = errors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  return failure(422, 'Invalid', `${qualifiedKind} "${target.name}" is invalid: ${body}`, details);
}

export interface ResourceTarget {
  /** Plural resource, e.g. `pods`, `deployments`. */
  resource: string;
  group: string;
  name: string;
}

const qualifiedResource = (t: ResourceTarget): string => (t.group ? `${t.resource}.${t.group}` : t.resource);

function resourceDetails(t: ResourceTarget): StatusDetails {
  const d: StatusDetails = { name: t.name };
  if (t.group) d.group = t.group;
  d.kind = t.resource;
  return d;
}

export const notFoundStatus = (t: ResourceTarget): Status =>
  failure(404, 'NotFound', `${qualifiedResource(t)} "${t.name}" not found`, resourceDetails(t));

export const alreadyExistsStatus = (t: ResourceTarget): Status =>
  failure(409, 'AlreadyExists', `${qualifiedResource(t)} "${t.name}" already exists`, resourceDetails(t));

export const conflictStatus = (t: ResourceTarget, why = 'the object has been modified; please apply your changes to the latest version and try again'): Status =>
  failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(t)} "${t.name}": ${why}`, resourceDetails(t));

/** apimachinery's NewBadRequest: no details at all (a Status whose details are `{}` comes from elsewhere). */
export const badRequestStatus = (message: string): Status => failure(400, 'BadRequest', message, undefined);

/** NewResourceExpired (410 Expired): no details either. */
export const goneStatus = (message: string): Status => failure(410, 'Expired', message, undefined);

export const internalErrorStatus = (message: string): Status =>
  failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });

/** A Failure Status, its keys in the order Go writes them (details before code). */
export function failure(code: number, reason: string, message: string, details: StatusDetails | undefined): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

/** A Status carried as an exception through the request path; the HTTP layer writes `status` as the body. */
export class StatusError extends Error {
  readonly status: Status;
  /** Warnings recorded before the failure: the real server still sends them as `Warning` headers. */
  readonly warnings: string[];
  constructor(status: Status, warnings: readonly string[] = []) {
    super(status.message ?? status.reason ?? `status ${status.code}`);
    this.name = 'StatusError';
    this.status = status;
    this.warnings = [...warnings];
  }
}

/** Puts warnings recorded before a failure in front of its own (the real server sends them with the error). */
export function withEarlierWarnings(err: unknown, warnings: readonly string[]): unknown {
  if (err instanceof StatusError) err.warnings.unshift(...warnings);
  return err;
}
