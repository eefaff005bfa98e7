// Continue tokens of paginated lists: unpadded base64url of
// `{"v":"meta.k8s.io/v1","rv":N,"start":"<key>\u0000"}`, as the real server issues them.

import { badRequestStatus, StatusError } from '../errors.ts';
import { isJsonObject } from '../meta/object.ts';

export interface ContinuePosition {
  /** The resourceVersion of the first page; -1 after the snapshot expired (inconsistent continuation). */
  rv: number;
  /** The key after which the next page starts. */
  after: string;
}

export function encodeContinue(rv: number, lastKey: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `/${lastKey}\u0000` })).toString('base64url');
}

export function decodeContinue(token: string): ContinuePosition {
  const invalid = (why: string): StatusError => new StatusError(badRequestStatus(`invalid continue token: ${why}`));
  const text = Buffer.from(token, 'base64url').toString('latin1');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const first = text.trimStart()[0] ?? '';
    const shown = first && first.charCodeAt(0) >= 0x20 && first.charCodeAt(0) < 0x7f ? first : `\\u${first.charCodeAt(0).toString(16).padStart(4, '0')}`;
    throw invalid(`continue key is not valid: invalid character '${shown}' looking for beginning of value`);
  }
  if (!isJsonObject(parsed) || parsed.v !== 'meta.k8s.io/v1') throw invalid('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof parsed.rv !== 'number' || typeof parsed.start !== 'string' || !parsed.start) {
    throw invalid('continue key is not valid: encoded start key is empty');
  }
  const start = parsed.start.endsWith('\u0000') ? parsed.start.slice(0, -1) : parsed.start;
  return { rv: parsed.rv, after: start.startsWith('/') ? start.slice(1) : start };
}
