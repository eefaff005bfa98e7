// IP and CIDR checks with the messages of apimachinery's util/validation/ip.go (v1.32), parsing as
// Go's net.ParseIP does in its "sloppy" mode (IPv4 octets may carry leading zeros).

import { fieldInvalid, type FieldError } from '../errors.ts';

export interface ParsedIP {
  /** 4 for dotted-quad addresses, 6 for everything else (including IPv4-mapped IPv6). */
  family: 4 | 6;
  /** Sixteen bytes, IPv4 addresses in their IPv4-mapped form. */
  bytes: number[];
}

function parseIPv4Bytes(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^[0-9]{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return bytes;
}

function parseIPv6Bytes(s: string): number[] | undefined {
  let head = s;
  let tail4: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4Bytes(s.slice(lastColon + 1));
    if (!v4) return undefined;
    tail4 = v4;
    head = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (text: string): number[] | undefined => {
    if (text === '') return [];
    const out: number[] = [];
    for (const g of text.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const left = groups(halves[0] ?? '');
  const right = halves.length === 2 ? groups(halves[1] ?? '') : [];
  if (!left || !right) return undefined;
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const words = [...left, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...right];
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail4.length === 4) bytes.splice(12, 4, ...tail4);
  return bytes;
}

export function parseIP(s: string): ParsedIP | undefined {
  if (s.includes(':')) {
    const bytes = parseIPv6Bytes(s);
    return bytes ? { family: 6, bytes } : undefined;
  }
  const v4 = parseIPv4Bytes(s);
  return v4 ? { family: 4, bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4] } : undefined;
}

/** Whether the address is IPv4 (dotted quad, or IPv4-mapped IPv6 which Go treats as IPv4 too). */
function isIPv4Bytes(bytes: number[]): boolean {
  return bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
}

export function isValidIP(path: string, value: string): FieldError[] {
  return parseIP(value) ? [] : [fieldInvalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

export function isValidIPv4Address(path: string, value: string): FieldError[] {
  const ip = parseIP(value);
  return ip && isIPv4Bytes(ip.bytes) ? [] : [fieldInvalid(path, value, 'must be a valid IPv4 address')];
}

export function isValidIPv6Address(path: string, value: string): FieldError[] {
  const ip = parseIP(value);
  return ip && !isIPv4Bytes(ip.bytes) ? [] : [fieldInvalid(path, value, 'must be a valid IPv6 address')];
}

export function isIPv6String(value: string): boolean {
  const ip = parseIP(value);
  return ip !== undefined && !isIPv4Bytes(ip.bytes);
}

export function isValidCIDR(path: string, value: string): FieldError[] {
  const slash = value.indexOf('/');
  const ip = slash > 0 ? parseIP(value.slice(0, slash)) : undefined;
  const bits = slash > 0 ? value.slice(slash + 1) : '';
  const maxBits = ip && ip.family === 4 ? 32 : 128;
  const ok = ip !== undefined && /^[0-9]{1,3}$/.test(bits) && Number(bits) <= maxBits;
  return ok ? [] : [fieldInvalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
}

/**
 * Endpoints, EndpointSlices and externalIPs may not point at unspecified, loopback or link-local
 * addresses (ValidateNonSpecialIP).
 */
export function validateNonSpecialIP(path: string, value: string): FieldError[] {
  const ip = parseIP(value);
  if (!ip) return [fieldInvalid(path, value, 'must be a valid IP address')];
  const b = ip.bytes;
  const v4 = isIPv4Bytes(b);
  const errs: FieldError[] = [];
  const unspecified = v4 ? b.slice(12).every((x) => x === 0) : b.every((x) => x === 0);
  const loopback = v4 ? b[12] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
  const linkLocalUnicast = v4 ? b[12] === 169 && b[13] === 254 : b[0] === 0xfe && ((b[1] ?? 0) & 0xc0) === 0x80;
  const linkLocalMulticast = v4 ? b[12] === 224 && b[13] === 0 && b[14] === 0 : b[0] === 0xff && ((b[1] ?? 0) & 0x0f) === 0x02;
  if (unspecified) errs.push(fieldInvalid(path, value, `may not be unspecified (${value})`));
  if (loopback) errs.push(fieldInvalid(path, value, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (linkLocalUnicast) errs.push(fieldInvalid(path, value, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (linkLocalMulticast) errs.push(fieldInvalid(path, value, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  return errs;
}
