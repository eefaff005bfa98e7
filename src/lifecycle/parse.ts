// Parse a pod's labels into its lifecycles. IDs exist only through the operating, operate and operated
// families (upstream IDToLabelsMap); the other families of an ID are gathered for the IDs found.

import { ID_DEFINING_WORDS, ID_LABEL_WORDS, InvalidLabelError, idLabelKey, idLabelPrefix, operationPermissionKey, parseIdLabelKey, type IdLabelWord } from '../api/protocol.ts';
import { forEachLabel, type LabelSource } from './labels.ts';

// parseLifecycles throws it for a key of operating, operate or operated without an ID, so its callers catch it from here.
export { InvalidLabelError } from '../api/protocol.ts';

export type IdLabels = Partial<Record<IdLabelWord, string>>;

export interface Lifecycle {
  id: string;
  /** Label family -> value, for the families present on the pod. */
  labels: IdLabels;
  /** `operation-type/<id>`, or `done-operation-type/<id>` once operated. */
  type: string | undefined;
}

export interface PodLifecycles {
  byId: Map<string, Lifecycle>;
  /** Number of IDs per operation type (type taken as in `Lifecycle.type`). */
  typeCount: Map<string, number>;
}

const definingWords = new Set<IdLabelWord>(ID_DEFINING_WORDS);
const definingPrefixes = new Set(ID_DEFINING_WORDS.map(idLabelPrefix));

/**
 * Whether a malformed per-ID key stops the parse. Upstream's mutation fails only on a key of a family that makes
 * an ID exist and names none; every other malformed key is left for the validation to deny with its message.
 */
function stopsParse(key: string): boolean {
  const slash = key.indexOf('/');
  return slash < 0 ? definingPrefixes.has(key) : definingPrefixes.has(key.slice(0, slash)) && slash === key.length - 1;
}

// Built keys repeat across requests (a handful of IDs and types per cluster), so they are cached; the
// caches are bounded because IDs and types come from users.
const KEY_CACHE_SIZE = 10_000;

export type LifecycleKeys = Readonly<Record<IdLabelWord, string>>;
const keysById = new Map<string, LifecycleKeys>();

/** Every per-ID label key of one ID, built once: the admission path looks these up many times per request. */
export function lifecycleKeys(id: string): LifecycleKeys {
  let keys = keysById.get(id);
  if (keys === undefined) {
    keys = Object.fromEntries(ID_LABEL_WORDS.map((word) => [word, idLabelKey(word, id)])) as Record<IdLabelWord, string>;
    if (keysById.size >= KEY_CACHE_SIZE) keysById.clear();
    keysById.set(id, keys);
  }
  return keys;
}

const permissionKeys = new Map<string, string>();

export function permissionKey(type: string): string {
  let key = permissionKeys.get(type);
  if (key === undefined) {
    key = operationPermissionKey(type);
    if (permissionKeys.size >= KEY_CACHE_SIZE) permissionKeys.clear();
    permissionKeys.set(type, key);
  }
  return key;
}

export function parseLifecycles(labels: LabelSource | undefined): PodLifecycles {
  const gathered = new Map<string, IdLabels>();
  const defined = new Set<string>();
  forEachLabel(labels, (key, value) => {
    let parsed;
    try {
      parsed = parseIdLabelKey(key);
    } catch (err) {
      if (err instanceof InvalidLabelError && !stopsParse(key)) return;
      throw err;
    }
    if (!parsed) return;
    let idLabels = gathered.get(parsed.id);
    if (!idLabels) gathered.set(parsed.id, (idLabels = {}));
    idLabels[parsed.word] = value;
    if (definingWords.has(parsed.word)) defined.add(parsed.id);
  });
  const byId = new Map<string, Lifecycle>();
  const typeCount = new Map<string, number>();
  for (const id of defined) {
    const idLabels = gathered.get(id) as IdLabels;
    const type = idLabels['operation-type'] ?? idLabels['done-operation-type'];
    byId.set(id, { id, labels: idLabels, type });
    if (type !== undefined) typeCount.set(type, (typeCount.get(type) ?? 0) + 1);
  }
  return { byId, typeCount };
}
