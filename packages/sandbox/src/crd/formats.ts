// The string formats a real apiextensions server checks in custom resources (kube-openapi's
// default registry, restricted to the formats CRDs support). Names are compared without dashes,
// so `date-time` and `datetime` are the same format.

import { isIP } from 'node:net';
import { ownMember } from '../meta/object.ts';

const uuidPattern = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid3Pattern = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid4Pattern = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const uuid5Pattern = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const hostnamePattern =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z0-9\p{S}\p{L}])(-?[a-zA-Z0-9\p{S}\p{L}]){1,62})$/u;
const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const hexColorPattern = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const rgbByte = '\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*';
const rgbColorPattern = new RegExp(`^rgb\\(${rgbByte},${rgbByte},${rgbByte}\\)$`);
const ssnPattern = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const fullDatePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const timeOfDayPattern = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const goDurationPattern = /^[-+]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)(((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))*)$/;
const unitDurationPattern =
  /^(\d+)\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|sec|min|hr)$/;
const macPattern = /^([0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\2[0-9a-fA-F]{2}){4}(\2[0-9a-fA-F]{2}){0,14}|[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4}){0,8})$/;
const creditCardPattern =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;

const checkers: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestUri,
  email: isEmail,
  hostname: (s) => hostnamePattern.test(s) && s.length <= 255 && s.split('.').every((p) => p.length <= 63),
  ipv4: (s) => isIP(s) === 4,
  ipv6: (s) => isIP(s) === 6,
  cidr: isCidr,
  mac: (s) => macPattern.test(s),
  uuid: (s) => uuidPattern.test(s),
  uuid3: (s) => uuid3Pattern.test(s),
  uuid4: (s) => uuid4Pattern.test(s),
  uuid5: (s) => uuid5Pattern.test(s),
  isbn: (s) => isIsbn10(s) || isIsbn13(s),
  isbn10: isIsbn10,
  isbn13: isIsbn13,
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && ssnPattern.test(s),
  hexcolor: (s) => hexColorPattern.test(s),
  rgbcolor: (s) => rgbColorPattern.test(s),
  byte: (s) => base64Pattern.test(s),
  password: () => true,
  date: isFullDate,
  duration: (s) => goDurationPattern.test(s) || s === '0' || unitDurationPattern.test(s),
  datetime: isDateTime,
};

const normalize = (format: string): string => format.replaceAll('-', '');

export function isSupportedStringFormat(format: string): boolean {
  return normalize(format) in checkers;
}

/** Whether `value` is valid for a supported format; unsupported formats accept everything. */
export function matchesFormat(format: string, value: string): boolean {
  const check = ownMember(checkers, normalize(format));
  return check ? check(value) : true;
}

function isFullDate(s: string): boolean {
  const m = fullDatePattern.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isFullDate(parts[0] ?? '')) return false;
  const m = timeOfDayPattern.exec(parts[1] ?? '');
  return !!m && (m[1] ?? '') <= '23' && (m[2] ?? '') <= '59' && (m[3] ?? '') <= '59';
}

function isRequestUri(s: string): boolean {
  if (s.startsWith('/')) return !/\s/.test(s);
  try {
    return new URL(s).protocol.length > 1;
  } catch {
    return false;
  }
}

function isEmail(s: string): boolean {
  const angle = /<([^<>]+)>\s*$/.exec(s);
  const address = angle?.[1] ?? s.trim();
  return /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/.test(address);
}

function isCidr(s: string): boolean {
  const slash = s.lastIndexOf('/');
  if (slash < 0) return false;
  const version = isIP(s.slice(0, slash));
  const bits = s.slice(slash + 1);
  return version !== 0 && /^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}

function isIsbn10(s: string): boolean {
  const digits = s.replace(/[\s-]/g, '');
  if (!/^\d{9}[\dX]$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (i + 1) * (digits[i] === 'X' ? 10 : Number(digits[i]));
  return sum % 11 === 0;
}

function isIsbn13(s: string): boolean {
  const digits = s.replace(/[\s-]/g, '');
  if (!/^\d{13}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(digits[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(digits[12]);
}

function isCreditCard(s: string): boolean {
  const digits = s.replace(/[^0-9]/g, '');
  if (!creditCardPattern.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = Number(digits[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}
