// Go (RE2) regular expressions as CRD patterns write them, run on JavaScript's engine. The common
// syntax is the same; this translates the RE2 spellings JavaScript lacks.

const posixClasses: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** Compiles a Go regular expression; throws with the engine's message when it is not valid. */
export function compileGoRegexp(pattern: string): RegExp {
  let source = pattern;
  let flags = '';
  const leading = /^\(\?([imsU]+)\)/.exec(source);
  if (leading?.[1]) {
    flags = [...new Set(leading[1].replace('U', ''))].join('');
    source = source.slice(leading[0].length);
  }
  source = source
    .replace(/\[:(\w+):\]/g, (whole, name: string) => posixClasses[name] ?? whole)
    .replace(/\(\?P</g, '(?<')
    .replace(/(^|[^\\])((?:\\\\)*)\\A/g, '$1$2^')
    .replace(/(^|[^\\])((?:\\\\)*)\\z/g, '$1$2$');
  if (/\\[pP]/.test(source)) flags += 'u';
  return new RegExp(source, flags);
}
