// Go's fmt renderings that end up in messages users see: %q for strings and %v for float64.

const namedEscapes: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/** strconv.Quote: printable characters stay, control characters become Go escapes. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const named = namedEscapes[ch];
    const code = ch.codePointAt(0) ?? 0;
    if (named) out += named;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if ((code >= 0x80 && code < 0xa0) || code === 0xfffd) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * fmt's %v of a float64: the shortest digits that round-trip, in exponent form (`1e+06`, `1.5e-05`)
 * when the decimal exponent is below -4 or at least 6, as strconv's shortest 'g' decides.
 */
export function goFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mantissa = '0', expText = '0'] = x.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(x);
}

/** fmt's %v of a decoded JSON value (`map[a:1 b:x]`, `[1 2]`, `<nil>`), as fmt.Fprint prints it. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  const obj = v as Record<string, unknown>;
  return `map[${Object.keys(obj)
    .sort()
    .map((k) => `${k}:${goValue(obj[k])}`)
    .join(' ')}]`;
}

/** fmt's %T of a decoded JSON value. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}
