// go-spew's `%#v` rendering (ConfigState{SortKeys, DisableMethods}) of a Go value decoded from the
// API's JSON, as hashutil.DeepHashObject feeds it to a hash: `(type)value` for every field, `<nil>` for
// nil pointers, slices and maps, raw strings, sorted map keys, no types inside slices and maps. The Go
// layout comes from a generated type table. Values decode as kube-controller-manager's protobuf
// informers decode them: empty lists and maps are nil, timestamps in a template are zero, quantities
// are parsed with resource.ParseQuantity, int-or-strings become intstr.IntOrString.

import { isJsonObject, ownMember } from '../../meta/object.ts';
import type { GoType } from './pod-template-go-types.ts';

/** A value already in Go form: struct fields keyed by their Go names. */
class GoStruct {
  readonly fields: Record<string, unknown>;
  constructor(fields: Record<string, unknown>) {
    this.fields = fields;
  }
}

const decimalSuffixes: Record<string, number> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/**
 * resource.ParseQuantity on the int64 fast path (every canonical quantity the API stores): the scaled
 * integer, and the string kept only when it is already canonical.
 */
function parseQuantity(text: string): GoStruct {
  const quantity = (value: bigint, scale: number, format: string, s: string): GoStruct =>
    new GoStruct({ i: new GoStruct({ value, scale }), d: new GoStruct({ Dec: null }), s, Format: format });
  if (text === '0') return quantity(0n, 0, 'DecimalSI', text);
  const match = /^([+-]?)0*(\d*)(?:\.(\d*))?(.*)$/.exec(text);
  if (!match) throw new Error(`quantities must match the regular expression: ${text}`);
  const [, sign = '', digits = '', denom = '', suffix = ''] = match;
  const num = digits === '' ? '0' : digits;
  let format: string;
  let exponent: number;
  const decimal = ownMember(decimalSuffixes, suffix);
  const binary = ownMember(binarySuffixes, suffix);
  if (decimal !== undefined) [format, exponent] = ['DecimalSI', decimal];
  else if (binary !== undefined) [format, exponent] = ['BinarySI', binary];
  else if (/^[eE][+-]?\d+$/.test(suffix)) [format, exponent] = ['DecimalExponent', Number(suffix.slice(1))];
  else throw new Error(`unable to parse quantity's suffix: ${text}`);
  let scale = 0;
  let mantissa = 1n;
  let precision: number;
  if (format === 'BinarySI') {
    if (denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc(Math.fround((Math.fround(exponent) * 3) / 10)) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= -9) {
      const shifted = num + denom;
      const value = BigInt(shifted);
      const result = value * mantissa;
      if (result < 2n ** 63n) {
        const signed = sign === '-' ? -result : result;
        const canonical =
          format === 'BinarySI' ? exponent % 10 === 0 && (value & 7n) !== 0n : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return quantity(signed, scale, format, canonical ? text : '');
      }
    }
  }
  return bigQuantity(sign === '-', BigInt(num + denom), format === 'BinarySI' ? denom.length : denom.length - exponent, format === 'BinarySI' ? exponent : 0, format);
}

const maxInt64 = 2n ** 63n - 1n;

/**
 * ParseQuantity's inf.Dec path: the value rounded up to nano precision (scale 9), binary quantities
 * capped at MaxInt64 (and below 1 turned decimal); a big.Int is its sign and its 64-bit words.
 */
function bigQuantity(negative: boolean, digits: bigint, scale: number, binaryExponent: number, format: string): GoStruct {
  let unscaled = digits << BigInt(binaryExponent);
  let decScale = scale;
  if (unscaled !== 0n) {
    if (decScale <= 9) unscaled *= 10n ** BigInt(9 - decScale);
    else {
      const divisor = 10n ** BigInt(decScale - 9);
      unscaled = (unscaled + divisor - 1n) / divisor;
    }
    decScale = 9;
  }
  let finalFormat = format;
  if (format === 'BinarySI') {
    if (unscaled > maxInt64 * 10n ** BigInt(decScale)) [unscaled, decScale] = [maxInt64, 0];
    else if (unscaled > 0n && unscaled < 10n ** BigInt(decScale)) finalFormat = 'DecimalSI';
  }
  const words: bigint[] = [];
  for (let rest = unscaled; rest > 0n; rest >>= 64n) words.push(rest & (2n ** 64n - 1n));
  const dec = new GoStruct({ unscaled: new GoStruct({ neg: negative && unscaled !== 0n, abs: words }), scale: decScale });
  return new GoStruct({ i: new GoStruct({ value: 0n, scale: 0 }), d: new GoStruct({ Dec: dec }), s: '', Format: finalFormat });
}

/** The Go form of values with their own JSON decoding. */
const decoders: Record<string, (json: unknown) => GoStruct> = {
  'resource.Quantity': (json) => parseQuantity(typeof json === 'number' ? String(json) : typeof json === 'string' ? json.trim() : '0'),
  'intstr.IntOrString': (json) =>
    typeof json === 'string' ? new GoStruct({ Type: 1, IntVal: 0, StrVal: json }) : new GoStruct({ Type: 0, IntVal: typeof json === 'number' ? json : 0, StrVal: '' }),
  // A template's timestamps (creationTimestamp is always null there) decode to the zero time.
  'v1.Time': () => new GoStruct({}),
};

const isEmpty = (value: unknown): boolean =>
  value === undefined || value === null || (Array.isArray(value) && value.length === 0) || (isJsonObject(value) && Object.keys(value).length === 0);

export class GoSpew {
  readonly #types: Record<string, GoType>;

  constructor(types: Record<string, GoType>) {
    this.#types = types;
  }

  /** The `%#v` rendering of `json` decoded into the Go type `typeName`. */
  render(typeName: string, json: unknown): string {
    return this.#format(typeName, json, false);
  }

  #format(typeName: string, value: unknown, omitType: boolean): string {
    const type = this.#types[typeName];
    if (!type) throw new Error(`unknown Go type ${typeName}`);
    const prefix = omitType ? '' : `(${typeName})`;
    switch (type.kind) {
      case 'ptr':
        if (value === undefined || value === null) return `${prefix}<nil>`;
        return `${omitType ? '<*>' : prefix}${this.#format(type.elem ?? '', value, true)}`;
      case 'slice':
        if (isEmpty(value) || !Array.isArray(value)) return `${prefix}<nil>`;
        return `${prefix}[${value.map((v) => this.#format(type.elem ?? '', v, true)).join(' ')}]`;
      case 'map': {
        if (isEmpty(value) || !isJsonObject(value)) return `${prefix}<nil>`;
        const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        return `${prefix}map[${keys.map((k) => `${this.#format(type.key ?? '', k, true)}:${this.#format(type.elem ?? '', value[k], true)}`).join(' ')}]`;
      }
      case 'struct':
        return `${prefix}{${this.#structFields(typeName, type, value)}}`;
      case 'string':
        return `${prefix}${typeof value === 'string' ? value : ''}`;
      case 'bool':
        return `${prefix}${value === true}`;
      case 'int':
      case 'uint':
        return `${prefix}${typeof value === 'number' || typeof value === 'bigint' ? String(value) : '0'}`;
      default:
        throw new Error(`Go type ${typeName} of kind ${type.kind} is not rendered`);
    }
  }

  #structFields(typeName: string, type: GoType, json: unknown): string {
    const decode = ownMember(decoders, typeName);
    const value = decode && !(json instanceof GoStruct) ? decode(json) : json;
    return (type.fields ?? [])
      .map(([name, fieldType, tag]) => {
        let fieldValue: unknown;
        if (value instanceof GoStruct) fieldValue = value.fields[name];
        else if (isJsonObject(value)) {
          const jsonName = tag.split(',')[0] ?? '';
          if (tag.startsWith(',inline')) fieldValue = value;
          else if (jsonName && jsonName !== '-') fieldValue = value[jsonName];
        }
        return `${name}:${this.#format(fieldType, fieldValue, false)}`;
      })
      .join(' ');
  }
}
