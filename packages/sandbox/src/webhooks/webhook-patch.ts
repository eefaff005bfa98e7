// A mutating webhook's JSONPatch, applied as the mutating dispatcher applies it: decoded first
// (an undecodable patch is a failure to call the webhook), then applied operation by operation
// with the library the real server uses (evanphx/json-patch), whose error words are reproduced
// here because the server reports them verbatim as an internal error.

import { isJsonObject } from '../meta/object.ts';
import { applyJsonPatch, decodeGoJson, GoJsonSyntaxError } from '../patch/index.ts';

/** The patch bytes are not a JSON patch document. */
export class UndecodablePatchError extends Error {
  override readonly name = 'UndecodablePatchError';
}

/** An operation that does not apply to the object. */
export class PatchApplicationError extends Error {
  override readonly name = 'PatchApplicationError';
}

const goKind = (v: unknown): string => (Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v);

/** jsonpatch.DecodePatch: a JSON array of objects (null and [] are an empty patch). */
export function decodeWebhookPatch(bytes: Buffer): Record<string, unknown>[] {
  let parsed: unknown;
  try {
    parsed = decodeGoJson(bytes);
  } catch (err) {
    if (!(err instanceof GoJsonSyntaxError)) throw err;
    throw new UndecodablePatchError(err.message);
  }
  if (parsed === null) return [];
  if (!Array.isArray(parsed)) throw new UndecodablePatchError(`json: cannot unmarshal ${goKind(parsed)} into Go value of type jsonpatch.Patch`);
  return parsed.map((op) => {
    if (op === null) return {};
    if (!isJsonObject(op)) throw new UndecodablePatchError(`json: cannot unmarshal ${goKind(op)} into Go value of type jsonpatch.Operation`);
    return op;
  });
}

type Container = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Container => isJsonObject(v) || Array.isArray(v);
const decodeKey = (segment: string): string => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/** findObject: the container the last segment of `path` lives in (the first segment is never looked up). */
function findContainer(document: unknown, path: string): { container: Container; key: string } | undefined {
  const segments = path.split('/');
  if (segments.length < 2 || !isContainer(document)) return undefined;
  let container: Container = document;
  for (const segment of segments.slice(1, -1)) {
    const key = decodeKey(segment);
    const next = Array.isArray(container) ? container[Number(key)] : container[key];
    if (!isContainer(next)) return undefined;
    container = next;
  }
  return { container, key: decodeKey(segments[segments.length - 1] ?? '') };
}

const missing = (message: string): string => `${message}: missing value`;
const invalidIndex = (key: string): string => `Unable to access invalid index: ${key}: invalid index referenced`;

function arrayIndexProblem(container: unknown[], key: string, forInsert: boolean): string | undefined {
  if (!/^[+-]?[0-9]+$/.test(key)) return `strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`;
  const index = Number(key);
  const length = container.length + (forInsert ? 1 : 0);
  return index >= length || index < -length ? invalidIndex(key) : undefined;
}

/** Why one operation did not apply, in evanphx/json-patch's words. */
function failureReason(document: unknown, op: Record<string, unknown>): string {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  const path = typeof op.path === 'string' ? op.path : undefined;
  const from = typeof op.from === 'string' ? op.from : undefined;
  if (!['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(kind)) return `Unexpected kind: ${kind}`;
  if ((kind === 'move' || kind === 'copy') && from === undefined) return `${kind} operation failed to decode from`;
  if (path === undefined) return missing(`${kind} operation failed to decode path`);
  if (kind === 'move' || kind === 'copy') {
    if (!findContainer(document, from ?? '')) return missing(`${kind} operation does not apply: doc is missing from path: ${from}`);
    if (!findContainer(document, path)) return missing(`${kind} operation does not apply: doc is missing destination path: ${path}`);
    return `error in ${kind} for path: '${path}'`;
  }
  const target = findContainer(document, path);
  if (!target) {
    if (kind === 'test') return missing(`test operation does not apply: is missing path: ${path}`);
    if (kind === 'replace') return missing(`replace operation does not apply: doc is missing path: ${path}`);
    return missing(`${kind} operation does not apply: doc is missing path: ${JSON.stringify(path)}`);
  }
  const { container, key } = target;
  switch (kind) {
    case 'add':
      return `error in add for path: '${path}': ${Array.isArray(container) ? (arrayIndexProblem(container, key, true) ?? '') : ''}`;
    case 'remove':
      if (!Array.isArray(container)) return `error in remove for path: '${path}': ${missing(`Unable to remove nonexistent key: ${key}`)}`;
      return `error in remove for path: '${path}': ${arrayIndexProblem(container, key, false) ?? ''}`;
    case 'replace':
      return missing(`replace operation does not apply: doc is missing key: ${path}`);
    default:
      return `testing value ${path} failed: test failed`;
  }
}

/** Applies the decoded operations to `document`, returning the patched copy. */
export function applyWebhookPatch(document: unknown, operations: readonly Record<string, unknown>[]): unknown {
  let current = document;
  for (const op of operations) {
    try {
      current = applyJsonPatch(current, [op]);
    } catch {
      throw new PatchApplicationError(failureReason(current, op));
    }
  }
  return current;
}
