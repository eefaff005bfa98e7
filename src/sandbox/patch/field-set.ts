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

export class FieldSet {
  /** Whether the path that leads to this node is itself in the set. */
  member = false;
  readonly children = new Map<PathElement, FieldSet>();

  static of(paths: Iterable<FieldPath>): FieldSet {
    const set = new FieldSet();
    for (const path of paths) set.insert(path);
    return set;
  }

  insert(path: FieldPath): void {
    const node = path.reduce<FieldSet>((parent, element) => parent.childFor(element), this);
    if (path.length > 0) node.member = true;
  }

  /** The child node for `element`, created when missing. */
  childFor(element: PathElement): FieldSet {
    let child = this.children.get(element);
    if (!child) {
      child = new FieldSet();
      this.children.set(element, child);
    }
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

  union(other: FieldSet): FieldSet {
    const out = this.copy();
    out.member ||= other.member;
    for (const [element, child] of other.children) {
      const mine = out.children.get(element);
      out.children.set(element, mine ? mine.union(child) : child.copy());
    }
    return out;
  }

  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.member = this.member && !other.member;
    for (const [element, child] of this.children) {
      const theirs = other.children.get(element);
      const rest = theirs ? child.difference(theirs) : child.copy();
      if (!rest.isEmpty()) out.children.set(element, rest);
    }
    return out;
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
    const out = this.copy();
    for (const prefix of prefixes) {
      const last = prefix[prefix.length - 1];
      if (last === undefined) return new FieldSet();
      out.descend(prefix.slice(0, -1))?.children.delete(last);
    }
    // A difference with nothing drops the nodes left empty.
    return out.difference(new FieldSet());
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

  toFieldsV1(): JsonObject {
    const encode = (node: FieldSet, includeSelf: boolean): JsonObject => {
      const out: JsonObject = {};
      if (includeSelf && node.member && node.children.size > 0) out['.'] = {};
      for (const [element, child] of sortedChildren(node)) out[element] = encode(child, true);
      return out;
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
    };
    const set = new FieldSet();
    decode(fields, set);
    set.member = false;
    return set;
  }

  private copy(): FieldSet {
    const out = new FieldSet();
    out.member = this.member;
    for (const [element, child] of this.children) out.children.set(element, child.copy());
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
