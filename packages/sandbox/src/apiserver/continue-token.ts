// Continue tokens of paginated lists: unpadded base64url of
// `{"v":"meta.k8s.io/v1","rv":N,"start":"<key>\u0000"}`, as the real server issues them, and decoded with
// its checks and messages (apimachinery's storage.DecodeContinue: base64, then encoding/json into a struct).

import { badRequestStatus, StatusError } from '../errors.ts';
import { isJsonObject } from '../meta/object.ts';
import { jsonKindName } from '../patch/go-format.ts';
import { goJsonSyntaxError } from '../patch/go-json.ts';

export interface ContinuePosition {
  /** The resourceVersion of the first page; -1 after the snapshot expired (inconsistent continuation). */
  rv: number;
  /** The key after which the next page starts. */
  after: string;
}

export function encodeContinue(rv: number, lastKey: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `/${lastKey}\u0000` })).toString('base64url');
}

const invalid = (why: string): StatusError => new StatusError(badRequestStatus(`invalid continue token: continue key is not valid${why}`));

const base64url = /[A-Za-z0-9_-]/;

/**
 * base64.RawURLEncoding.DecodeString: newlines are skipped; any other character outside the alphabet, or a
 * lone character at the end, is `illegal base64 data at input byte N` (its index in the token).
 */
function decodeBase64(token: string): Buffer {
  let lastQuantumStart = 0;
  let inQuantum = 0;
  for (let i = 0; i < token.length; i++) {
    const c = token[i] as string;
    if (c === '\n' || c === '\r') continue;
    if (!base64url.test(c)) throw invalid(`: illegal base64 data at input byte ${i}`);
    if (inQuantum === 0) lastQuantumStart = i;
    inQuantum = (inQuantum + 1) % 4;
  }
  if (inQuantum === 1) throw invalid(`: illegal base64 data at input byte ${lastQuantumStart}`);
  return Buffer.from(token.replace(/[\r\n]/g, ''), 'base64url');
}

/** The fields of apimachinery's continueToken, matched by name as encoding/json matches them (case-insensitively). */
const fields = { v: 'string', rv: 'int64', start: 'string' } as const;
const maxInt64 = (1n << 63n) - 1n;
const minInt64 = -(1n << 63n);

/**
 * json.Unmarshal of the token into the continueToken struct: the first value that does not fit its field is
 * the error (`json: cannot unmarshal string into Go struct field continueToken.rv of type int64`); unknown
 * fields and nulls are skipped.
 */
function unmarshalToken(bytes: Buffer): { v: string; rv: number; start: string } {
  const syntax = goJsonSyntaxError(bytes);
  if (syntax !== undefined) throw invalid(`: ${syntax}`);
  // Numbers keep their text, by the object holding them: Go quotes it in its error (`number 1.5`), and an
  // int64 may not fit a double.
  const literals = new WeakMap<object, Map<string, string>>();
  const parsed: unknown = JSON.parse(bytes.toString('utf8'), function (this: object, key: string, value: unknown, context?: { source?: string }) {
    if (typeof value === 'number' && context?.source !== undefined) {
      const held = literals.get(this) ?? new Map<string, string>();
      literals.set(this, held.set(key, context.source));
    }
    return value;
  });
  const token = { v: '', rv: 0, start: '' };
  if (parsed === null) return token;
  if (!isJsonObject(parsed)) throw invalid(`: json: cannot unmarshal ${jsonKindName(parsed)} into Go value of type storage.continueToken`);
  let first: string | undefined;
  for (const [key, value] of Object.entries(parsed)) {
    const field = (Object.keys(fields) as (keyof typeof fields)[]).find((name) => name === key) ?? (Object.keys(fields) as (keyof typeof fields)[]).find((name) => name === key.toLowerCase());
    if (field === undefined || value === null) continue;
    const type = fields[field];
    const mismatch = (shown: string): void => {
      first ??= `: json: cannot unmarshal ${shown} into Go struct field continueToken.${field} of type ${type}`;
    };
    if (type === 'string') {
      if (typeof value === 'string') token[field as 'v' | 'start'] = value;
      else mismatch(jsonKindName(value));
    } else if (typeof value !== 'number') {
      mismatch(jsonKindName(value));
    } else {
      const text = literals.get(parsed)?.get(key) ?? String(value);
      const integer = /^-?\d+$/.test(text) ? BigInt(text) : undefined;
      if (integer === undefined || integer > maxInt64 || integer < minInt64) mismatch(`number ${text}`);
      else token.rv = Number(integer);
    }
  }
  if (first !== undefined) throw invalid(first);
  return token;
}

/** path.Clean would change the key (an empty, `.` or `..` segment): the server refuses it, against path traversal. */
function uncleanKey(key: string): boolean {
  return key !== '/' && key.slice(1).split('/').some((segment) => segment === '' || segment === '.' || segment === '..');
}

export function decodeContinue(token: string): ContinuePosition {
  const { v, rv, start } = unmarshalToken(decodeBase64(token));
  if (v !== 'meta.k8s.io/v1') throw invalid(`: server does not recognize this encoded version ${v}`);
  if (rv === 0) throw invalid(': incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (!start) throw invalid(': encoded start key empty (version meta.k8s.io/v1)');
  const key = start.startsWith('/') ? start : `/${start}`;
  if (uncleanKey(key)) throw invalid(`: ${start}`);
  const after = key.slice(1);
  return { rv, after: after.endsWith('\u0000') ? after.slice(0, -1) : after };
}
