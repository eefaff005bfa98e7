// Defaults of the kinds that only get a handful of them: Namespace, Secret, Endpoints,
// EndpointSlice, Node, Event (both APIs) and the admission webhook configurations.

import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { canonicalizeResourceList } from './pod.ts';
import { child, childList, defaultField, defaultString, isUnset } from './fields.ts';

/**
 * Namespaces carry their name as a label. On create the `kubernetes` finalizer is required and the
 * phase is Active; updates through the main resource cannot change spec.finalizers.
 */
export function defaultNamespace(obj: JsonObject, operation: 'create' | 'update', old: JsonObject | undefined): void {
  const meta = child(obj, 'metadata');
  if (typeof meta.name === 'string' && meta.name !== '') child(meta, 'labels')['kubernetes.io/metadata.name'] = meta.name;
  const spec = child(obj, 'spec');
  if (operation === 'create') {
    const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
    if (!finalizers.includes('kubernetes')) spec.finalizers = [...finalizers, 'kubernetes'];
    obj.status = { phase: 'Active' };
  } else if (isJsonObject(old?.spec)) {
    if (old.spec.finalizers === undefined) delete spec.finalizers;
    else spec.finalizers = old.spec.finalizers;
  }
  defaultString(child(obj, 'status'), 'phase', 'Active');
}

/** Secrets default to Opaque; `stringData` is write-only and folded into `data` (base64). */
export function defaultSecret(obj: JsonObject): void {
  defaultString(obj, 'type', 'Opaque');
  if (isJsonObject(obj.stringData)) {
    const data = child(obj, 'data');
    for (const [k, v] of Object.entries(obj.stringData)) if (typeof v === 'string') data[k] = Buffer.from(v, 'utf8').toString('base64');
  }
  delete obj.stringData;
}

export function defaultEndpoints(obj: JsonObject): void {
  for (const subset of childList(obj, 'subsets')) for (const port of childList(subset, 'ports')) defaultString(port, 'protocol', 'TCP');
}

export function defaultEndpointSlice(obj: JsonObject): void {
  for (const port of childList(obj, 'ports')) {
    defaultField(port, 'name', '');
    defaultField(port, 'protocol', 'TCP');
  }
  for (const endpoint of childList(obj, 'endpoints')) child(endpoint, 'conditions');
}

/** Allocatable defaults to capacity; quantities are stored canonical. */
export function defaultNode(obj: JsonObject): void {
  if (!isJsonObject(obj.status)) return;
  const status = obj.status;
  if (isUnset(status.allocatable) && isJsonObject(status.capacity)) status.allocatable = { ...status.capacity };
  canonicalizeResourceList(status.capacity);
  canonicalizeResourceList(status.allocatable);
}

/** The zero values a Go Event always serializes: empty source, null timestamps, empty reporting fields. */
export function defaultCoreEvent(obj: JsonObject): void {
  child(obj, 'involvedObject');
  child(obj, 'source');
  for (const f of ['firstTimestamp', 'lastTimestamp', 'eventTime']) defaultField(obj, f, null);
  for (const f of ['reportingComponent', 'reportingInstance']) defaultField(obj, f, '');
}

export function defaultEventsAPIEvent(obj: JsonObject): void {
  child(obj, 'regarding');
  child(obj, 'deprecatedSource');
  for (const f of ['eventTime', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp']) defaultField(obj, f, null);
}

export function defaultWebhookConfiguration(obj: JsonObject, kind: 'mutating' | 'validating'): void {
  for (const hook of childList(obj, 'webhooks')) {
    defaultField(hook, 'failurePolicy', 'Fail');
    defaultField(hook, 'matchPolicy', 'Equivalent');
    defaultField(hook, 'namespaceSelector', {});
    defaultField(hook, 'objectSelector', {});
    defaultField(hook, 'timeoutSeconds', 10);
    if (kind === 'mutating') defaultField(hook, 'reinvocationPolicy', 'Never');
    for (const rule of childList(hook, 'rules')) defaultField(rule, 'scope', '*');
    const clientConfig = isJsonObject(hook.clientConfig) ? hook.clientConfig : {};
    if (isJsonObject(clientConfig.service)) defaultField(clientConfig.service, 'port', 443);
  }
}
