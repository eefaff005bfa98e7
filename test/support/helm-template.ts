// The part of Helm's template language the chart uses, for tests that render it (helm itself cannot be
// installed here), with Go text/template's and Helm's semantics:
// - actions `{{ pipeline }}` with `{{-`/`-}}` trimming (a dash followed or preceded by a space) and comments
//   `{{/* ... */}}`; `if`/`else if`/`else`, `with`/`else` (dot becomes the value), `range`/`else` over lists and
//   maps (dot becomes each item; maps in key order), `end`; untaken branches are not evaluated;
// - fields `.a.b` from dot, `$` and `$.a.b` from the root (`.Values`, `.Release`, `.Chart`,
//   `.Capabilities.APIVersions.Has "group/version/Kind"`); a missing map key is nil, a field of nil is the error
//   Helm reports ("nil pointer evaluating interface {}.x"), a field of a string or a list an error too;
// - pipelines `a | f b` (the value is passed as the last argument), parenthesised groups, string and number
//   literals; the functions `and`, `or`, `not` (Go's, short-circuiting), and `quote`, `default`, `toYaml`,
//   `indent`, `nindent`, `kindIs`, `toString` (Sprig's and Helm's);
// - printing as Go's fmt does for values read from YAML (numbers are float64: 1000000 prints 1e+06), nil as
//   nothing (Helm removes `<no value>`).
// Anything else is an error, so a chart that grows past this subset fails its test instead of rendering wrong.

import { stringify } from 'yaml';

export interface RenderContext {
  Values: Record<string, unknown>;
  Release: { Namespace: string; Name?: string };
  Chart?: { Name?: string; Version?: string; AppVersion?: string };
  /** The `group/version/Kind` the cluster serves, for `.Capabilities.APIVersions.Has`. */
  apiVersions: readonly string[];
}

type Token = { text: string } | { action: string };

type Node =
  | { text: string }
  | { print: string }
  | { control: 'if' | 'with' | 'range'; expression: string; then: Node[]; otherwise: Node[] };

function tokenize(template: string): Token[] {
  const tokens: Token[] = [];
  let rest = template;
  for (;;) {
    const open = rest.indexOf('{{');
    if (open < 0) break;
    const close = rest.indexOf('}}', open);
    if (close < 0) throw new Error('unclosed {{');
    let text = rest.slice(0, open);
    let action = rest.slice(open + 2, close);
    // Go: the trim markers are `{{- ` and ` -}}`, a dash and a space (`{{-3}}` is the number -3).
    if (/^-\s/.test(action)) {
      text = text.replace(/\s+$/, '');
      action = action.slice(1);
    }
    let after = rest.slice(close + 2);
    if (/\s-$/.test(action)) {
      action = action.slice(0, -1);
      after = after.replace(/^\s+/, '');
    }
    tokens.push({ text }, { action: action.trim() });
    rest = after;
  }
  tokens.push({ text: rest });
  return tokens;
}

/** The tokens as a tree: control structures hold their branches. */
function parse(tokens: Token[]): Node[] {
  let position = 0;
  // Returns the nodes up to the `end` or `else ...` that closes them, and that closing action.
  const list = (): { nodes: Node[]; closedBy: string | undefined } => {
    const nodes: Node[] = [];
    while (position < tokens.length) {
      const token = tokens[position++] as Token;
      if ('text' in token) {
        if (token.text) nodes.push({ text: token.text });
        continue;
      }
      const { action } = token;
      if (action.startsWith('/*')) {
        if (!action.endsWith('*/')) throw new Error(`malformed comment {{${action}}}`);
        continue;
      }
      const [keyword = '', ...rest] = action.split(/\s+/);
      if (keyword === 'end' || keyword === 'else') return { nodes, closedBy: action };
      if (keyword === 'if' || keyword === 'with' || keyword === 'range') nodes.push(control(keyword, rest.join(' ')));
      else if (['define', 'template', 'block', 'break', 'continue', 'include', 'tpl'].includes(keyword) || action.startsWith('$')) throw new Error(`unsupported template action {{${action}}}`);
      else nodes.push({ print: action });
    }
    return { nodes, closedBy: undefined };
  };
  const control = (kind: 'if' | 'with' | 'range', expression: string): Node => {
    if (!expression) throw new Error(`{{${kind}}} without a pipeline`);
    const then = list();
    if (then.closedBy === undefined) throw new Error(`{{${kind} ${expression}}} has no {{end}}`);
    if (then.closedBy === 'end') return { control: kind, expression, then: then.nodes, otherwise: [] };
    const elseIf = /^else\s+if\s+(.+)$/.exec(then.closedBy);
    if (elseIf) {
      if (kind !== 'if') throw new Error(`{{else if}} in {{${kind}}}`);
      // `else if` closes with the `end` of the whole chain.
      return { control: kind, expression, then: then.nodes, otherwise: [control('if', elseIf[1] as string)] };
    }
    if (then.closedBy !== 'else') throw new Error(`unsupported {{${then.closedBy}}}`);
    const otherwise = list();
    if (otherwise.closedBy !== 'end') throw new Error(`{{${kind} ${expression}}} ... {{else}} has no {{end}}`);
    return { control: kind, expression, then: then.nodes, otherwise: otherwise.nodes };
  };
  const { nodes, closedBy } = list();
  if (closedBy !== undefined) throw new Error(`unexpected {{${closedBy}}}`);
  return nodes;
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Go text/template's truth (and Sprig's `empty`, its negation): false, 0, nil, and empty strings, lists and maps are false. */
const truthy = (value: unknown): boolean =>
  !(value === undefined || value === null || value === false || value === 0 || value === '' || (Array.isArray(value) && value.length === 0) || (isMap(value) && Object.keys(value).length === 0));

/** reflect.Kind of a value read from YAML (numbers are float64 there). */
function kindOf(value: unknown): string {
  if (value === undefined || value === null) return 'invalid';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'float64';
  if (Array.isArray(value)) return 'slice';
  if (isMap(value)) return 'map';
  return 'func';
}

/** Go's %v of a float64: `%g` with the shortest digits, so the exponent form below 1e-4 and from 1e6 (1e+06). */
function formatNumber(n: number): string {
  if (n === 0 || !Number.isFinite(n)) return n === 0 ? '0' : String(n).replace('Infinity', '+Inf');
  const [mantissa = '', exponent = '0'] = n.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

/** fmt's %v (Sprig's strval) of a scalar. */
function stringValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'boolean') return String(value);
  throw new Error(`printing a ${kindOf(value)} is not supported (Go would print map[...] or [...]): pass it through toYaml`);
}

const indent = (spaces: number, text: string): string => {
  const pad = ' '.repeat(spaces);
  return pad + text.replaceAll('\n', `\n${pad}`);
};

const FUNCTIONS: Record<string, (...args: unknown[]) => unknown> = {
  not: (value) => !truthy(value),
  quote: (...values) =>
    values
      .filter((v) => v !== undefined && v !== null)
      .map((v) => JSON.stringify(stringValue(v)))
      .join(' '),
  // Sprig: `default DEFAULT VALUE`, usually `VALUE | default DEFAULT`.
  default: (fallback, ...given) => (given.length === 0 || !truthy(given[0]) ? fallback : given[0]),
  // Helm: sigs.k8s.io/yaml (keys sorted, lists not indented under their key), without the final newline.
  toYaml: (value) => stringify(value ?? null, { sortMapEntries: true, indentSeq: false, lineWidth: 0 }).replace(/\n$/, ''),
  indent: (spaces, text) => indent(Number(spaces), stringValue(text)),
  nindent: (spaces, text) => `\n${indent(Number(spaces), stringValue(text))}`,
  kindIs: (kind, value) => kindOf(value) === kind,
  toString: (value: unknown) => stringValue(value),
};

/** Splits an expression into terms: strings, parenthesised groups, `|`, and words. */
function terms(expression: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < expression.length) {
    const c = expression[i] as string;
    if (/\s/.test(c)) i++;
    else if (c === '"') {
      let end = i + 1;
      while (end < expression.length && expression[end] !== '"') end += expression[end] === '\\' ? 2 : 1;
      if (end >= expression.length) throw new Error(`unterminated string in ${expression}`);
      out.push(expression.slice(i, end + 1));
      i = end + 1;
    } else if (c === '(') {
      let depth = 0;
      let j = i;
      for (; j < expression.length; j++) {
        if (expression[j] === '(') depth++;
        if (expression[j] === ')' && --depth === 0) break;
      }
      if (j >= expression.length) throw new Error(`unbalanced parentheses in ${expression}`);
      out.push(expression.slice(i, j + 1));
      i = j + 1;
    } else if (c === '|') {
      out.push('|');
      i++;
    } else {
      let j = i;
      while (j < expression.length && !/[\s|()]/.test(expression[j] as string)) j++;
      out.push(expression.slice(i, j));
      i = j;
    }
  }
  return out;
}

interface Scope {
  root: Record<string, unknown>;
  dot: unknown;
}

/** `.a.b` (from dot), `$.a.b` (from the root): Go's field evaluation on map[string]interface{}. */
function field(path: string, start: unknown): unknown {
  let at = start;
  let walked = '';
  for (const key of path.split('.').filter(Boolean)) {
    if (at === undefined || at === null) throw new Error(`nil pointer evaluating interface {}.${key} (at ${walked || '.'})`);
    if (!isMap(at)) throw new Error(`can't evaluate field ${key} in type ${kindOf(at)} (at ${walked || '.'})`);
    at = Object.hasOwn(at, key) ? at[key] : null;
    walked += `.${key}`;
  }
  return at;
}

function argument(term: string, scope: Scope): unknown {
  if (term.startsWith('"')) return JSON.parse(term) as unknown;
  if (/^-?\d+(\.\d+)?$/.test(term)) return Number(term);
  if (term === 'true' || term === 'false') return term === 'true';
  if (term === 'nil') return null;
  if (term.startsWith('(')) return pipeline(term.slice(1, -1), scope);
  if (term === '.') return scope.dot;
  if (term.startsWith('.')) return field(term, scope.dot);
  if (term === '$' || term.startsWith('$.')) return field(term.slice(1), scope.root);
  throw new Error(`unsupported template term ${term}`);
}

function command(stage: string[], scope: Scope, piped: unknown[]): unknown {
  const [head, ...rest] = stage;
  if (head === undefined) throw new Error('empty pipeline stage');
  // Go 1.18+: `and` and `or` evaluate their arguments only as far as the result needs.
  if (head === 'and' || head === 'or') {
    const thunks = [...rest.map((t) => () => argument(t, scope)), ...piped.map((v) => () => v)];
    let result: unknown;
    for (const thunk of thunks) {
      result = thunk();
      if (truthy(result) === (head === 'or')) return result;
    }
    return result;
  }
  const args = [...rest.map((t) => argument(t, scope)), ...piped];
  const fn = FUNCTIONS[head];
  if (fn) return fn(...args);
  if (/^[A-Za-z]/.test(head)) throw new Error(`unsupported template function ${head}`);
  const resolved = argument(head, scope);
  if (typeof resolved === 'function') return (resolved as (...a: unknown[]) => unknown)(...args);
  if (args.length > 0) throw new Error(`${head} is not a function; it takes no arguments`);
  return resolved;
}

function pipeline(expression: string, scope: Scope): unknown {
  const stages = terms(expression).reduce<string[][]>((acc, term) => (term === '|' ? [...acc, []] : (acc.at(-1)?.push(term), acc)), [[]]);
  let piped: unknown[] = [];
  for (const stage of stages) piped = [command(stage, scope, piped)];
  return piped[0];
}

function execute(nodes: readonly Node[], scope: Scope): string {
  let out = '';
  for (const node of nodes) {
    if ('text' in node) out += node.text;
    else if ('print' in node) out += stringValue(pipeline(node.print, scope));
    else {
      const value = pipeline(node.expression, scope);
      if (node.control === 'if') out += execute(truthy(value) ? node.then : node.otherwise, scope);
      else if (node.control === 'with') out += truthy(value) ? execute(node.then, { ...scope, dot: value }) : execute(node.otherwise, scope);
      else {
        const items = Array.isArray(value) ? value : isMap(value) ? Object.keys(value).sort().map((k) => value[k]) : value === undefined || value === null ? [] : undefined;
        if (items === undefined) throw new Error(`range can't iterate over a ${kindOf(value)}`);
        if (items.length === 0) out += execute(node.otherwise, scope);
        for (const item of items) out += execute(node.then, { ...scope, dot: item });
      }
    }
  }
  return out;
}

export function renderTemplate(template: string, context: RenderContext): string {
  const root: Record<string, unknown> = {
    Values: context.Values,
    Release: context.Release,
    Chart: context.Chart ?? {},
    Capabilities: { APIVersions: { Has: (v: unknown) => context.apiVersions.includes(String(v)) } },
  };
  return execute(parse(tokenize(template)), { root, dot: root });
}
