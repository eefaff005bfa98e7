// The AdmissionReview a webhook receives and the checks its answer must pass (CreateAdmissionObjects
// and VerifyAdmissionResponse): v1 unless the webhook lists only v1beta1, fields in the order and
// with the omissions of the Go types, and a v1 response that must echo the request's uid and say
// what it is. Failures of the checks are reasons for "received invalid webhook response".

import { isJsonObject, type JsonObject, type KubeObject } from '../meta/object.ts';
import { decodeGoJson, GoJsonSyntaxError } from '../patch/index.ts';
import type { AdmissionAttributes } from '../apiserver/admission.ts';
import type { Invocation } from './matching.ts';
import { requestNamespace } from './matching.ts';

export type ReviewVersion = 'v1' | 'v1beta1';

const reviewApiVersion = (version: ReviewVersion): string => `admission.k8s.io/${version}`;

/** The first version the webhook accepts that the server speaks, in the webhook's order of preference. */
export function reviewVersionFor(accepted: readonly string[]): ReviewVersion | undefined {
  return accepted.find((v): v is ReviewVersion => v === 'v1' || v === 'v1beta1');
}

/** metav1.Time is a struct in Go: an unset creationTimestamp is sent as null, not left out. */
export function sentForm(object: KubeObject): KubeObject {
  if (object.metadata.creationTimestamp !== undefined) return object;
  return { ...object, metadata: { ...object.metadata, creationTimestamp: null } };
}

/** The decoder's error for a body whose top level is not a JSON object. */
export const typeMetaDecodeError = (goKind: string): string =>
  `couldn't get version/kind; json parse error: json: cannot unmarshal ${goKind} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;

function userInfoOf(a: AdmissionAttributes): JsonObject {
  const user: JsonObject = { username: a.userInfo.username };
  if (a.userInfo.uid) user.uid = a.userInfo.uid;
  if (a.userInfo.groups.length) user.groups = a.userInfo.groups;
  if (a.userInfo.extra && Object.keys(a.userInfo.extra).length) user.extra = a.userInfo.extra;
  return user;
}

/** The review sent for one invocation; `object` and `oldObject` are already in the invocation's version. */
export function admissionReview(
  version: ReviewVersion,
  uid: string,
  invocation: Invocation,
  a: AdmissionAttributes,
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
): JsonObject {
  const request: JsonObject = {
    uid,
    kind: { group: invocation.kind.group, version: invocation.kind.version, kind: invocation.kind.kind },
    resource: { group: invocation.resource.group, version: invocation.resource.version, resource: invocation.resource.resource },
  };
  if (invocation.subresource) request.subResource = invocation.subresource;
  request.requestKind = { group: a.kind.group, version: a.kind.version, kind: a.kind.kind };
  request.requestResource = { group: a.resource.group, version: a.resource.version, resource: a.resource.resource };
  if (a.subresource) request.requestSubResource = a.subresource;
  if (a.name) request.name = a.name;
  const namespace = requestNamespace(a);
  if (namespace) request.namespace = namespace;
  request.operation = a.operation;
  request.userInfo = userInfoOf(a);
  request.object = object ? sentForm(object) : null;
  request.oldObject = oldObject ? sentForm(oldObject) : null;
  request.dryRun = a.dryRun;
  request.options = a.options;
  return { kind: 'AdmissionReview', apiVersion: reviewApiVersion(version), request };
}

export interface AdmissionResponse {
  allowed: boolean;
  /** The decoded `response.patch` bytes (mutating webhooks only). */
  patch: Buffer | undefined;
  patchType: string | undefined;
  /** `response.status`: why the request was denied. */
  status: JsonObject | undefined;
  warnings: string[];
}

/** A response that does not pass the checks; the message is the reason the real server gives. */
export class InvalidResponseError extends Error {
  override readonly name = 'InvalidResponseError';
}

/** A body that does not decode into an AdmissionReview at all (the client's error, before any check). */
export class UndecodableResponseError extends Error {
  override readonly name = 'UndecodableResponseError';
}

const goKind = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v);

function typeError(value: unknown, field: string, goType: string): UndecodableResponseError {
  return new UndecodableResponseError(`json: cannot unmarshal ${goKind(value)} into Go struct field ${field} of type ${goType}`);
}

/** Go's encoding of []byte: standard base64 with padding. */
function decodeBase64(text: string): Buffer {
  const bad = /[^A-Za-z0-9+/=]/.exec(text);
  if (bad || text.length % 4 !== 0 || /=[^=]/.test(text)) {
    throw new UndecodableResponseError(`illegal base64 data at input byte ${bad ? bad.index : Math.max(0, text.length - (text.length % 4))}`);
  }
  return Buffer.from(text, 'base64');
}

/** The `response` of a decoded review body, type-checked as the Go decoder would. */
function decodeResponse(body: JsonObject): JsonObject | undefined {
  const response = body.response;
  if (response === undefined || response === null) return undefined;
  if (!isJsonObject(response)) throw typeError(response, 'AdmissionReview.response', 'v1.AdmissionResponse');
  const expect = (field: string, ok: (v: unknown) => boolean, goType: string): void => {
    const v = response[field];
    if (v !== undefined && v !== null && !ok(v)) throw typeError(v, `AdmissionResponse.response.${field}`, goType);
  };
  expect('uid', (v) => typeof v === 'string', 'types.UID');
  expect('allowed', (v) => typeof v === 'boolean', 'bool');
  expect('patch', (v) => typeof v === 'string', '[]uint8');
  expect('patchType', (v) => typeof v === 'string', 'v1.PatchType');
  expect('status', isJsonObject, 'v1.Status');
  expect('warnings', (v) => Array.isArray(v) && v.every((w) => typeof w === 'string'), '[]string');
  return response;
}

/** Parses a 2xx body: syntax and type errors are the decoder's, the rest VerifyAdmissionResponse's. */
export function parseAdmissionResponse(version: ReviewVersion, uid: string, mutating: boolean, raw: Buffer, contentType: string): AdmissionResponse {
  if (raw.length === 0) throw new UndecodableResponseError(`0-length response with status code: 200 and content type: ${contentType}`);
  let body: unknown;
  try {
    body = decodeGoJson(raw);
  } catch (err) {
    if (!(err instanceof GoJsonSyntaxError)) throw err;
    throw new UndecodableResponseError(`couldn't get version/kind; json parse error: ${err.message}`);
  }
  if (!isJsonObject(body)) throw new UndecodableResponseError(typeMetaDecodeError(goKind(body)));
  const response = decodeResponse(body);
  if (!response) throw new InvalidResponseError('webhook response was absent');
  const patchText = typeof response.patch === 'string' ? response.patch : '';
  const patch = patchText ? decodeBase64(patchText) : undefined;
  const patchType = typeof response.patchType === 'string' ? response.patchType : undefined;
  const result: AdmissionResponse = {
    allowed: response.allowed === true,
    patch: undefined,
    patchType: undefined,
    status: isJsonObject(response.status) ? response.status : undefined,
    warnings: Array.isArray(response.warnings) ? (response.warnings as string[]) : [],
  };
  if (version === 'v1beta1') {
    // v1beta1 answers were never checked for uid or kind; a patch is always a JSON patch.
    if (mutating && patch?.length) {
      result.patch = patch;
      result.patchType = 'JSONPatch';
    }
    return result;
  }
  const responseUid = typeof response.uid === 'string' ? response.uid : '';
  if (responseUid !== uid) throw new InvalidResponseError(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(responseUid)}`);
  const apiVersion = typeof body.apiVersion === 'string' ? body.apiVersion : '';
  const kind = typeof body.kind === 'string' ? body.kind : '';
  if (apiVersion !== reviewApiVersion('v1') || kind !== 'AdmissionReview') {
    const slash = apiVersion.indexOf('/');
    const gv = slash < 0 ? `/${apiVersion}` : apiVersion;
    throw new InvalidResponseError(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gv}, Kind=${kind}`);
  }
  if (mutating) {
    if (patch?.length && patchType === undefined) throw new InvalidResponseError('webhook returned response.patch but not response.patchType');
    if (!patch?.length && patchType !== undefined) throw new InvalidResponseError('webhook returned response.patchType but not response.patch');
    if (patchType === '') throw new InvalidResponseError('webhook returned invalid response.patchType of ""');
    result.patch = patch;
    result.patchType = patchType;
  } else {
    if (patch?.length) throw new InvalidResponseError('validating webhook may not return response.patch');
    if (patchType !== undefined) throw new InvalidResponseError('validating webhook may not return response.patchType');
  }
  return result;
}
