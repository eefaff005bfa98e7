// The part of client-go's JSONPath that CRD printer columns use, with missing keys allowed:
// `.a.b`, `['a.b']`, `[0]`, `[-1]`, `[*]`, `.*`, and filters `[?(@.type=="Ready")]`
// (==, !=, <, >, <=, >=, or bare existence). A path yields every match, in document order.

import { isJsonObject } from '../meta/object.ts';

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'index'; index: number }
  | { kind: 'filter'; path: Step[]; operator: string; literal: unknown };

const compiled = new Map<string, Step[] | Error>();

/** All values `jsonPath` selects in `obj`; an unparsable path selects nothing. */
export function evaluateJsonPath(jsonPath: string, obj: unknown): unknown[] {
  let steps = compiled.get(jsonPath);
  if (!steps) {
    try {
      steps = parse(jsonPath);
    } catch (err) {
      steps = err instanceof Error ? err : new Error(String(err));
    }
    compiled.set(jsonPath, steps);
  }
  return steps instanceof Error ? [] : evaluate(steps, [obj]);
}

function evaluate(steps: readonly Step[], input: unknown[]): unknown[] {
  let current = input;
  for (const step of steps) current = current.flatMap((value) => apply(step, value));
  return current;
}

function apply(step: Step, value: unknown): unknown[] {
  switch (step.kind) {
    case 'field':
      return isJsonObject(value) && step.name in value ? [value[step.name]] : [];
    case 'wildcard':
      if (Array.isArray(value)) return value;
      return isJsonObject(value) ? Object.keys(value).sort().map((k) => value[k]) : [];
    case 'index': {
      if (!Array.isArray(value)) return [];
      const i = step.index < 0 ? value.length + step.index : step.index;
      return i >= 0 && i < value.length ? [value[i]] : [];
    }
    case 'filter':
      return Array.isArray(value) ? value.filter((item) => matches(step, item)) : [];
  }
}

function matches(step: Extract<Step, { kind: 'filter' }>, item: unknown): boolean {
  const [left] = evaluate(step.path, [item]);
  if (step.operator === 'exists') return left !== undefined;
  if (left === undefined) return false;
  const right = step.literal;
  switch (step.operator) {
    case '==':
      return left === right;
    case '!=':
      return left !== right;
    default: {
      if (typeof left !== typeof right || (typeof left !== 'number' && typeof left !== 'string')) return false;
      const l = left as number | string;
      const r = right as number | string;
      return step.operator === '<' ? l < r : step.operator === '>' ? l > r : step.operator === '<=' ? l <= r : l >= r;
    }
  }
}

function parse(path: string): Step[] {
  let source = path.trim();
  if (source.startsWith('{') && source.endsWith('}')) source = source.slice(1, -1).trim();
  if (source.startsWith('$')) source = source.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (ch === '.') {
      i++;
      if (source[i] === '*') {
        steps.push({ kind: 'wildcard' });
        i++;
        continue;
      }
      const start = i;
      while (i < source.length && source[i] !== '.' && source[i] !== '[') i++;
      if (i > start) steps.push({ kind: 'field', name: source.slice(start, i) });
    } else if (ch === '[') {
      const end = closingBracket(source, i);
      steps.push(parseBracket(source.slice(i + 1, end).trim()));
      i = end + 1;
    } else {
      throw new Error(`unrecognized character in action: ${ch}`);
    }
  }
  return steps;
}

function closingBracket(source: string, open: number): number {
  let quote = '';
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const ch = source[i];
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') {
      depth--;
      if (depth === 0 && ch === ']') return i;
    }
  }
  throw new Error('unterminated array');
}

function parseBracket(inner: string): Step {
  if (inner === '*') return { kind: 'wildcard' };
  if (/^-?\d+$/.test(inner)) return { kind: 'index', index: Number(inner) };
  const quoted = /^(['"])(.*)\1$/.exec(inner);
  if (quoted) return { kind: 'field', name: quoted[2] ?? '' };
  const filter = /^\?\(\s*@((?:\.[^.\s=!<>()[\]]+|\[[^\]]*\])*)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*\)$/.exec(inner);
  if (!filter) throw new Error(`unrecognized array index: ${inner}`);
  const operator = filter[2] ?? 'exists';
  return { kind: 'filter', path: parse(filter[1] ?? ''), operator, literal: filter[3] === undefined ? undefined : parseLiteral(filter[3]) };
}

function parseLiteral(text: string): unknown {
  const quoted = /^(['"])(.*)\1$/.exec(text);
  if (quoted) return quoted[2] ?? '';
  if (text === 'true' || text === 'false') return text === 'true';
  const n = Number(text);
  if (Number.isNaN(n)) throw new Error(`unrecognized literal: ${text}`);
  return n;
}
