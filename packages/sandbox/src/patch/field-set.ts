// Sets of field paths, the currency of field ownership (structured-merge-diff's fieldpath.Set), and
// their `FieldsV1` encoding in managedFields. A path is a list of path elements, each written as in
// FieldsV1: `f:<field>` (struct field or map key), `k:<json of the key fields>` (item of a keyed
// list), `v:<json value>` (item of a set), `i:<index>` (item of a list without keys).

import { isJsonObject, type JsonObject } from '../meta/object.ts';

export type PathElement = string;
export type FieldPath = readonly PathElement[];

export const fieldElement = (name: string): PathElement => `f:${name}`;
export const valueElement = (value: unknown): PathElement => `v:${JSON.stringify(value)}`;
/** Key fields are serialized in name order, as structured-merge-diff sorts them. */
export const keyElement = (keys: Readonly<Record<string, unknown>>): PathElement =>
  `k:${JSON.stringify(Object.fromEntries(Object.keys(keys).sort().map((k) => [k, keys[k]])))}`;

const emptyEncoding: JsonObject = Object.freeze({});

export class FieldSet {
  /** Whether the path that leads to this node is itself in the set. */
  member = false;
  readonly children = new Map<PathElement, FieldSet>();
  /**
   * The frozen FieldsV1 this node was decoded from, which is its encoding: a write re-encodes only
   * the nodes it changed and shares the rest with the version it read.
   */
  #source: JsonObject | undefined;

  static of(paths: Iterable<FieldPath>): FieldSet {
    const set = new FieldSet();
    for (const path of paths) set.insert(path);
    return set;
  }

  insert(path: FieldPath): void {
    this.#source = undefined;
    const node = path.reduce<FieldSet>((parent, element) => parent.editableChild(element), this);
    if (path.length > 0) node.member = true;
  }

  /** The child for `element`, created when missing; an edit below a node voids its decoded encoding. */
  private editableChild(element: PathElement): FieldSet {
    let child = this.children.get(element);
    if (!child) {
      child = new FieldSet();
      this.children.set(element, child);
    }
    child.#source = undefined;
    return child;
  }

  has(path: FieldPath): boolean {
    return this.descend(path)?.member ?? false;
  }

  /** The subtree under `path` (not a copy), if any. */
  descend(path: FieldPath): FieldSet | undefined {
    return path.reduce<FieldSet | undefined>((node, element) => node?.children.get(element), this);
  }

  isEmpty(): boolean {
    return !this.member && this.children.size === 0;
  }

  // Sets are values once built: the operations share untouched subtrees and return the set itself
  // when nothing changes, so a manager whose fields a write leaves alone keeps its set (and the
  // set's cached encoding).

  union(other: FieldSet): FieldSet {
    if (other === this || other.isEmpty()) return this;
    if (this.isEmpty()) return other;
    let out: FieldSet | undefined;
    for (const [element, theirs] of other.children) {
      const mine = this.children.get(element);
      const merged = mine ? mine.union(theirs) : theirs;
      if (merged === mine) continue;
      out ??= this.shallowCopy();
      out.children.set(element, merged);
    }
    if (other.member && !this.member) {
      out ??= this.shallowCopy();
      out.member = true;
    }
    return out ?? this;
  }

  difference(other: FieldSet): FieldSet {
    if (other.isEmpty()) return this;
    let out: FieldSet | undefined;
    for (const [element, child] of this.children) {
      const theirs = other.children.get(element);
      if (!theirs) continue;
      const rest = child.difference(theirs);
      if (rest === child) continue;
      out ??= this.shallowCopy();
      if (rest.isEmpty()) out.children.delete(element);
      else out.children.set(element, rest);
    }
    if (this.member && other.member) {
      out ??= this.shallowCopy();
      out.member = false;
    }
    return out ?? this;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.member = this.member && other.member;
    for (const [element, child] of this.children) {
      const theirs = other.children.get(element);
      if (!theirs) continue;
      const common = child.intersection(theirs);
      if (!common.isEmpty()) out.children.set(element, common);
    }
    return out;
  }

  /** Drops every path that has one of `prefixes` as a prefix (structured-merge-diff's exclude filter). */
  excluding(prefixes: readonly FieldPath[]): FieldSet {
    return prefixes.reduce<FieldSet>((out, prefix) => (prefix.length === 0 ? new FieldSet() : out.without(prefix, 0)), this);
  }

  /** The set without the subtree at `prefix[depth..]`, dropping the nodes that leaves empty. */
  private without(prefix: FieldPath, depth: number): FieldSet {
    const element = prefix[depth] as PathElement;
    const child = this.children.get(element);
    if (!child) return this;
    const rest = depth === prefix.length - 1 ? new FieldSet() : child.without(prefix, depth + 1);
    if (rest === child) return this;
    const out = this.shallowCopy();
    if (rest.isEmpty()) out.children.delete(element);
    else out.children.set(element, rest);
    return out;
  }

  /** Member paths in the order FieldsV1 lists them. */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    const walk = (node: FieldSet, prefix: PathElement[]): void => {
      for (const [element, child] of sortedChildren(node)) {
        const path = [...prefix, element];
        if (child.member) out.push(path);
        walk(child, path);
      }
    };
    walk(this, []);
    return out;
  }

  /** The FieldsV1 encoding, deeply frozen (parts of it may be shared with other encodings). */
  toFieldsV1(): JsonObject {
    const encode = (node: FieldSet, includeSelf: boolean): JsonObject => {
      if (node.#source) return node.#source;
      const out: JsonObject = {};
      if (includeSelf && node.member && node.children.size > 0) out['.'] = emptyEncoding;
      for (const [element, child] of sortedChildren(node)) out[element] = encode(child, true);
      return Object.freeze(out);
    };
    return encode(this, false);
  }

  /** Parses FieldsV1; throws an Error naming the problem on a malformed document. */
  static fromFieldsV1(fields: unknown): FieldSet {
    const decode = (value: unknown, node: FieldSet): void => {
      if (!isJsonObject(value)) throw new Error(`expected an object, got ${JSON.stringify(value)}`);
      for (const [key, child] of Object.entries(value)) {
        if (key === '.') {
          node.member = true;
          continue;
        }
        parsePathElement(key);
        const childNode = new FieldSet();
        // `{}` is a member without children; an object with children is a member only with ".".
        childNode.member = isJsonObject(child) && Object.keys(child).length === 0;
        decode(child, childNode);
        node.children.set(key, childNode);
      }
      // Only an encoding of ours is frozen, and only it is canonical (sorted, "." where needed).
      if (Object.isFrozen(value)) node.#source = value;
    };
    const set = new FieldSet();
    decode(fields, set);
    set.member = false;
    return set;
  }

  /** A new node over the same (shared) children; its encoding is built afresh. */
  private shallowCopy(): FieldSet {
    const out = new FieldSet();
    out.member = this.member;
    for (const [element, child] of this.children) out.children.set(element, child);
    return out;
  }
}

type ParsedElement =
  | { type: 'field'; name: string }
  | { type: 'key'; keys: [string, unknown][] }
  | { type: 'value'; value: unknown }
  | { type: 'index'; index: number };

/** Parsed path elements: the same few strings (`f:spec`, `f:metadata`, …) recur in every object. */
const parsedElements = new Map<PathElement, ParsedElement>();
const parsedElementsLimit = 10000;

function parsePathElement(element: PathElement): ParsedElement {
  let parsed = parsedElements.get(element);
  if (!parsed) {
    parsed = parseUncached(element);
    if (parsedElements.size >= parsedElementsLimit) parsedElements.clear();
    parsedElements.set(element, parsed);
  }
  return parsed;
}

function parseUncached(element: PathElement): ParsedElement {
  const payload = element.slice(2);
  switch (element.slice(0, 2)) {
    case 'f:':
      return { type: 'field', name: payload };
    case 'k:': {
      const keys = JSON.parse(payload) as unknown;
      if (!isJsonObject(keys)) throw new Error(`invalid key ${payload}`);
      return { type: 'key', keys: Object.entries(keys) };
    }
    case 'v:':
      return { type: 'value', value: JSON.parse(payload) as unknown };
    case 'i:': {
      if (!/^[0-9]+$/.test(payload)) throw new Error(`invalid index ${payload}`);
      return { type: 'index', index: Number(payload) };
    }
    default:
      throw new Error(`unknown path element type ${JSON.stringify(element)}`);
  }
}

const elementRank = { field: 0, key: 1, value: 2, index: 3 } as const;

/** structured-merge-diff's PathElement order: fields, then keys, then values, then indexes. */
function comparePathElements(pa: ParsedElement, pb: ParsedElement): number {
  if (pa.type !== pb.type) return elementRank[pa.type] - elementRank[pb.type];
  if (pa.type === 'field' && pb.type === 'field') return compareStrings(pa.name, pb.name);
  if (pa.type === 'index' && pb.type === 'index') return pa.index - pb.index;
  if (pa.type === 'value' && pb.type === 'value') return compareValues(pa.value, pb.value);
  if (pa.type === 'key' && pb.type === 'key') {
    for (let i = 0; i < Math.max(pa.keys.length, pb.keys.length); i++) {
      const ka = pa.keys[i];
      const kb = pb.keys[i];
      if (!ka || !kb) return ka ? 1 : -1;
      const byName = compareStrings(ka[0], kb[0]);
      if (byName !== 0) return byName;
      const byValue = compareValues(ka[1], kb[1]);
      if (byValue !== 0) return byValue;
    }
  }
  return 0;
}

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** structured-merge-diff's total order of values: numbers, strings, booleans, lists, maps, null. */
function compareValues(a: unknown, b: unknown): number {
  const rank = (v: unknown): number =>
    typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : typeof v === 'boolean' ? 2 : Array.isArray(v) ? 3 : isJsonObject(v) ? 4 : 5;
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  return compareStrings(JSON.stringify(a), JSON.stringify(b));
}

function sortedChildren(node: FieldSet): [PathElement, FieldSet][] {
  if (node.children.size < 2) return [...node.children];
  const children = [...node.children].map(([element, child]) => ({ element, child, parsed: parsePathElement(element) }));
  children.sort((a, b) => comparePathElements(a.parsed, b.parsed));
  return children.map(({ element, child }) => [element, child]);
}

/** A path as structured-merge-diff prints it in conflicts: `.spec.containers[name="c"].image`. */
export function pathString(path: FieldPath): string {
  return path
    .map((element) => {
      const parsed = parsePathElement(element);
      switch (parsed.type) {
        case 'field':
          return `.${parsed.name}`;
        case 'key':
          return `[${parsed.keys.map(([name, value]) => `${name}=${valueString(value)}`).join(',')}]`;
        case 'value':
          return `[=${valueString(parsed.value)}]`;
        case 'index':
          return `[${parsed.index}]`;
      }
      return '';
    })
    .join('');
}

function valueString(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(valueString).join(',')}]`;
  if (isJsonObject(value)) return Object.keys(value).map((k) => `${k}=${valueString(value[k])}`).join('');
  return String(value);
}
