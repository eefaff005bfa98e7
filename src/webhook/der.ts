// The few pieces of ASN.1 DER (ITU-T X.690) an X.509 certificate is made of, for certificates.ts: writing
// them, and reading a certificate's TBSCertificate far enough to copy its subject as an issuer.

type Bytes = Uint8Array;

const length = (n: number): Bytes => {
  if (n < 0x80) return Uint8Array.of(n);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
};

/** A tag-length-value of `tag` around the concatenated contents. */
export const tlv = (tag: number, ...contents: Bytes[]): Bytes => {
  const body = Buffer.concat(contents);
  return Buffer.concat([Uint8Array.of(tag), length(body.length), body]);
};

export const sequence = (...items: Bytes[]): Bytes => tlv(0x30, ...items);
export const set = (...items: Bytes[]): Bytes => tlv(0x31, ...items);
export const boolean = (value: boolean): Bytes => tlv(0x01, Uint8Array.of(value ? 0xff : 0x00));
export const octetString = (bytes: Bytes): Bytes => tlv(0x04, bytes);
export const utf8String = (text: string): Bytes => tlv(0x0c, Buffer.from(text, 'utf8'));
/** A context-specific tag: `[n] EXPLICIT` wraps an encoding, `[n] IMPLICIT` replaces a primitive's tag. */
export const explicit = (n: number, inner: Bytes): Bytes => tlv(0xa0 | n, inner);
export const implicit = (n: number, contents: Bytes): Bytes => tlv(0x80 | n, contents);

/** A non-negative INTEGER from its big-endian magnitude (a leading zero keeps it positive). */
export const unsignedInteger = (magnitude: Bytes): Bytes => {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  return tlv(0x02, (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Uint8Array.of(0), trimmed]) : trimmed);
};

export const smallInteger = (n: number): Bytes => unsignedInteger(Uint8Array.of(n));

export const objectIdentifier = (dotted: string): Bytes => {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes: number[] = [first * 40 + second];
  for (const arc of rest) {
    const base128: number[] = [];
    for (let v = arc; ; v = Math.floor(v / 128)) {
      base128.unshift((v % 128) | (base128.length > 0 ? 0x80 : 0));
      if (v < 128) break;
    }
    bytes.push(...base128);
  }
  return tlv(0x06, Uint8Array.from(bytes));
};

/** A BIT STRING of whole bytes (a key, a signature). */
export const bitString = (bytes: Bytes): Bytes => tlv(0x03, Uint8Array.of(0), bytes);

/** A named-bit BIT STRING (KeyUsage): bit 0 is the most significant bit; trailing zero bits are dropped, as DER requires. */
export const namedBits = (bits: readonly number[]): Bytes => {
  const highest = Math.max(...bits);
  const bytes = new Uint8Array(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[bit >> 3]! |= 0x80 >> (bit & 7);
  return tlv(0x03, Uint8Array.of(7 - (highest & 7)), bytes);
};

/** UTCTime through 2049, GeneralizedTime after (RFC 5280, 4.1.2.5), to the second. */
export const time = (date: Date): Bytes => {
  const iso = date.toISOString();
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '');
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${digits.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${digits}Z`));
};

interface Element {
  tag: number;
  /** The whole encoding, header included. */
  encoded: Bytes;
  contents: Bytes;
}

function readElement(bytes: Bytes, offset: number): Element {
  const tag = bytes[offset];
  let size = bytes[offset + 1];
  if (tag === undefined || size === undefined) throw new Error('truncated DER');
  let header = 2;
  if (size & 0x80) {
    const count = size & 0x7f;
    size = 0;
    for (let i = 0; i < count; i++) size = size * 256 + (bytes[offset + 2 + i] ?? 0);
    header += count;
  }
  if (offset + header + size > bytes.length) throw new Error('truncated DER');
  return { tag, encoded: bytes.subarray(offset, offset + header + size), contents: bytes.subarray(offset + header, offset + header + size) };
}

function children(element: Element): Element[] {
  const out: Element[] = [];
  for (let offset = 0; offset < element.contents.length; ) {
    const child = readElement(element.contents, offset);
    out.push(child);
    offset += child.encoded.length;
  }
  return out;
}

/** The subject Name of a DER certificate, byte for byte, to be the issuer of the certificates it signs. */
export function certificateSubject(der: Bytes): Bytes {
  const [tbs] = children(readElement(der, 0));
  if (!tbs) throw new Error('not a certificate');
  const fields = children(tbs);
  // version [0] is optional; then serialNumber, signature, issuer, validity, subject.
  const subject = fields[(fields[0]?.tag === 0xa0 ? 1 : 0) + 4];
  if (!subject) throw new Error('not a certificate');
  return subject.encoded;
}
