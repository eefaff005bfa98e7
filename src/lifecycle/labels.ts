// A copy-on-write view of a label map that records what changed, so the admission mutation and the
// controller can both describe their result as label changes and as an RFC 6902 patch.

import { escapeJsonPointer, type JsonPatchOperation } from '../api/kube.ts';

export interface LabelChange {
  key: string;
  /** Value before; undefined when the label was added. */
  from: string | undefined;
  /** Value after; undefined when the label was removed. */
  to: string | undefined;
}

/** Labels as read by the core: a pod's label object, or the Map a LabelDraft works on. */
export type LabelSource = Readonly<Record<string, string>> | ReadonlyMap<string, string>;

/** Calls `fn` for every label; a plain loop, because this sits on the admission hot path. */
export function forEachLabel(labels: LabelSource | undefined, fn: (key: string, value: string) => void): void {
  if (labels === undefined) return;
  if (labels instanceof Map) {
    for (const [key, value] of labels) fn(key, value);
    return;
  }
  const record = labels as Readonly<Record<string, string>>;
  for (const key in record) fn(key, record[key] as string);
}

export function labelMap(labels: LabelSource | undefined): Map<string, string> {
  if (labels instanceof Map) return new Map(labels);
  const map = new Map<string, string>();
  forEachLabel(labels, (key, value) => map.set(key, value));
  return map;
}

/** A Map so that deletes stay cheap (deleting from a plain object drops V8 into dictionary mode). */
export class LabelDraft {
  readonly #current: Map<string, string>;
  #dirty = false;

  constructor(original: LabelSource | undefined) {
    this.#current = labelMap(original);
  }

  /** Whether any set or delete changed a value. */
  get dirty(): boolean {
    return this.#dirty;
  }

  get(key: string): string | undefined {
    return this.#current.get(key);
  }

  has(key: string): boolean {
    return this.#current.has(key);
  }

  set(key: string, value: string): void {
    if (this.#current.get(key) === value) return;
    this.#current.set(key, value);
    this.#dirty = true;
  }

  /** Sets the label only when it is absent. */
  setIfAbsent(key: string, value: string): void {
    if (!this.#current.has(key)) this.set(key, value);
  }

  delete(key: string): void {
    if (this.#current.delete(key)) this.#dirty = true;
  }

  /** The current labels, shared: read them, do not keep editing the draft afterwards. */
  view(): ReadonlyMap<string, string> {
    return this.#current;
  }

  /** The resulting labels as a new object. */
  result(): Record<string, string> {
    return Object.fromEntries(this.#current);
  }
}

/** The changes that turn `original` into `result`, sorted by key. */
export function diffLabels(original: Readonly<Record<string, string>> | undefined, result: LabelSource): LabelChange[] {
  const before = original ?? {};
  const after = result instanceof Map ? result : labelMap(result);
  const changes: LabelChange[] = [];
  for (const key in before) {
    const from = before[key];
    const to = after.get(key);
    if (from !== to) changes.push({ key, from, to });
  }
  for (const [key, to] of after) {
    if (!Object.hasOwn(before, key)) changes.push({ key, from: undefined, to });
  }
  return changes.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** RFC 6902 operations that turn the original labels into the result. */
export function labelPatch(originalLabels: Readonly<Record<string, string>> | undefined, changes: readonly LabelChange[]): JsonPatchOperation[] {
  if (changes.length === 0) return [];
  if (originalLabels === undefined) {
    const labels: Record<string, string> = {};
    for (const c of changes) if (c.to !== undefined) labels[c.key] = c.to;
    return [{ op: 'add', path: '/metadata/labels', value: labels }];
  }
  return changes.map((c): JsonPatchOperation => {
    const path = labelPath(c.key);
    if (c.to === undefined) return { op: 'remove', path };
    return { op: c.from === undefined ? 'add' : 'replace', path, value: c.to };
  });
}

const labelPaths = new Map<string, string>();

/** `/metadata/labels/<escaped key>`, cached: the same protocol keys are patched again and again. */
function labelPath(key: string): string {
  let path = labelPaths.get(key);
  if (path === undefined) {
    path = `/metadata/labels/${escapeJsonPointer(key)}`;
    if (labelPaths.size >= 10_000) labelPaths.clear();
    labelPaths.set(key, path);
  }
  return path;
}
