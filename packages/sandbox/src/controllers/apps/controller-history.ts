// ControllerRevisions (k8s.io/kubernetes/pkg/controller/history and the workloads' getPatch): a
// revision stores the patch that restores a pod template, `{"spec":{"template":{"$patch":"replace",…}}}`,
// serialized as Go's json.Marshal writes a map (keys sorted, `<`, `>`, `&`, U+2028 and U+2029
// escaped). StatefulSet revisions are named `<owner>-<hash>` with hash = SafeEncodeString of the
// decimal FNV-1 32-bit hash of those bytes followed by the collision count, so the hash has 7 to 10
// characters; an existing revision with other data under that name bumps the collision count.

import type { LocalClient } from '../../apiserver/local-client.ts';
import { StatusError } from '../../errors.ts';
import { isJsonObject, type JsonObject, type KubeObject } from '../../meta/object.ts';
import { newControllerRef, type OwnerKind } from './controller-ref.ts';
import { sortedMap } from './pod-control.ts';
import { safeEncodeString } from './pod-template-hash.ts';

export const controllerRevisions = { group: 'apps', version: 'v1', resource: 'controllerrevisions' };
export const controllerRevisionsStorage = 'controllerrevisions.apps';

/** The label with a StatefulSet revision's hash (history.ControllerRevisionHashLabel). */
export const revisionHashLabel = 'controller.kubernetes.io/hash';

const htmlUnsafe = /[<>&\u2028\u2029]/g;
const goEscapes: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** Go's json.Marshal of a value decoded into interface{}: map keys sorted, HTML characters escaped. */
export function goJsonMarshal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJsonMarshal).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${goJsonMarshal(k)}:${goJsonMarshal(value[k])}`).join(',')}}`;
  }
  const text = JSON.stringify(value) ?? 'null';
  return typeof value === 'string' ? text.replace(htmlUnsafe, (c) => goEscapes[c] ?? c) : text;
}

/** getPatch: the revision data that restores `template`, and its bytes. */
export function templatePatch(template: unknown): { data: JsonObject; raw: string } {
  const restore = { $patch: 'replace', ...(isJsonObject(template) ? template : {}) };
  const raw = goJsonMarshal({ spec: { template: restore } });
  // Parsing the bytes back gives the data with its keys in the stored order.
  return { data: JSON.parse(raw) as JsonObject, raw };
}

/** The bytes of a stored revision's data, comparable with templatePatch(...).raw. */
export const revisionRaw = (revision: KubeObject): string => goJsonMarshal(revision.data ?? null);

/** The template a revision restores (ApplyRevision of the `$patch: replace` template). */
export function revisionTemplate(revision: KubeObject): JsonObject {
  const spec = isJsonObject(revision.data) && isJsonObject(revision.data.spec) ? revision.data.spec : {};
  const template = isJsonObject(spec.template) ? { ...spec.template } : {};
  delete template.$patch;
  return template;
}

const fnvOffset = 0x811c9dc5;
const fnvPrime = 0x01000193;

/** FNV-1 (multiply, then xor) 32-bit over UTF-8 bytes, continuing from `hash`. */
function fnv1(text: string, hash = fnvOffset): number {
  let h = hash;
  for (const byte of new TextEncoder().encode(text)) h = (Math.imul(h, fnvPrime) ^ byte) >>> 0;
  return h;
}

/** HashControllerRevision with a collision count probe. */
export function hashRevision(raw: string, collisionCount: number): string {
  return safeEncodeString(String(fnv1(String(collisionCount), fnv1(raw))));
}

/** ControllerRevisionName: the prefix cut to 223 characters so the name stays under 253. */
export const revisionName = (prefix: string, hash: string): string => `${prefix.slice(0, 223)}-${hash}`;

export const revisionNumber = (revision: KubeObject): number => (typeof revision.revision === 'number' ? revision.revision : 0);

/** SortControllerRevisions: by revision number, stable. */
export const sortRevisions = (revisions: KubeObject[]): KubeObject[] => [...revisions].sort((a, b) => revisionNumber(a) - revisionNumber(b));

/** NewControllerRevision (plus the owner's annotations, as the StatefulSet controller adds them). */
export function newControllerRevision(parent: KubeObject, parentKind: OwnerKind, template: unknown, revision: number, collisionCount: number): KubeObject {
  const { data, raw } = templatePatch(template);
  const hash = hashRevision(raw, collisionCount);
  const templateLabels = isJsonObject(template) && isJsonObject(template.metadata) && isJsonObject(template.metadata.labels) ? template.metadata.labels : {};
  const metadata: KubeObject['metadata'] = {
    name: revisionName(parent.metadata.name ?? '', hash),
    namespace: parent.metadata.namespace,
    labels: sortedMap({ ...(templateLabels as Record<string, string>), [revisionHashLabel]: hash }),
  };
  if (parent.metadata.annotations && Object.keys(parent.metadata.annotations).length) metadata.annotations = sortedMap(parent.metadata.annotations);
  metadata.ownerReferences = [newControllerRef(parent, parentKind)];
  return { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata, data, revision };
}

/**
 * CreateControllerRevision: creates `revision` under the name its hash gives; when another revision
 * already holds that name, an identical one is reused and a different one bumps the collision count.
 */
export async function createControllerRevision(
  client: LocalClient,
  parent: KubeObject,
  revision: KubeObject,
  collisionCount: number,
): Promise<{ revision: KubeObject; collisionCount: number }> {
  const raw = revisionRaw(revision);
  const namespace = parent.metadata.namespace;
  for (let count = collisionCount; ; count++) {
    const candidate: KubeObject = { ...revision, metadata: { ...revision.metadata, name: revisionName(parent.metadata.name ?? '', hashRevision(raw, count)) } };
    try {
      return { revision: await client.create(controllerRevisions, candidate, { namespace }), collisionCount: count };
    } catch (err) {
      if (!(err instanceof StatusError && err.status.code === 409 && err.status.reason === 'AlreadyExists')) throw err;
      const existing = await client.get(controllerRevisions, candidate.metadata.name ?? '', { namespace });
      if (revisionRaw(existing) === raw) return { revision: existing, collisionCount: count };
    }
  }
}

/** UpdateControllerRevision: sets the revision number, retrying on conflicts with the latest object. */
export async function updateRevisionNumber(client: LocalClient, revision: KubeObject, number: number): Promise<KubeObject> {
  let current = revision;
  for (let attempt = 0; ; attempt++) {
    if (revisionNumber(current) === number) return current;
    try {
      return await client.update(controllerRevisions, { ...current, revision: number }, { namespace: current.metadata.namespace });
    } catch (err) {
      if (!(err instanceof StatusError && err.status.code === 409) || attempt >= 4) throw err;
      current = await client.get(controllerRevisions, current.metadata.name ?? '', { namespace: current.metadata.namespace });
    }
  }
}

/** AdoptControllerRevision: a strategic merge patch adding the controller reference, guarded by uid. */
export function adoptRevision(client: LocalClient, parent: KubeObject, parentKind: OwnerKind, revision: KubeObject): Promise<KubeObject> {
  const patch = { metadata: { ownerReferences: [newControllerRef(parent, parentKind)], uid: revision.metadata.uid } };
  return client.patch(controllerRevisions, revision.metadata.name ?? '', 'strategic', patch, { namespace: revision.metadata.namespace });
}
