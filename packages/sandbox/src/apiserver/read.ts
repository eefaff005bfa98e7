// GET and LIST with the real server's resourceVersion semantics: "0" serves the cache (any
// version, limit ignored); unset reads the latest; an exact version must still be available;
// a future version waits briefly and then answers 504; limit/continue pages stay consistent.

import { badRequestStatus, failure, goneStatus, notFoundStatus, StatusError } from '../errors.ts';
import type { KubeObject } from '../meta/object.ts';
import { apiVersionOf, type ResourceDefinition } from '../registry/types.ts';
import type { StoredEntry } from '../storage/store.ts';
import type { ServerContext } from './context.ts';
import { decodeContinue, encodeContinue } from './continue-token.ts';
import { parseListOptions, parseResourceVersion, resourceVersionText, type ListOptions } from './options.ts';
import type { ApiRequest, ListResult, ObjectResult } from './request.ts';
import { objectFilter } from './selection.ts';
import { reasonlessFailure } from './status.ts';
import { requestKey } from './storage-key.ts';
import { targetOf } from './write.ts';

/** The object as this view (group/version) shows it. */
export function toView(def: ResourceDefinition, entry: StoredEntry): { object: KubeObject; entry?: StoredEntry } {
  const shown = def.toExternal ? def.toExternal(entry.object) : entry.object;
  // The stored serialization is reused when the view is the stored object itself.
  return shown === entry.object ? { object: shown, entry } : { object: shown };
}

export async function getObject(ctx: ServerContext, req: ApiRequest): Promise<ObjectResult> {
  const { def } = req;
  const name = req.name ?? '';
  const key = requestKey(req);
  const rv = req.query.get('resourceVersion');
  if (rv && rv !== '0') await waitForResourceVersion(ctx, parseResourceVersion(rv, 'resourceVersion'), resourceVersionText(rv));
  const entry = ctx.store.get(def.storageKey, key);
  if (!entry) throw new StatusError(notFoundStatus(targetOf(def, name)));
  return { type: 'object', code: 200, ...toView(def, entry), warnings: [] };
}

/** NewTooLargeResourceVersionError: a retry is suggested when the server waited for the version. */
function timeoutTooLarge(requested: string, current: number, retryAfterSeconds: number): StatusError {
  const status = failure(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    ...(retryAfterSeconds > 0 && { retryAfterSeconds }),
  });
  return new StatusError(status);
}

/** etcd's revisions are int64: an exact read of a larger version is refused at once (no retry suggested). */
const maxInt64 = (1n << 63n) - 1n;

/** Waits (bounded) until the store reaches `rv` (`shown` in messages), as the watch cache does for a future version. */
export async function waitForResourceVersion(ctx: ServerContext, rv: number, shown: string): Promise<void> {
  if (ctx.store.currentRv >= rv) return;
  await new Promise<void>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      unsubscribe();
      ctx.stopped.removeEventListener('abort', onStop);
    };
    const onStop = (): void => {
      done();
      reject(timeoutTooLarge(shown, ctx.store.currentRv, 1));
    };
    const timer = setTimeout(onStop, ctx.futureResourceVersionWaitMs);
    const unsubscribe = ctx.store.subscribe(() => {
      if (ctx.store.currentRv >= rv) {
        done();
        resolve();
      }
    });
    ctx.stopped.addEventListener('abort', onStop);
  });
}

const listTooOld = (): StatusError =>
  new StatusError(goneStatus('The resourceVersion for the provided list is too old.'));

const continueTooOld = (token: string): StatusError => {
  const status = failure(
    410,
    'Expired',
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    undefined,
  );
  (status.metadata as Record<string, string>).continue = token;
  return new StatusError(status);
};

interface ListSource {
  entries: readonly StoredEntry[];
  rv: number;
  /** Serve items strictly after this key. */
  after: string | undefined;
  /** The continuation serves the current state (rv -1 tokens). */
  inconsistent: boolean;
}

async function listSource(ctx: ServerContext, def: ResourceDefinition, options: ListOptions): Promise<ListSource> {
  const { store, snapshots } = ctx;
  const current = (): ListSource => ({ entries: store.list(def.storageKey), rv: store.currentRv, after: undefined, inconsistent: false });
  if (options.continueToken) {
    const position = decodeContinue(options.continueToken);
    if (position.rv < 0) return { ...current(), after: position.after, inconsistent: true };
    const saved = snapshots.get(def.storageKey, position.rv);
    if (saved) return { entries: saved, rv: position.rv, after: position.after, inconsistent: false };
    if (store.lastChange(def.storageKey) <= position.rv) return { ...current(), rv: position.rv, after: position.after };
    throw continueTooOld(encodeContinue(-1, position.after));
  }
  const raw = options.resourceVersion;
  if (raw === undefined || raw === '0') return current();
  const exact = options.resourceVersionMatch === 'Exact' || (options.resourceVersionMatch === undefined && options.limit !== undefined);
  if (!exact) {
    await waitForResourceVersion(ctx, parseResourceVersion(raw, 'resourceVersion'), resourceVersionText(raw));
    return current();
  }
  // An exact read goes to etcd, whose client refuses a version it cannot parse as a bad request.
  let rv: number;
  try {
    rv = parseResourceVersion(raw, 'resourceVersion');
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    throw new StatusError(badRequestStatus(`invalid resource version: ${err.status.message ?? ''}`));
  }
  if (BigInt(raw) > maxInt64) throw timeoutTooLarge(resourceVersionText(raw), store.currentRv, 0);
  if (rv > store.currentRv) throw reasonlessFailure(500, 'etcdserver: mvcc: required revision is a future revision');
  const saved = snapshots.get(def.storageKey, rv);
  if (saved) return { entries: saved, rv, after: undefined, inconsistent: false };
  if (store.lastChange(def.storageKey) <= rv) return { ...current(), rv };
  throw listTooOld();
}

function lowerBoundAfter(entries: readonly StoredEntry[], key: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((entries[mid] as StoredEntry).key <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export async function listObjects(ctx: ServerContext, req: ApiRequest): Promise<ListResult> {
  const { def } = req;
  const options = parseListOptions(req.query, false);
  const matches = objectFilter(def, options.labelSelector, options.fieldSelector);
  const source = await listSource(ctx, def, options);
  const limit = options.resourceVersion === '0' && !options.continueToken ? undefined : options.limit;
  const prefix = def.namespaced && req.namespace ? `${req.namespace}/` : '';
  const scopeKey = (key: string): string => key.slice(prefix.length);
  let i = source.after !== undefined ? lowerBoundAfter(source.entries, prefix + source.after) : firstWithPrefix(source.entries, prefix);
  const items: ListResult['items'] = [];
  let lastKey: string | undefined;
  let more = false;
  let remaining = 0;
  for (; i < source.entries.length; i++) {
    const entry = source.entries[i] as StoredEntry;
    if (prefix && !entry.key.startsWith(prefix)) break;
    if (matches && !matches(entry.object)) continue;
    if (limit !== undefined && items.length >= limit) {
      more = true;
      remaining++;
      continue;
    }
    items.push(toView(def, entry));
    lastKey = entry.key;
  }
  const metadata: ListResult['metadata'] = { resourceVersion: String(source.rv) };
  if (more && lastKey !== undefined) {
    if (!options.continueToken && !source.inconsistent) ctx.snapshots.save(def.storageKey, source.rv, source.entries);
    metadata.continue = encodeContinue(source.inconsistent ? -1 : source.rv, scopeKey(lastKey));
    if (!matches) metadata.remainingItemCount = remaining;
  }
  return {
    type: 'list',
    code: 200,
    kind: def.listKind,
    apiVersion: apiVersionOf(def.group, def.version),
    metadata,
    items,
    warnings: [],
  };
}

function firstWithPrefix(entries: readonly StoredEntry[], prefix: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((entries[mid] as StoredEntry).key < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
