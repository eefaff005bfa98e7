// What the server core needs to serve a CustomResourceDefinition: its versions, the per-version
// schema and subresources, the defaults and strategy steps the real server applies to a CRD on
// writes, and the status its naming and establishing controllers write.

import { cloneJson, isJsonObject, type JsonObject } from '../meta/object.ts';
import { formatTimestamp } from '../meta/time.ts';

/** The scale subresource of a CRD version (JSON paths in the dot notation, e.g. `.spec.replicas`). */
export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

const asObject = (v: unknown): JsonObject => (isJsonObject(v) ? v : {});
const asString = (v: unknown): string => (typeof v === 'string' ? v : '');
const specOf = (crd: unknown): JsonObject => asObject(asObject(crd).spec);

/** `spec.versions` as given (entries that are not objects are skipped). */
export function crdVersions(crd: unknown): JsonObject[] {
  const versions = specOf(crd).versions;
  return Array.isArray(versions) ? versions.filter(isJsonObject) : [];
}

export function crdVersion(crd: unknown, version: string): JsonObject | undefined {
  return crdVersions(crd).find((v) => v.name === version);
}

/** Names of the served versions, in `spec.versions` order. */
export function servedVersions(crd: unknown): string[] {
  return crdVersions(crd)
    .filter((v) => v.served === true)
    .map((v) => asString(v.name));
}

/** The version marked `storage: true`. */
export function storageVersion(crd: unknown): string | undefined {
  const v = crdVersions(crd).find((version) => version.storage === true);
  return v ? asString(v.name) : undefined;
}

/** The version's `schema.openAPIV3Schema`, for compileSchema. */
export function versionSchema(crd: unknown, version: string): unknown {
  return asObject(crdVersion(crd, version)?.schema).openAPIV3Schema;
}

export function statusSubresourceEnabled(crd: unknown, version: string): boolean {
  const subresources = asObject(crdVersion(crd, version)?.subresources);
  return 'status' in subresources && subresources.status !== null && subresources.status !== undefined;
}

export function scaleSubresource(crd: unknown, version: string): ScaleSubresource | undefined {
  const scale = asObject(crdVersion(crd, version)?.subresources).scale;
  if (!isJsonObject(scale)) return undefined;
  const out: ScaleSubresource = { specReplicasPath: asString(scale.specReplicasPath), statusReplicasPath: asString(scale.statusReplicasPath) };
  if (typeof scale.labelSelectorPath === 'string' && scale.labelSelectorPath) out.labelSelectorPath = scale.labelSelectorPath;
  return out;
}

const versionPattern = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Kubernetes version priority (apimachinery's CompareKubeAwareVersionStrings): GA before beta
 * before alpha, higher numbers first, then other names alphabetically. Negative when `a` sorts first.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] | undefined => {
    const m = versionPattern.exec(v);
    if (!m) return undefined;
    const stability = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
    return [stability, Number(m[1]), Number(m[3] ?? 0)];
  };
  const ra = rank(a);
  const rb = rank(b);
  if (ra && rb) {
    if (ra[0] !== rb[0]) return rb[0] - ra[0];
    if (ra[1] !== rb[1]) return rb[1] - ra[1];
    return rb[2] - ra[2];
  }
  if (ra) return -1;
  if (rb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The apiextensions.k8s.io/v1 defaults the real server applies to a CRD before validating it:
 * `names.singular` (lower-case kind), `names.listKind` (kind + `List`), `conversion.strategy: None`,
 * and port 443 for a conversion webhook service. Returns a copy.
 */
export function applyCustomResourceDefinitionDefaults(crd: unknown): unknown {
  const out = cloneJson(crd);
  if (!isJsonObject(out) || !isJsonObject(out.spec)) return out;
  const spec = out.spec;
  if (isJsonObject(spec.names)) {
    const names = spec.names;
    const kind = asString(names.kind);
    if (!asString(names.singular)) names.singular = kind.toLowerCase();
    if (!asString(names.listKind) && kind) names.listKind = `${kind}List`;
  }
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: 'None' };
  const clientConfig = asObject(asObject(spec.conversion).webhook).clientConfig;
  if (isJsonObject(clientConfig) && isJsonObject(clientConfig.service) && clientConfig.service.port === undefined) clientConfig.service.port = 443;
  return out;
}

function withStorageVersion(storedVersions: unknown, crd: unknown): string[] {
  const stored = Array.isArray(storedVersions) ? storedVersions.filter((v): v is string => typeof v === 'string') : [];
  const storage = storageVersion(crd);
  return storage !== undefined && !stored.includes(storage) ? [...stored, storage] : stored;
}

/**
 * The CRD strategy's PrepareForCreate: the status is reset to empty accepted names and the storage
 * version as the only stored version (what a create response shows). Returns a copy.
 */
export function prepareCustomResourceDefinitionForCreate(crd: unknown): unknown {
  const out = cloneJson(crd);
  if (!isJsonObject(out)) return out;
  out.status = { acceptedNames: { plural: '', kind: '' }, storedVersions: withStorageVersion([], out) };
  return out;
}

/**
 * The CRD strategy's PrepareForUpdate: the status stays as stored, with a new storage version
 * appended to `status.storedVersions`. (Any change of `spec` bumps `metadata.generation`.) Returns a copy.
 */
export function prepareCustomResourceDefinitionForUpdate(crd: unknown, old: unknown): unknown {
  const out = cloneJson(crd);
  if (!isJsonObject(out)) return out;
  const status = cloneJson(asObject(asObject(old).status));
  status.storedVersions = withStorageVersion(status.storedVersions, out);
  out.status = status;
  return out;
}

interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

/**
 * The status the real server's controllers write once they have processed a CRD: NamesAccepted
 * (checked against the accepted names of the other CRDs of the same group), Established, the
 * accepted names and the stored versions. Transition times of unchanged conditions are kept.
 */
export function customResourceDefinitionStatus(crd: unknown, now: number, otherCrds: readonly unknown[] = []): JsonObject {
  const group = asString(specOf(crd).group);
  const requested = asObject(specOf(crd).names);
  const previous = asObject(asObject(crd).status);
  const accepted = asObject(previous.acceptedNames);
  const usedResources = new Set<string>();
  const usedKinds = new Set<string>();
  const self = asString(asObject(asObject(crd).metadata).name);
  for (const other of otherCrds) {
    if (asString(specOf(other).group) !== group || asString(asObject(asObject(other).metadata).name) === self) continue;
    const names = asObject(asObject(asObject(other).status).acceptedNames);
    for (const n of [names.plural, names.singular, ...(Array.isArray(names.shortNames) ? names.shortNames : [])]) if (typeof n === 'string' && n) usedResources.add(n);
    for (const n of [names.kind, names.listKind]) if (typeof n === 'string' && n) usedKinds.add(n);
  }

  let conflict: { reason: string; message: string } | undefined;
  const newNames: JsonObject = { ...accepted };
  const claim = (field: string, reason: string, used: Set<string>): void => {
    const want = asString(requested[field]);
    if (want !== asString(accepted[field]) && used.has(want)) conflict = { reason, message: `"${want}" is already in use` };
    else newNames[field] = want;
  };
  claim('plural', 'PluralConflict', usedResources);
  claim('singular', 'SingularConflict', usedResources);
  const wantedShortNames = Array.isArray(requested.shortNames) ? requested.shortNames.filter((s): s is string => typeof s === 'string') : [];
  const acceptedShortNames = Array.isArray(accepted.shortNames) ? accepted.shortNames : [];
  if (JSON.stringify(wantedShortNames) !== JSON.stringify(acceptedShortNames)) {
    const taken = wantedShortNames.filter((s) => !acceptedShortNames.includes(s) && usedResources.has(s));
    if (taken.length) {
      const messages = taken.map((s) => `"${s}" is already in use`);
      conflict = { reason: 'ShortNamesConflict', message: messages.length === 1 ? (messages[0] ?? '') : `[${messages.join(', ')}]` };
    } else {
      newNames.shortNames = wantedShortNames;
    }
  }
  claim('kind', 'KindConflict', usedKinds);
  claim('listKind', 'ListKindConflict', usedKinds);
  newNames.categories = requested.categories;

  const conditions = Array.isArray(previous.conditions) ? previous.conditions.filter(isJsonObject) : [];
  const previousCondition = (type: string): JsonObject | undefined => conditions.find((c) => c.type === type);
  const stamp = (c: Condition): Condition => {
    const before = previousCondition(c.type);
    const keep = before && before.status === c.status && typeof before.lastTransitionTime === 'string';
    return { type: c.type, status: c.status, lastTransitionTime: keep ? (before.lastTransitionTime as string) : formatTimestamp(now), reason: c.reason, message: c.message };
  };
  const namesAccepted: Condition = conflict
    ? { type: 'NamesAccepted', status: 'False', reason: conflict.reason, message: conflict.message }
    : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
  const wasEstablished = previousCondition('Established')?.status === 'True';
  const established: Condition =
    conflict && !wasEstablished
      ? { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }
      : { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' };
  const others = conditions.filter((c) => c.type !== 'NamesAccepted' && c.type !== 'Established');

  return {
    conditions: [stamp(namesAccepted), stamp(established), ...others],
    acceptedNames: orderedNames(newNames),
    storedVersions: withStorageVersion(previous.storedVersions, crd),
  };
}

// CustomResourceDefinitionNames in its field order, without the empty optional fields.
function orderedNames(names: JsonObject): JsonObject {
  const out: JsonObject = { plural: asString(names.plural) };
  if (asString(names.singular)) out.singular = names.singular;
  if (Array.isArray(names.shortNames) && names.shortNames.length) out.shortNames = names.shortNames;
  out.kind = asString(names.kind);
  if (asString(names.listKind)) out.listKind = names.listKind;
  if (Array.isArray(names.categories) && names.categories.length) out.categories = names.categories;
  return out;
}
