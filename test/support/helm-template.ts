// The part of Helm's template language the chart uses, for tests that render it (helm itself cannot be
// installed here): `{{ .Values.a.b }}`, `{{ .Release.Namespace }}`, `if`/`range`/`end` with `and`,
// `.Capabilities.APIVersions.Has "group/version/Kind"`, the `quote` function, and `{{-`/`-}}` trimming.
// Anything else is an error, so a chart that grows past this subset fails its test instead of rendering wrong.

export interface RenderContext {
  Values: Record<string, unknown>;
  Release: { Namespace: string; Name?: string };
  /** The `group/version/Kind` the cluster serves, for `.Capabilities.APIVersions.Has`. */
  apiVersions: readonly string[];
}

type Token = { text: string } | { action: string };

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
    if (action.startsWith('-')) {
      text = text.replace(/\s+$/, '');
      action = action.slice(1);
    }
    let after = rest.slice(close + 2);
    if (action.endsWith('-')) {
      action = action.slice(0, -1);
      after = after.replace(/^\s+/, '');
    }
    tokens.push({ text }, { action: action.trim() });
    rest = after;
  }
  tokens.push({ text: rest });
  return tokens;
}

const truthy = (value: unknown): boolean =>
  !(value === undefined || value === null || value === false || value === 0 || value === '' || (Array.isArray(value) && value.length === 0) || (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0));

/** Splits an expression into terms: strings, parenthesised groups, `|`, and words. */
function terms(expression: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < expression.length) {
    const c = expression[i] as string;
    if (c === ' ') i++;
    else if (c === '"') {
      const end = expression.indexOf('"', i + 1);
      out.push(expression.slice(i, end + 1));
      i = end + 1;
    } else if (c === '(') {
      let depth = 0;
      let j = i;
      for (; j < expression.length; j++) {
        if (expression[j] === '(') depth++;
        if (expression[j] === ')' && --depth === 0) break;
      }
      out.push(expression.slice(i, j + 1));
      i = j + 1;
    } else {
      let j = i;
      while (j < expression.length && expression[j] !== ' ') j++;
      out.push(expression.slice(i, j));
      i = j;
    }
  }
  return out;
}

function evaluate(expression: string, context: RenderContext, dot: unknown): unknown {
  const stages = terms(expression).reduce<string[][]>((acc, term) => (term === '|' ? [...acc, []] : (acc.at(-1)?.push(term), acc)), [[]]);
  let piped: unknown[] = [];
  for (const stage of stages) piped = [command(stage, context, dot, piped)];
  return piped[0];
}

function value(term: string, context: RenderContext, dot: unknown): unknown {
  if (term.startsWith('"')) return JSON.parse(term);
  if (term.startsWith('(')) return evaluate(term.slice(1, -1), context, dot);
  if (term === '.') return dot;
  if (term.startsWith('.')) {
    const root: Record<string, unknown> = { Values: context.Values, Release: context.Release, Capabilities: { APIVersions: { Has: (v: string) => context.apiVersions.includes(v) } } };
    return term.slice(1).split('.').reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], root);
  }
  throw new Error(`unsupported template term ${term}`);
}

function command(stage: string[], context: RenderContext, dot: unknown, piped: unknown[]): unknown {
  const [head, ...rest] = stage;
  if (head === undefined) throw new Error('empty pipeline stage');
  const args = [...rest.map((t) => value(t, context, dot)), ...piped];
  if (head === 'and') return args.reduce((all, next) => (truthy(all) ? next : all));
  if (head === 'quote') return JSON.stringify(String(args[0] ?? ''));
  const resolved = value(head, context, dot);
  return typeof resolved === 'function' ? (resolved as (...a: unknown[]) => unknown)(...args) : resolved;
}

export function renderTemplate(template: string, context: RenderContext): string {
  const tokens = tokenize(template);
  let position = 0;
  const block = (dot: unknown, emit: boolean): string => {
    let out = '';
    while (position < tokens.length) {
      const token = tokens[position++] as Token;
      if ('text' in token) {
        if (emit) out += token.text;
        continue;
      }
      const [keyword, ...rest] = token.action.split(' ');
      const expression = rest.join(' ');
      if (keyword === 'end') return out;
      if (keyword === 'if') {
        const body = block(dot, emit && truthy(evaluate(expression, context, dot)));
        out += body;
      } else if (keyword === 'range') {
        const items = emit ? evaluate(expression, context, dot) : [];
        const start = position;
        if (!Array.isArray(items) || items.length === 0) block(dot, false);
        for (const item of Array.isArray(items) ? items : []) {
          position = start;
          out += block(item, true);
        }
      } else if (emit) {
        out += String(evaluate(token.action, context, dot) ?? '');
      }
    }
    return out;
  };
  return block(undefined, true);
}
