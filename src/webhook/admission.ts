// AdmissionReview v1: the request the API server sends, the verdicts handlers return, and the response
// shapes controller-runtime uses (Denied: 403 Forbidden; Errored: the given code; patches as base64 JSON
// Patch), so the API server words denials as `admission webhook "NAME" denied the request: MESSAGE`.

import type { JsonPatchOperation } from '../api/kube.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo?: UserInfo;
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
  options?: unknown;
}

/** authentication.k8s.io/v1 UserInfo: who the API server authenticated for the request. */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AdmissionStatus {
  code: number;
  message: string;
  reason?: string;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  patchType?: 'JSONPatch';
  patch?: string;
  warnings?: string[];
}

export type Verdict =
  | { allowed: true; patch?: JsonPatchOperation[]; warnings?: string[] }
  | { allowed: false; status: AdmissionStatus; warnings?: string[] };

export const allowed = (patch?: JsonPatchOperation[], warnings?: string[]): Verdict => ({
  allowed: true,
  ...(patch && patch.length > 0 && { patch }),
  ...(warnings && warnings.length > 0 && { warnings }),
});

/** controller-runtime's admission.Denied: 403 Forbidden with the message. */
export const denied = (message: string): Verdict => ({ allowed: false, status: { code: 403, reason: 'Forbidden', message } });

/** controller-runtime's admission.Errored: the handler failed; the API server applies the failurePolicy. */
export const errored = (code: number, message: string): Verdict => ({ allowed: false, status: { code, message } });

export class InvalidReviewError extends Error {
  override name = 'InvalidReviewError';
}

const OPERATIONS: readonly AdmissionOperation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses and checks an AdmissionReview body; InvalidReviewError names the first thing that is wrong. */
export function decodeReview(body: string): { apiVersion: string; request: AdmissionRequest } {
  let review: unknown;
  try {
    review = JSON.parse(body);
  } catch (err) {
    throw new InvalidReviewError(`the request body is not JSON: ${(err as Error).message}`);
  }
  if (!isObject(review)) throw new InvalidReviewError('the request body is not an AdmissionReview object');
  if (review.kind !== 'AdmissionReview') throw new InvalidReviewError(`expected kind AdmissionReview, got ${JSON.stringify(review.kind)}`);
  if (review.apiVersion !== 'admission.k8s.io/v1' && review.apiVersion !== 'admission.k8s.io/v1beta1') {
    throw new InvalidReviewError(`unsupported AdmissionReview apiVersion ${JSON.stringify(review.apiVersion)}: expected admission.k8s.io/v1`);
  }
  const request = review.request;
  if (!isObject(request)) throw new InvalidReviewError('the AdmissionReview has no request');
  if (typeof request.uid !== 'string' || request.uid === '') throw new InvalidReviewError('request.uid is missing');
  if (!OPERATIONS.includes(request.operation as AdmissionOperation)) throw new InvalidReviewError(`request.operation ${JSON.stringify(request.operation)} is not one of ${OPERATIONS.join(', ')}`);
  for (const field of ['kind', 'resource'] as const) {
    const value = request[field];
    if (!isObject(value)) throw new InvalidReviewError(`request.${field} is missing`);
    for (const part of field === 'kind' ? ['group', 'version', 'kind'] : ['group', 'version', 'resource']) {
      if (typeof value[part] !== 'string') throw new InvalidReviewError(`request.${field}.${part} must be a string`);
    }
  }
  for (const field of ['name', 'namespace', 'subResource'] as const) {
    if (request[field] != null && typeof request[field] !== 'string') throw new InvalidReviewError(`request.${field} must be a string`);
  }
  if (request.dryRun != null && typeof request.dryRun !== 'boolean') throw new InvalidReviewError('request.dryRun must be a boolean');
  for (const field of ['object', 'oldObject'] as const) {
    if (request[field] != null && !isObject(request[field])) throw new InvalidReviewError(`request.${field} must be an object`);
  }
  return { apiVersion: review.apiVersion, request: request as unknown as AdmissionRequest };
}

export function encodeReview(apiVersion: string, uid: string, verdict: Verdict): string {
  const response: AdmissionResponse = { uid, allowed: verdict.allowed };
  if (!verdict.allowed) response.status = verdict.status;
  else if (verdict.patch) {
    response.patchType = 'JSONPatch';
    response.patch = Buffer.from(JSON.stringify(verdict.patch)).toString('base64');
  }
  if (verdict.warnings) response.warnings = verdict.warnings;
  return JSON.stringify({ apiVersion, kind: 'AdmissionReview', response });
}
