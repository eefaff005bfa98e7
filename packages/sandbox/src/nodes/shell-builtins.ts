// What a container shell's `echo` and `printf` print, as busybox's and bash's builtins print it: echo
// joins its arguments with spaces and ends with a newline (`-n` leaves it out, `-e` reads backslash
// escapes, `-E` does not), printf fills its format with the arguments (again and again while some
// are left) and prints no newline of its own.

export interface BuiltinResult {
  text: string;
  status: number;
}

const simpleEscapes: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/**
 * Backslash escapes of `echo -e`, printf's format and `%b`. `\c` ends all output; `octalAfterZero`:
 * echo and `%b` write octal as `\0NNN`, the format as `\NNN`.
 */
function unescape(text: string, octalAfterZero: boolean, quotes: boolean): { text: string; stop: boolean } {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c !== '\\' || i + 1 >= text.length) {
      out += c;
      continue;
    }
    const next = text[i + 1] as string;
    if (next === 'c') return { text: out, stop: true };
    if (next in simpleEscapes) {
      out += simpleEscapes[next];
      i++;
    } else if (quotes && (next === '"' || next === "'")) {
      out += next;
      i++;
    } else if (next === 'x' && /[0-9A-Fa-f]/.test(text[i + 2] ?? '')) {
      const hex = /^[0-9A-Fa-f]{1,2}/.exec(text.slice(i + 2))?.[0] ?? '';
      out += String.fromCharCode(parseInt(hex, 16));
      i += 1 + hex.length;
    } else if (/[0-7]/.test(next) && (!octalAfterZero || next === '0')) {
      const start = octalAfterZero ? i + 2 : i + 1;
      const digits = /^[0-7]{0,3}/.exec(text.slice(start))?.[0] ?? '';
      out += String.fromCharCode(parseInt(digits || '0', 8) & 0xff);
      i = start + digits.length - 1;
    } else out += c;
  }
  return { text: out, stop: false };
}

export function echo(args: readonly string[]): BuiltinResult {
  let newline = true;
  let escapes = false;
  let first = 0;
  for (; first < args.length && /^-[neE]+$/.test(args[first] as string); first++) {
    for (const flag of (args[first] as string).slice(1)) {
      if (flag === 'n') newline = false;
      else escapes = flag === 'e';
    }
  }
  const joined = args.slice(first).join(' ');
  if (!escapes) return { text: newline ? `${joined}\n` : joined, status: 0 };
  const { text, stop } = unescape(joined, true, false);
  return { text: newline && !stop ? `${text}\n` : text, status: 0 };
}

/** printf's number argument: decimal, 0x hex, 0 octal, or a quote and a character; undefined when invalid. */
function numberArg(arg: string): number | undefined {
  const trimmed = arg.trim();
  if (trimmed === '') return 0;
  if (/^['"]/.test(trimmed)) return trimmed.codePointAt(1) ?? 0;
  const match = /^([+-]?)(0[xX][0-9A-Fa-f]+|0[0-7]*|[1-9][0-9]*)$/.exec(trimmed);
  if (!match) {
    const float = Number(trimmed);
    return Number.isFinite(float) && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed) ? float : undefined;
  }
  const digits = match[2] as string;
  const value = /^0[xX]/.test(digits) ? parseInt(digits, 16) : digits.length > 1 && digits.startsWith('0') ? parseInt(digits, 8) : parseInt(digits, 10);
  return match[1] === '-' ? -value : value;
}

interface Spec {
  flags: string;
  width: number | undefined;
  precision: number | undefined;
  conversion: string;
}

/** Pads to the width; `zeros`: the `0` flag applies (numbers, but not integers given a precision). */
function pad(text: string, spec: Spec, zeros: boolean): string {
  const width = spec.width ?? 0;
  if (text.length >= width) return text;
  if (spec.flags.includes('-')) return text.padEnd(width);
  if (zeros && spec.flags.includes('0')) {
    const sign = /^[+ -]/.test(text) ? (text[0] as string) : '';
    return sign + text.slice(sign.length).padStart(width - sign.length, '0');
  }
  return text.padStart(width);
}

function signed(value: number, text: string, flags: string): string {
  if (value < 0 || Object.is(value, -0)) return text;
  if (flags.includes('+')) return `+${text}`;
  return flags.includes(' ') ? ` ${text}` : text;
}

/** One conversion; `invalid` is set when a number argument did not parse (printf then exits 1). */
function convert(spec: Spec, arg: string | undefined, state: { invalid: boolean; stop: boolean }): string {
  const value = arg ?? '';
  switch (spec.conversion) {
    case 's':
      return pad(spec.precision === undefined ? value : value.slice(0, spec.precision), spec, false);
    case 'b': {
      const { text, stop } = unescape(value, true, false);
      if (stop) state.stop = true;
      return pad(text, spec, false);
    }
    case 'c':
      return pad(value.slice(0, 1), spec, false);
  }
  let n = numberArg(value);
  if (n === undefined) {
    state.invalid = true;
    n = 0;
  }
  switch (spec.conversion) {
    case 'd':
    case 'i': {
      const int = Math.trunc(n);
      const digits = Math.abs(int).toString().padStart(spec.precision ?? 0, '0');
      return pad(signed(int, int < 0 ? `-${digits}` : digits, spec.flags), spec, spec.precision === undefined);
    }
    case 'u':
    case 'o':
    case 'x':
    case 'X': {
      const int = BigInt.asUintN(64, BigInt(Math.trunc(n)));
      let digits = int.toString({ u: 10, o: 8, x: 16, X: 16 }[spec.conversion]);
      if (spec.conversion === 'X') digits = digits.toUpperCase();
      digits = digits.padStart(spec.precision ?? 0, '0');
      if (spec.flags.includes('#') && int !== 0n) digits = { u: '', o: '0', x: '0x', X: '0X' }[spec.conversion] + digits;
      return pad(digits, spec, spec.precision === undefined);
    }
    default: {
      const precision = spec.precision ?? 6;
      const lower = spec.conversion.toLowerCase();
      let text =
        lower === 'e'
          ? Math.abs(n).toExponential(precision).replace(/e([+-])(\d)$/, 'e$10$2')
          : lower === 'g'
            ? String(Number(Math.abs(n).toPrecision(precision || 1)))
            : Math.abs(n).toFixed(precision);
      if (spec.conversion !== lower) text = text.toUpperCase();
      return pad(signed(n, n < 0 ? `-${text}` : text, spec.flags), spec, true);
    }
  }
}

const specPattern = /%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?([diouxXfFeEgGsbc%])/y;

export function printf(args: readonly string[]): BuiltinResult {
  const [format, ...rest] = args;
  if (format === undefined) return { text: '', status: 2 };
  const state = { invalid: false, stop: false };
  let out = '';
  let next = 0;
  const take = (): string | undefined => (next < rest.length ? rest[next++] : undefined);
  do {
    const consumedBefore = next;
    for (let i = 0; i < format.length && !state.stop; ) {
      const c = format[i] as string;
      if (c === '\\') {
        const end = /^\\(?:[0-7]{1,3}|x[0-9A-Fa-f]{1,2}|.)/s.exec(format.slice(i))?.[0] ?? '\\';
        const { text, stop } = unescape(end, false, true);
        out += text;
        if (stop) state.stop = true;
        i += end.length;
        continue;
      }
      if (c !== '%') {
        out += c;
        i++;
        continue;
      }
      specPattern.lastIndex = i;
      const match = specPattern.exec(format);
      if (!match) {
        out += c;
        i++;
        continue;
      }
      i = specPattern.lastIndex;
      if (match[4] === '%') {
        out += '%';
        continue;
      }
      // `*` takes the width or precision from the arguments; `%.f` has precision 0.
      const amount = (field: string | undefined): number | undefined => {
        if (field === undefined) return undefined;
        return field === '*' ? Math.trunc(numberArg(take() ?? '') ?? 0) : Number(field || 0);
      };
      const width = amount(match[2]);
      const precision = amount(match[3]);
      const flags = (match[1] ?? '') + (width !== undefined && width < 0 ? '-' : '');
      out += convert({ flags, width: width === undefined ? undefined : Math.abs(width), precision, conversion: match[4] as string }, take(), state);
    }
    if (next === consumedBefore) break;
  } while (next < rest.length && !state.stop);
  return { text: out, status: state.invalid ? 1 : 0 };
}
