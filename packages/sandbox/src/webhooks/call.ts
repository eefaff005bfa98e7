// Calling one webhook for one request, as callAttrMutatingHook and the validating callHook do: the
// dryRun/sideEffects check, the AdmissionReview in the invocation's version, the POST, the checks of
// the answer, its warnings and denial, and (mutating) its JSONPatch applied to the object, which is
// then decoded (unknown fields dropped) and defaulted again. Failures come out in three kinds, as
// the real dispatchers tell them apart: WebhookCallError (failurePolicy decides), a denial, and
// errors no policy can ignore.

import { randomUUID } from 'node:crypto';
import { badRequestStatus, internalErrorStatus, StatusError, type Status, type StatusDetails } from '../errors.ts';
import { isJsonObject, jsonEqual, type JsonObject, type KubeObject } from '../meta/object.ts';
import type { Clock } from '../meta/time.ts';
import type { AdmissionAttributes } from '../apiserver/admission.ts';
import type { Registry } from '../registry/registry.ts';
import { apiVersionOf, type ResourceDefinition } from '../registry/types.ts';
import type { ClientCertificates } from './client-credentials.ts';
import type { Webhook } from './configuration.ts';
import { EndpointError, webhookTarget, type WebhookServiceAddresses } from './endpoint.ts';
import type { Invocation } from './matching.ts';
import { admissionReview, InvalidResponseError, parseAdmissionResponse, reviewVersionFor, sentForm, typeMetaDecodeError, UndecodableResponseError, type AdmissionResponse } from './review.ts';
import { postReview, WebhookTransportError } from './transport.ts';
import { applyWebhookPatch, decodeWebhookPatch, PatchApplicationError, UndecodablePatchError } from './webhook-patch.ts';

/** ErrCallingWebhook: the webhook could not be asked or gave no usable answer; failurePolicy decides. */
export class WebhookCallError extends Error {
  override readonly name = 'WebhookCallError';
  constructor(webhookName: string, reason: string) {
    super(`failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`);
  }
}

export interface CallDependencies {
  registry: Registry;
  clock: Clock;
  lookupService(namespace: string, name: string): KubeObject | undefined;
  serviceAddresses(): WebhookServiceAddresses;
  clientCertificates: ClientCertificates;
}

export interface CallOutcome {
  warnings: string[];
  /** A mutating webhook's patch changed the object. */
  changed: boolean;
}

/** ToStatusErr: the webhook's own status, its message prefixed, never below 400 and never a success. */
export function denialStatus(webhookName: string, result: JsonObject | undefined): Status {
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  const given = result ?? {};
  const explanation = text(given.message) || text(given.reason);
  const status = text(given.status) === '' || given.status === 'Success' ? 'Failure' : (text(given.status) as Status['status']);
  // Built in the field order of metav1.Status.
  const out = { kind: 'Status', apiVersion: 'v1', metadata: {}, status, message: explanation ? `${deniedBy}: ${explanation}` : `${deniedBy} without explanation` } as Status;
  if (text(given.reason)) out.reason = text(given.reason);
  if (isJsonObject(given.details)) out.details = given.details as StatusDetails;
  out.code = typeof given.code === 'number' && given.code >= 400 ? given.code : 400;
  return out;
}

/** The object in the version the webhook is called with (objects in the pipeline are in storage form). */
function inVersion(object: KubeObject | undefined, def: ResourceDefinition | undefined, invocation: Invocation): KubeObject | undefined {
  if (!object || !def?.toExternal) return object;
  return object.apiVersion === apiVersionOf(invocation.kind.group, invocation.kind.version) ? object : def.toExternal(object);
}

function sideEffectsCheck(webhook: Webhook, a: AdmissionAttributes): void {
  if (!a.dryRun) return;
  if (webhook.sideEffects === undefined) throw new WebhookCallError(webhook.name, 'Webhook SideEffects is nil');
  if (webhook.sideEffects !== 'None' && webhook.sideEffects !== 'NoneOnDryRun') {
    throw new StatusError(badRequestStatus(`admission webhook ${JSON.stringify(webhook.name)} does not support dry run`));
  }
}

/** The reason a failure to get a usable answer is reported with, or undefined for any other error. */
function callFailureReason(err: unknown): string | undefined {
  if (err instanceof EndpointError) return err.message;
  if (err instanceof WebhookTransportError || err instanceof UndecodableResponseError) return `failed to call webhook: ${err.message}`;
  if (err instanceof InvalidResponseError) return `received invalid webhook response: ${err.message}`;
  return undefined;
}

/** Sends the review and returns the answer once it passed the checks. */
async function ask(deps: CallDependencies, invocation: Invocation, a: AdmissionAttributes, object: KubeObject | undefined, oldObject: KubeObject | undefined, mutating: boolean): Promise<AdmissionResponse> {
  const { webhook } = invocation;
  sideEffectsCheck(webhook, a);
  const version = reviewVersionFor(webhook.admissionReviewVersions);
  if (!version) throw new WebhookCallError(webhook.name, 'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)');
  const uid = randomUUID();
  try {
    const target = webhookTarget(webhook, deps.lookupService, deps.serviceAddresses());
    const clientCertificate = deps.clientCertificates(mutating ? 'MutatingAdmissionWebhook' : 'ValidatingAdmissionWebhook', target.hostPort);
    const reply = await postReview({ ...target, ...(clientCertificate ? { clientCertificate } : {}) }, JSON.stringify(admissionReview(version, uid, invocation, a, object, oldObject)), webhook.timeoutSeconds);
    return parseAdmissionResponse(version, uid, mutating, reply.body, reply.contentType);
  } catch (err) {
    const reason = callFailureReason(err);
    throw reason === undefined ? err : new WebhookCallError(webhook.name, reason);
  }
}

/** Calls a validating webhook: resolves when it allows, throws otherwise. */
export async function callValidatingWebhook(deps: CallDependencies, invocation: Invocation, a: AdmissionAttributes): Promise<CallOutcome> {
  const def = deps.registry.get(invocation.resource.group, invocation.resource.version, invocation.resource.resource);
  const response = await ask(deps, invocation, a, inVersion(a.object, def, invocation), inVersion(a.oldObject, def, invocation), false);
  if (!response.allowed) throw new StatusError(denialStatus(invocation.webhook.name, response.status), response.warnings);
  return { warnings: response.warnings, changed: false };
}

/** Replaces the contents of the object being admitted (plugins edit it in place). */
function replaceContents(target: KubeObject, source: KubeObject): void {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, source);
}

/** The patched JSON decoded as an object of the request's kind; a shape Go could not decode is an internal error. */
function decodePatched(patched: unknown, kind: string, warnings: readonly string[]): KubeObject {
  const goKind = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
  if (!isJsonObject(patched)) throw new StatusError(internalErrorStatus(typeMetaDecodeError(goKind(patched))), warnings);
  if (patched.metadata === undefined || patched.metadata === null) patched.metadata = {};
  if (!isJsonObject(patched.metadata)) {
    throw new StatusError(internalErrorStatus(`json: cannot unmarshal ${goKind(patched.metadata)} into Go struct field ${kind}.metadata of type v1.ObjectMeta`), warnings);
  }
  return patched as KubeObject;
}

/**
 * Calls a mutating webhook and applies its patch to `a.object` in place: the patched object is
 * decoded as the request's kind (unknown fields dropped) and defaulted again.
 */
export async function callMutatingWebhook(deps: CallDependencies, invocation: Invocation, a: AdmissionAttributes): Promise<CallOutcome> {
  const { webhook } = invocation;
  const def = deps.registry.get(invocation.resource.group, invocation.resource.version, invocation.resource.resource);
  const sent = inVersion(a.object, def, invocation);
  const response = await ask(deps, invocation, a, sent, inVersion(a.oldObject, def, invocation), true);
  const { warnings } = response;
  if (!response.allowed) throw new StatusError(denialStatus(webhook.name, response.status), warnings);
  if (!response.patch?.length) return { warnings, changed: false };
  let operations;
  try {
    operations = decodeWebhookPatch(response.patch);
  } catch (err) {
    if (err instanceof UndecodablePatchError) throw new WebhookCallError(webhook.name, `received undecodable patch in webhook response: ${err.message}`);
    throw err;
  }
  if (operations.length === 0) return { warnings, changed: false };
  const object = a.object;
  if (!object || !sent) {
    throw new StatusError(internalErrorStatus(`admission webhook ${JSON.stringify(webhook.name)} attempted to modify the object, which is not supported for this operation`), warnings);
  }
  if (response.patchType !== 'JSONPatch') throw new WebhookCallError(webhook.name, `unsupported patch type ${JSON.stringify(response.patchType ?? '')}`);

  let patched: unknown;
  try {
    // The patch applies to the object as it was sent (an unset creationTimestamp as null).
    patched = applyWebhookPatch(sentForm(sent), operations);
  } catch (err) {
    if (err instanceof PatchApplicationError) throw new StatusError(internalErrorStatus(err.message), warnings);
    throw err;
  }
  let result = decodePatched(patched, invocation.kind.kind, warnings);
  if (result.metadata.creationTimestamp === null && object.metadata.creationTimestamp === undefined) delete result.metadata.creationTimestamp;
  if (def?.toStorage && result.apiVersion !== object.apiVersion) result = def.toStorage(result);
  const requestDef = deps.registry.get(a.resource.group, a.resource.version, a.resource.resource);
  // Subresource views (a Scale) are not objects of the resource's kind: they are taken as they are.
  const ofResourceKind = requestDef !== undefined && requestDef.kind === a.kind.kind;
  if (ofResourceKind) requestDef.strategy.dropUnknownFields?.(result);
  const changed = !jsonEqual(object, result);
  if (ofResourceKind) {
    requestDef.strategy.applyDefaults(result, {
      now: deps.clock(),
      dryRun: a.dryRun,
      operation: a.operation === 'CREATE' ? 'create' : 'update',
      ...(a.oldObject ? { old: a.oldObject } : {}),
    });
  }
  replaceContents(object, result);
  return { warnings, changed };
}
