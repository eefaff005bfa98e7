// Go (RE2) regular expressions as CRD patterns write them, run on JavaScript's engine. The common
// syntax is the same; this translates the RE2 spellings JavaScript lacks.

import { ownMember } from '../meta/object.ts';

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
    .replace(/\[:(\w+):\]/g, (whole: string, name: string, at: number, text: string) => {
      if (!insideBracket(text, at)) return whole;
      const members = ownMember(posixClasses, name);
      // RE2 knows only its own class names, and refuses the pattern otherwise.
      if (members === undefined) throw new Error(`error parsing regexp: invalid character class range: \`${whole}\``);
      return members;
    })
    .replace(/\(\?P</g, '(?<')
    .replace(/(^|[^\\])((?:\\\\)*)\\A/g, '$1$2^')
    .replace(/(^|[^\\])((?:\\\\)*)\\z/g, '$1$2$');
  if (/\\[pP]/.test(source)) flags += 'u';
  return new RegExp(source, flags);
}

/** Whether `at` is inside a bracket expression `[...]` of the pattern (where `[:name:]` is a class name). */
function insideBracket(pattern: string, at: number): boolean {
  let inside = false;
  for (let i = 0; i < at; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (!inside && c === '[') {
      inside = true;
      // `]` first in a bracket (after an optional `^`) is a member, not its end.
      if (pattern[i + 1] === '^') i++;
      if (pattern[i + 1] === ']') i++;
    } else if (inside && c === '[' && pattern[i + 1] === ':') {
      const end = pattern.indexOf(':]', i + 2);
      if (end > 0 && end < at) i = end + 1;
    } else if (inside && c === ']') inside = false;
  }
  return inside;
}
