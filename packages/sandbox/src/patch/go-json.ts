// The syntax errors of Go's encoding/json, which the API server returns verbatim for a malformed
// body (e.g. `invalid character 'o' in literal null (expecting 'u')`). JSON.parse decides whether a
// body is valid; this scanner, a byte-level state machine like Go's, only words the error. Nesting
// is bounded before JSON.parse runs (./json-depth.ts), and the scanner words that refusal too.

import { jsonDepthExcess } from './json-depth.ts';

type Step = (c: number) => Step | string;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Go's quoteChar: the offending byte as a quoted character. */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  return `'${goQuoteRune(c)}'`;
}

/** strconv.Quote of a single rune, without the surrounding quotes. */
function goQuoteRune(r: number): string {
  const escapes: Record<number, string> = { 0x07: '\\a', 0x08: '\\b', 0x0c: '\\f', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x0b: '\\v', 0x5c: '\\\\' };
  const escaped = escapes[r];
  if (escaped) return escaped;
  if (r < 0x20 || r === 0x7f) return `\\x${r.toString(16).padStart(2, '0')}`;
  // A byte >= 0x80 is converted to the rune U+0080..U+00FF; C1 controls and NBSP/soft hyphen are not printable.
  if ((r >= 0x80 && r <= 0xa0) || r === 0xad) return `\\u${r.toString(16).padStart(4, '0')}`;
  return String.fromCharCode(r);
}

const invalid = (c: number, context: string): string => `invalid character ${quoteChar(c)} ${context}`;

/** A body Go's decoder refuses; the message is Go's (`invalid character '}' after array element`). */
export class GoJsonSyntaxError extends Error {
  override readonly name = 'GoJsonSyntaxError';
}

/** JSON.parse of a body that is nested within the bound; throws GoJsonSyntaxError worded as Go words it. */
export function decodeGoJson(body: string | Uint8Array): unknown {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const excess = jsonDepthExcess(bytes);
  if (!excess) {
    try {
      return JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body)) as unknown;
    } catch {
      // worded below
    }
  }
  throw new GoJsonSyntaxError(goJsonSyntaxError(bytes, excess?.limit) ?? 'unexpected end of JSON input');
}

/**
 * Returns Go's error message for `body`, or undefined when it is valid JSON. Arrays and objects
 * nested deeper than `maxDepth` are refused where the first one too many opens, as Go's scanner does.
 */
export function goJsonSyntaxError(body: string | Uint8Array, maxDepth = Infinity): string | undefined {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const stack: ('objectKey' | 'objectValue' | 'arrayValue')[] = [];

  const literal = (rest: string, name: string, done: Step): Step => {
    const expect = (i: number): Step => (c) => {
      const want = rest.charCodeAt(i);
      if (c !== want) return invalid(c, `in literal ${name} (expecting '${rest[i]}')`);
      return i + 1 === rest.length ? done : expect(i + 1);
    };
    return expect(0);
  };

  const endTop: Step = (c) => (isSpace(c) ? endTop : invalid(c, 'after top-level value'));

  const endValue: Step = (c) => {
    const top = stack[stack.length - 1];
    if (top === undefined) return endTop(c);
    if (isSpace(c)) return endValue;
    if (top === 'objectKey') {
      if (c === 0x3a) {
        stack[stack.length - 1] = 'objectValue';
        return beginValue;
      }
      return invalid(c, 'after object key');
    }
    if (top === 'objectValue') {
      if (c === 0x2c) {
        stack[stack.length - 1] = 'objectKey';
        return beginString;
      }
      if (c === 0x7d) {
        stack.pop();
        return endValue;
      }
      return invalid(c, 'after object key:value pair');
    }
    if (c === 0x2c) return beginValue;
    if (c === 0x5d) {
      stack.pop();
      return endValue;
    }
    return invalid(c, 'after array element');
  };

  const inString: Step = (c) => {
    if (c === 0x22) return endValue;
    if (c === 0x5c) return inStringEscape;
    if (c < 0x20) return invalid(c, 'in string literal');
    return inString;
  };
  const unicodeEscape = (remaining: number): Step => (c) => {
    if (!isHex(c)) return invalid(c, 'in \\u hexadecimal character escape');
    return remaining === 1 ? inString : unicodeEscape(remaining - 1);
  };
  const inStringEscape: Step = (c) => {
    if ([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22].includes(c)) return inString;
    if (c === 0x75) return unicodeEscape(4);
    return invalid(c, 'in string escape code');
  };

  const exponentDigits: Step = (c) => (isDigit(c) ? exponentDigits : endValue(c));
  const exponentSign: Step = (c) => (isDigit(c) ? exponentDigits : invalid(c, 'in exponent of numeric literal'));
  const exponent: Step = (c) => (c === 0x2b || c === 0x2d ? exponentSign : exponentSign(c));
  const fractionDigits: Step = (c) => {
    if (isDigit(c)) return fractionDigits;
    if (c === 0x65 || c === 0x45) return exponent;
    return endValue(c);
  };
  const dot: Step = (c) => (isDigit(c) ? fractionDigits : invalid(c, 'after decimal point in numeric literal'));
  const afterZero: Step = (c) => {
    if (c === 0x2e) return dot;
    if (c === 0x65 || c === 0x45) return exponent;
    return endValue(c);
  };
  const integerDigits: Step = (c) => (isDigit(c) ? integerDigits : afterZero(c));
  const negative: Step = (c) => {
    if (c === 0x30) return afterZero;
    if (c >= 0x31 && c <= 0x39) return integerDigits;
    return invalid(c, 'in numeric literal');
  };

  const beginValue: Step = (c) => {
    if (isSpace(c)) return beginValue;
    switch (c) {
      case 0x7b:
        stack.push('objectKey');
        return stack.length > maxDepth ? invalid(c, 'exceeded max depth') : beginStringOrEmpty;
      case 0x5b:
        stack.push('arrayValue');
        return stack.length > maxDepth ? invalid(c, 'exceeded max depth') : beginValueOrEmpty;
      case 0x22:
        return inString;
      case 0x2d:
        return negative;
      case 0x30:
        return afterZero;
      case 0x74:
        return literal('rue', 'true', endValue);
      case 0x66:
        return literal('alse', 'false', endValue);
      case 0x6e:
        return literal('ull', 'null', endValue);
    }
    if (c >= 0x31 && c <= 0x39) return integerDigits;
    return invalid(c, 'looking for beginning of value');
  };
  const beginValueOrEmpty: Step = (c) => {
    if (isSpace(c)) return beginValueOrEmpty;
    if (c === 0x5d) {
      stack.pop();
      return endValue;
    }
    return beginValue(c);
  };
  const beginString: Step = (c) => {
    if (isSpace(c)) return beginString;
    if (c === 0x22) return inString;
    return invalid(c, 'looking for beginning of object key string');
  };
  const beginStringOrEmpty: Step = (c) => {
    if (isSpace(c)) return beginStringOrEmpty;
    if (c === 0x7d) {
      stack.pop();
      return endValue;
    }
    return beginString(c);
  };

  let step: Step = beginValue;
  for (const c of bytes) {
    const next = step(c);
    if (typeof next === 'string') return next;
    step = next;
  }
  // Complete only when the top-level value has ended (a bare number ends at end of input).
  const complete = stack.length === 0 && (step === endTop || step === endValue || step === afterZero || step === integerDigits || step === fractionDigits || step === exponentDigits);
  return complete ? undefined : 'unexpected end of JSON input';
}
