// Parse a pod's labels into its lifecycles. IDs exist only through the operating, operate and operated
// families (upstream IDToLabelsMap); the other families of an ID are gathered for the IDs found.

import {
  ID_DEFINING_WORDS,
  ID_LABEL_WORDS,
  OPERATION_PERMISSION_PREFIX,
  idLabelKey,
  idLabelPrefix,
  operationPermissionKey,
  type IdLabelWord,
} from '../api/protocol.ts';
import { forEachLabel, type LabelSource } from './labels.ts';

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

export class InvalidLabelError extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`invalid label ${key}`);
    this.name = 'InvalidLabelError';
    this.key = key;
  }
}

const wordByPrefix = new Map<string, IdLabelWord>(ID_LABEL_WORDS.map((w) => [idLabelPrefix(w), w]));
const definingWords = new Set<IdLabelWord>(ID_DEFINING_WORDS);

export interface ParsedLabelKey {
  word: IdLabelWord;
  id: string;
}

/**
 * Splits `<word>.podopslifecycle.kusionstack.io/<id>`. Returns undefined for keys of no per-ID family;
 * throws InvalidLabelError for a family key without exactly one non-empty ID (e.g. the bare prefix).
 * The prefix must match exactly: a key such as `operating.podopslifecycle.kusionstack.io.x/y` is not a
 * protocol label (upstream's startsWith test would half-treat it as one).
 */
export function parseIdLabelKey(key: string): ParsedLabelKey | undefined {
  let parsed = parsedKeys.get(key);
  if (parsed === undefined) {
    parsed = splitIdLabelKey(key);
    if (parsedKeys.size >= PARSED_KEY_CACHE_SIZE) parsedKeys.clear();
    parsedKeys.set(key, parsed);
  }
  if (parsed === 'invalid') throw new InvalidLabelError(key);
  return parsed ?? undefined;
}

// Label keys repeat across requests (a handful of IDs and types per cluster), so parsed and built keys
// are cached; the caches are bounded because label keys come from users.
const PARSED_KEY_CACHE_SIZE = 10_000;
const parsedKeys = new Map<string, ParsedLabelKey | null | 'invalid'>();

export type LifecycleKeys = Readonly<Record<IdLabelWord, string>>;
const keysById = new Map<string, LifecycleKeys>();

/** Every per-ID label key of one ID, built once: the admission path looks these up many times per request. */
export function lifecycleKeys(id: string): LifecycleKeys {
  let keys = keysById.get(id);
  if (keys === undefined) {
    keys = Object.fromEntries(ID_LABEL_WORDS.map((word) => [word, idLabelKey(word, id)])) as Record<IdLabelWord, string>;
    if (keysById.size >= PARSED_KEY_CACHE_SIZE) keysById.clear();
    keysById.set(id, keys);
  }
  return keys;
}

const permissionKeys = new Map<string, string>();

export function permissionKey(type: string): string {
  let key = permissionKeys.get(type);
  if (key === undefined) {
    key = operationPermissionKey(type);
    if (permissionKeys.size >= PARSED_KEY_CACHE_SIZE) permissionKeys.clear();
    permissionKeys.set(type, key);
  }
  return key;
}

function splitIdLabelKey(key: string): ParsedLabelKey | null | 'invalid' {
  const slash = key.indexOf('/');
  const word = wordByPrefix.get(slash < 0 ? key : key.slice(0, slash));
  if (word === undefined) return null;
  const id = slash < 0 ? '' : key.slice(slash + 1);
  if (id === '' || id.includes('/')) return 'invalid';
  return { word, id };
}

/** True for `operation-permission.podopslifecycle.kusionstack.io[/<type>]`. */
export function isOperationPermissionKey(key: string): boolean {
  const slash = key.indexOf('/');
  return (slash < 0 ? key : key.slice(0, slash)) === OPERATION_PERMISSION_PREFIX;
}

export function parseLifecycles(labels: LabelSource | undefined): PodLifecycles {
  const gathered = new Map<string, IdLabels>();
  const defined = new Set<string>();
  forEachLabel(labels, (key, value) => {
    const parsed = parseIdLabelKey(key);
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
