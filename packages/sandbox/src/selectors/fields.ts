// Field selectors (`?fieldSelector=`): parsing as fields.ParseSelector does it (with `\,` `\=` `\\`
// escapes in values), the per-kind label conversion that rejects unsupported fields, and the
// selectable field values of each kind.

import { badRequestStatus, StatusError } from '../errors.ts';
import { ownMember } from '../meta/object.ts';
import { asObject, asString } from '../validation/json.ts';

export type FieldOperator = '=' | '==' | '!=';

export interface FieldRequirement {
  field: string;
  operator: FieldOperator;
  value: string;
}

export interface FieldKind {
  group: string;
  kind: string;
}

const badRequest = (message: string): StatusError => new StatusError(badRequestStatus(message));

/** Splits on commas that are not escaped with a backslash (the backslash stays in the term). */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** The first operator found left to right; `!=` and `==` are tried before `=` at each position. */
function splitTerm(term: string): [string, FieldOperator, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

function unescapeValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let inSlash = false;
  for (const c of value) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') inSlash = true;
    // %v of a rune prints its code point.
    else if (c === ',' || c === '=') throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** fields.ParseSelector; a malformed selector throws a StatusError (400 BadRequest, the real message). */
export function parseFieldSelector(selector: string): FieldRequirement[] {
  const requirements: FieldRequirement[] = [];
  for (const part of splitTerms(selector).sort()) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const [field, operator, raw] = split;
    requirements.push({ field, operator, value: unescapeValue(raw) });
  }
  return requirements;
}

const podFields = [
  'metadata.name',
  'metadata.namespace',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.schedulerName',
  'spec.serviceAccountName',
  'spec.hostNetwork',
  'status.phase',
  'status.podIP',
  'status.podIPs',
  'status.nominatedNodeName',
];
const eventFields = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
  'metadata.namespace',
  'metadata.name',
];

interface Conversion {
  fields: readonly string[];
  /** Renamed labels (pods accept the v1.0 `spec.host`). */
  aliases?: Readonly<Record<string, string>>;
  unsupported: (label: string) => string;
}

const notSupported = (label: string): string => `field label not supported: ${label}`;

/** The kinds with their own field label conversion; every other kind only knows metadata.name and metadata.namespace. */
const conversions: Record<string, Conversion> = {
  '/Pod': { fields: podFields, aliases: { 'spec.host': 'spec.nodeName' }, unsupported: notSupported },
  '/Node': { fields: ['metadata.name', 'spec.unschedulable'], unsupported: notSupported },
  '/Namespace': { fields: ['status.phase', 'metadata.name'], unsupported: notSupported },
  '/Secret': { fields: ['type', 'metadata.namespace', 'metadata.name'], unsupported: notSupported },
  '/Service': { fields: ['metadata.namespace', 'metadata.name', 'spec.clusterIP', 'spec.type'], unsupported: notSupported },
  '/Event': { fields: eventFields, unsupported: notSupported },
  '/ReplicationController': { fields: ['metadata.name', 'metadata.namespace', 'status.replicas'], unsupported: notSupported },
  'batch/Job': {
    fields: ['metadata.name', 'metadata.namespace', 'status.successful'],
    unsupported: (label) => `field label "${label}" not supported for batchv1.Job`,
  },
};

const defaultConversion: Conversion = {
  fields: ['metadata.name', 'metadata.namespace'],
  unsupported: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
};

/**
 * The server's field label conversion for a kind: renames aliases and rejects unsupported fields
 * with a 400 BadRequest worded as the real server words it.
 */
export function convertFieldSelector(kind: FieldKind, requirements: readonly FieldRequirement[]): FieldRequirement[] {
  const conversion = ownMember(conversions, `${kind.group}/${kind.kind}`) ?? defaultConversion;
  return requirements.map((r) => {
    const field = ownMember(conversion.aliases, r.field) ?? r.field;
    if (!conversion.fields.includes(r.field) && field === r.field) throw badRequest(conversion.unsupported(r.field));
    return { ...r, field };
  });
}

function metaFields(obj: Record<string, unknown>, namespaced: boolean): Record<string, string> {
  const meta = asObject(obj.metadata);
  const out: Record<string, string> = { 'metadata.name': asString(meta.name) };
  if (namespaced) out['metadata.namespace'] = asString(meta.namespace);
  return out;
}

const clusterScopedKinds = new Set(['/Node', '/Namespace', '/PersistentVolume', 'admissionregistration.k8s.io/MutatingWebhookConfiguration', 'admissionregistration.k8s.io/ValidatingWebhookConfiguration', 'apiextensions.k8s.io/CustomResourceDefinition']);

/** The selectable fields of an object (the strategies' GetAttrs); fields not listed read as "". */
export function selectableFields(kind: FieldKind, object: unknown): Record<string, string> {
  const obj = asObject(object);
  const key = `${kind.group}/${kind.kind}`;
  const base = metaFields(obj, !clusterScopedKinds.has(key));
  const spec = asObject(obj.spec);
  const status = asObject(obj.status);
  switch (key) {
    case '/Pod': {
      const podIPs = Array.isArray(status.podIPs) ? status.podIPs : [];
      return {
        ...base,
        'spec.nodeName': asString(spec.nodeName),
        'spec.restartPolicy': asString(spec.restartPolicy),
        'spec.schedulerName': asString(spec.schedulerName),
        'spec.serviceAccountName': asString(spec.serviceAccountName),
        'spec.hostNetwork': String(spec.hostNetwork === true),
        'status.phase': asString(status.phase),
        'status.podIP': asString(asObject(podIPs[0]).ip),
        'status.nominatedNodeName': asString(status.nominatedNodeName),
      };
    }
    case '/Node':
      return { ...base, 'spec.unschedulable': String(spec.unschedulable === true) };
    case '/Namespace':
      return { ...base, 'status.phase': asString(status.phase) };
    case '/Secret':
      return { ...base, type: asString(obj.type) };
    case '/Service':
      return { ...base, 'spec.clusterIP': asString(spec.clusterIP), 'spec.type': asString(spec.type) };
    case '/ReplicationController':
      return { ...base, 'status.replicas': String(typeof status.replicas === 'number' ? status.replicas : 0) };
    case 'batch/Job':
      return { ...base, 'status.successful': String(typeof status.succeeded === 'number' ? status.succeeded : 0) };
    case '/Event':
    case 'events.k8s.io/Event': {
      const core = key === '/Event';
      const involved = asObject(core ? obj.involvedObject : obj.regarding);
      const source = asObject(core ? obj.source : obj.deprecatedSource);
      const reportingController = asString(core ? obj.reportingComponent : obj.reportingController);
      return {
        ...base,
        'involvedObject.kind': asString(involved.kind),
        'involvedObject.namespace': asString(involved.namespace),
        'involvedObject.name': asString(involved.name),
        'involvedObject.uid': asString(involved.uid),
        'involvedObject.apiVersion': asString(involved.apiVersion),
        'involvedObject.resourceVersion': asString(involved.resourceVersion),
        'involvedObject.fieldPath': asString(involved.fieldPath),
        reason: asString(obj.reason),
        reportingComponent: reportingController,
        source: asString(source.component) || reportingController,
        type: asString(obj.type),
      };
    }
    default:
      return base;
  }
}

export function matchesFields(requirements: readonly FieldRequirement[], fields: Readonly<Record<string, string>>): boolean {
  return requirements.every((r) => ((fields[r.field] ?? '') === r.value) === (r.operator !== '!='));
}

/** Parses, converts and returns a predicate over objects of the kind: the whole `?fieldSelector=` step. */
export function compileFieldSelector(kind: FieldKind, selector: string): (object: unknown) => boolean {
  const requirements = convertFieldSelector(kind, parseFieldSelector(selector));
  return (object) => matchesFields(requirements, selectableFields(kind, object));
}
