// WATCH as kube-apiserver 1.32 serves it from the watch cache: initial events (the default for an
// unset or "0" resourceVersion, WatchList), the initial-events-end BOOKMARK, resumption from a
// resourceVersion with replay of the kept history, a 410 Expired ERROR event when the history no
// longer reaches back, periodic bookmarks, and timeoutSeconds. Each event is serialized once per
// representation and shared by every watcher without a selector.

import { goneStatus } from '../errors.ts';
import type { KubeObject } from '../meta/object.ts';
import { apiVersionOf, type ResourceDefinition } from '../registry/types.ts';
import { serialize, type StoreEvent, type StoredEntry } from '../storage/store.ts';
import type { ServerContext } from './context.ts';
import { parseListOptions, parseResourceVersion } from './options.ts';
import type { ApiRequest, WatchEvent, WatchEventType, WatchResult, WatchSink } from './request.ts';
import { objectFilter } from './selection.ts';

const initialEventsEnd = 'k8s.io/initial-events-end';
const listBlueprint = 'kubernetes.io/initial-events-list-blueprint';

export function bookmarkObject(def: ResourceDefinition, rv: number, initialEnd: boolean): KubeObject {
  const apiVersion = apiVersionOf(def.group, def.version);
  const metadata: KubeObject['metadata'] = def.custom ? {} : { resourceVersion: String(rv), creationTimestamp: null };
  if (initialEnd) {
    const blueprint = def.custom
      ? `{"apiVersion":${JSON.stringify(apiVersion)},"items":[],"kind":${JSON.stringify(def.listKind)}}\n`
      : `{"kind":${JSON.stringify(def.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{},"items":null}\n`;
    metadata.annotations = { [initialEventsEnd]: 'true', [listBlueprint]: Buffer.from(blueprint).toString('base64') };
  }
  if (def.custom) {
    metadata.resourceVersion = String(rv);
    return { apiVersion, kind: def.kind, metadata };
  }
  return { kind: def.kind, apiVersion, metadata };
}

/** One line of the stream, as bytes: encoded once, written to every watcher as is. */
const line = (type: WatchEventType, json: string): Buffer => Buffer.from(`{"type":"${type}","object":${json}}\n`);

function viewEvent(def: ResourceDefinition, type: WatchEventType, object: KubeObject, cache?: Map<string, Buffer>, entry?: StoredEntry): WatchEvent {
  const shown = def.toExternal ? def.toExternal(object) : object;
  const cacheKey = `${type}|${def.group}/${def.version}`;
  return {
    type,
    object: shown,
    encoded: () => {
      const hit = cache?.get(cacheKey);
      if (hit !== undefined) return hit;
      // The stored serialization is shared with GET and write responses of the same version.
      const text = line(type, serialize(shown, entry));
      cache?.set(cacheKey, text);
      return text;
    },
  };
}

function entryEvent(def: ResourceDefinition, entry: StoredEntry): WatchEvent {
  if (def.toExternal) return viewEvent(def, 'ADDED', entry.object);
  return {
    type: 'ADDED',
    object: entry.object,
    encoded: () => line('ADDED', serialize(entry.object, entry)),
  };
}

/** What a store event means to a watcher with a filter (cacheWatcher.convertToWatchEvent). */
function translate(def: ResourceDefinition, event: StoreEvent, matches: ((o: KubeObject) => boolean) | undefined): WatchEvent | undefined {
  // The object as stored goes out under a type of the watcher's view: its encodings are shared (keyed by type).
  const shared = (type: WatchEventType): WatchEvent => viewEvent(def, type, event.object, event.lines, event.entry);
  if (!matches) return shared(event.type);
  const now = matches(event.object);
  if (event.type === 'DELETED') return now ? shared('DELETED') : undefined;
  const before = event.type === 'MODIFIED' && event.previous !== undefined && matches(event.previous);
  if (now) return shared(before ? 'MODIFIED' : 'ADDED');
  if (before && event.previous) {
    const gone = { ...event.previous, metadata: { ...event.previous.metadata, resourceVersion: String(event.rv) } };
    return viewEvent(def, 'DELETED', gone);
  }
  return undefined;
}

export function watchObjects(ctx: ServerContext, req: ApiRequest): WatchResult {
  const { def } = req;
  const options = parseListOptions(req.query, true);
  const fieldSelector = req.name
    ? [`metadata.name=${req.name}`, options.fieldSelector].filter(Boolean).join(',')
    : options.fieldSelector;
  const matches = objectFilter(def, options.labelSelector, fieldSelector);
  const prefix = def.namespaced && req.namespace ? `${req.namespace}/` : '';
  const rawRv = options.resourceVersion;
  const resumeFrom = rawRv !== undefined && rawRv !== '0' ? parseResourceVersion(rawRv, 'resourceVersion') : undefined;
  const sendInitial = options.sendInitialEvents ?? resumeFrom === undefined;
  const timeoutMs = (options.timeoutSeconds || 1800 + Math.floor(Math.random() * 1800)) * 1000;

  return {
    type: 'watch',
    code: 200,
    warnings: [],
    start(sink: WatchSink): () => void {
      const inScope = (key: string): boolean => !prefix || key.startsWith(prefix);
      let startRv = 0;
      let lastSent = 0;
      let open = true;
      const timers: NodeJS.Timeout[] = [];
      const stop = (): void => {
        if (!open) return;
        open = false;
        unsubscribe();
        for (const t of timers) clearTimeout(t);
        ctx.stopped.removeEventListener('abort', end);
      };
      const end = (): void => {
        if (!open) return;
        stop();
        sink.end();
      };
      const deliver = (event: WatchEvent): void => {
        if (open && !sink.send(event)) stop();
      };
      const unsubscribe = ctx.store.subscribeResource(def.storageKey, (event) => {
        if (event.rv <= startRv || !inScope(event.key)) return;
        const shown = translate(def, event, matches);
        lastSent = event.rv;
        if (shown) deliver(shown);
      });

      if (sendInitial) {
        startRv = ctx.store.currentRv;
        for (const entry of ctx.store.list(def.storageKey, prefix || undefined)) {
          if (!matches || matches(entry.object)) deliver(entryEvent(def, entry));
        }
        if (options.allowWatchBookmarks) deliver({ type: 'BOOKMARK', object: bookmarkObject(def, startRv, true) });
      } else if (resumeFrom !== undefined) {
        const history = ctx.store.eventsSince(def.storageKey, resumeFrom);
        if (!history) {
          const horizon = ctx.store.watchHorizon(def.storageKey);
          deliver({ type: 'ERROR', object: goneStatus(`too old resource version: ${resumeFrom} (${horizon})`) });
          end();
          return stop;
        }
        for (const event of history) {
          if (!inScope(event.key)) continue;
          const shown = translate(def, event, matches);
          if (shown) deliver(shown);
        }
        startRv = Math.max(resumeFrom, history.at(-1)?.rv ?? 0);
      } else {
        startRv = ctx.store.currentRv;
      }
      lastSent = startRv;

      if (options.allowWatchBookmarks) {
        const bookmark = (): void => {
          const rv = ctx.store.currentRv;
          if (rv > lastSent && rv > startRv) {
            lastSent = rv;
            deliver({ type: 'BOOKMARK', object: bookmarkObject(def, rv, false) });
          }
        };
        const periodic = (): void => {
          bookmark();
          if (open) timers.push(setTimeout(periodic, ctx.bookmarkIntervalMs).unref());
        };
        timers.push(setTimeout(periodic, ctx.bookmarkIntervalMs).unref());
        if (timeoutMs > 2000) timers.push(setTimeout(bookmark, timeoutMs - 2000).unref());
      }
      timers.push(setTimeout(end, timeoutMs).unref());
      ctx.stopped.addEventListener('abort', end);
      return stop;
    },
  };
}
