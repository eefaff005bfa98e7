// resource.Quantity as the real server parses, compares and prints it. Values are kept exactly as
// integer nano-units (the finest scale a Quantity keeps); printing follows Quantity.String():
// binary suffixes stay binary when the value is a whole multiple, decimal ones use the largest
// exponent that is a multiple of three.

import { ownMember } from '../meta/object.ts';

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** The value in units of 10^-9, rounded up as ParseQuantity rounds sub-nano precision. */
  nano: bigint;
  format: QuantityFormat;
}

/** The pattern in the real decoder's error: `quantities must match the regular expression '…'`. */
const QUANTITY_PATTERN = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const quantityFormatError = `quantities must match the regular expression '${QUANTITY_PATTERN}'`;

const NANO = 1_000_000_000n;

const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** Ceiling division for a positive divisor. */
function divCeil(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n ? q + 1n : q;
}

/** Parses a quantity string (or a JSON number, which the decoder also accepts). */
export function parseQuantity(input: unknown): Quantity | undefined {
  const text = typeof input === 'number' && Number.isFinite(input) ? String(input) : input;
  if (typeof text !== 'string') return undefined;
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(text);
  if (!m) return undefined;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = m;
  if (whole.length + fraction.length === 0) return undefined;
  let format: QuantityFormat;
  let exp10 = 0;
  let exp2 = 0;
  const dec = ownMember(decimalSuffixes, suffix);
  const bin = ownMember(binarySuffixes, suffix);
  if (dec !== undefined) {
    format = 'DecimalSI';
    exp10 = dec;
  } else if (bin !== undefined) {
    format = 'BinarySI';
    exp2 = bin;
  } else if (/^[eE][+-]?[0-9]+$/.test(suffix)) {
    format = 'DecimalExponent';
    exp10 = Number(suffix.slice(1));
  } else {
    return undefined;
  }
  // value = digits × 10^(exp10 - fraction.length) × 2^exp2, expressed in nano-units.
  let numerator = BigInt(`${whole}${fraction}` || '0') * 2n ** BigInt(exp2) * NANO;
  let denominator = 1n;
  const scale = exp10 - fraction.length;
  if (scale >= 0) numerator *= pow10(scale);
  else denominator = pow10(-scale);
  const nano = divCeil(numerator, denominator);
  return { nano: sign === '-' ? -nano : nano, format };
}

export function compareQuantity(a: Quantity, b: Quantity): number {
  return a.nano === b.nano ? 0 : a.nano < b.nano ? -1 : 1;
}

export const addQuantity = (a: Quantity, b: Quantity): Quantity => ({ nano: a.nano + b.nano, format: a.format });

/** SetDefaults_ResourceList: values are rounded up to milli precision. */
export function roundUpToMilli(q: Quantity): Quantity {
  const milli = 1_000_000n;
  const magnitude = q.nano < 0n ? -q.nano : q.nano;
  const rounded = divCeil(magnitude, milli) * milli;
  return { nano: q.nano < 0n ? -rounded : rounded, format: q.format };
}

/** The value as whole units when it has no fractional part. */
export function wholeUnits(q: Quantity): bigint | undefined {
  return q.nano % NANO === 0n ? q.nano / NANO : undefined;
}

const decimalSuffixByExponent = new Map(Object.entries(decimalSuffixes).map(([s, e]) => [e, s]));

function formatDecimal(magnitude: bigint, format: QuantityFormat): string {
  // Strip trailing zeros, then lower the exponent to a multiple of three.
  let mantissa = magnitude;
  let exponent = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent += 1;
  }
  const rem = ((exponent % 3) + 3) % 3;
  mantissa *= pow10(rem);
  exponent -= rem;
  if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  const suffix = decimalSuffixByExponent.get(exponent);
  return suffix === undefined ? `${mantissa}e${exponent}` : `${mantissa}${suffix}`;
}

/** Quantity.String(): the canonical form the server stores and returns. */
export function formatQuantity(q: Quantity): string {
  if (q.nano === 0n) return '0';
  const sign = q.nano < 0n ? '-' : '';
  const magnitude = q.nano < 0n ? -q.nano : q.nano;
  const whole = wholeUnits({ nano: magnitude, format: q.format });
  if (q.format === 'BinarySI' && whole !== undefined && whole >= 1024n) {
    let amount = whole;
    let power = 0;
    while (power < 6 && amount % 1024n === 0n) {
      amount /= 1024n;
      power += 1;
    }
    return `${sign}${amount}${['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'][power]}`;
  }
  return sign + formatDecimal(magnitude, q.format === 'BinarySI' ? 'DecimalSI' : q.format);
}
