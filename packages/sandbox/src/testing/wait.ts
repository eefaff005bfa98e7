// Waiting for one object to reach a state, for tests: a watch of that object (a WatchList: its current
// state, the initial-events-end bookmark, then every change), never a poll. A wait that times out names
// the object, the timeout and the last state it saw.

import type { LocalClient } from '../apiserver/local-client.ts';
import { isJsonObject, type KubeObject } from '../meta/object.ts';
import type { Registry } from '../registry/registry.ts';

/** An object by apiVersion, kind and name (and namespace, for a namespaced kind), as an ObjectReference names it. */
export interface ObjectReference {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export interface WaitOptions {
  /** How long to wait before rejecting; default 10,000 ms. */
  timeoutMs?: number;
}

/** A wait that ran out of time; `lastSeen` is the object as last seen (undefined: it did not exist). */
export class WaitTimeoutError extends Error {
  readonly lastSeen: KubeObject | undefined;
  constructor(message: string, lastSeen: KubeObject | undefined) {
    super(message);
    this.name = 'WaitTimeoutError';
    this.lastSeen = lastSeen;
  }
}

export interface Waiting {
  client: LocalClient;
  registry: Registry;
  /** Aborted when the sandbox stops: a wait then rejects at once. */
  stopped: AbortSignal;
}

const defaultTimeoutMs = 10_000;

/** The resource, namespace and a name for messages (`ConfigMap default/settings`) of a reference, or a clear error. */
function resolve(registry: Registry, ref: ObjectReference): { resource: { group: string; version: string; resource: string }; namespace: string | undefined; shown: string } {
  for (const field of ['apiVersion', 'kind', 'name'] as const) {
    if (typeof ref[field] !== 'string' || !ref[field]) throw new Error(`object reference ${JSON.stringify(ref)} has no ${field}`);
  }
  const def = registry.byKind(ref.apiVersion, ref.kind);
  if (!def) throw new Error(`the sandbox serves no kind ${ref.kind} in ${ref.apiVersion} (a custom resource is served once its CRD is registered)`);
  if (def.namespaced && !ref.namespace) throw new Error(`${ref.kind} is namespaced: the reference to ${JSON.stringify(ref.name)} needs a namespace`);
  if (!def.namespaced && ref.namespace) throw new Error(`${ref.kind} is cluster-scoped: the reference to ${JSON.stringify(ref.name)} may not have a namespace`);
  return {
    resource: { group: def.group, version: def.version, resource: def.resource },
    namespace: def.namespaced ? ref.namespace : undefined,
    shown: `${ref.kind} ${def.namespaced ? `${ref.namespace}/` : ''}${ref.name}`,
  };
}

/** The object for an error message: without managedFields, cut short past 2,000 characters. */
function describe(object: KubeObject | undefined): string {
  if (!object) return 'it did not exist';
  const { managedFields: _, ...metadata } = object.metadata;
  const text = JSON.stringify({ ...object, metadata });
  return `last seen: ${text.length > 2000 ? `${text.slice(0, 2000)}…` : text}`;
}

/**
 * Resolves with the object's state once `done` holds for it (undefined: the object does not exist), checking
 * its current state first and then every change. `what` says what is awaited, for the error.
 */
export function waitForState(waiting: Waiting, ref: ObjectReference, done: (object: KubeObject | undefined) => boolean, what: string, options: WaitOptions = {}): Promise<KubeObject | undefined> {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return Promise.reject(new Error(`timeoutMs must be a positive number of milliseconds, not ${timeoutMs}`));
  let target: ReturnType<typeof resolve>;
  try {
    target = resolve(waiting.registry, ref);
  } catch (err) {
    return Promise.reject(err as Error);
  }
  const { client, stopped } = waiting;
  return new Promise((resolvePromise, reject) => {
    let state: KubeObject | undefined;
    let settled = false;
    let stopWatch = (): void => {};
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stopped.removeEventListener('abort', onStop);
      stopWatch();
      outcome();
    };
    const check = (): void => {
      try {
        if (done(state)) finish(() => resolvePromise(state));
      } catch (err) {
        finish(() => reject(err as Error));
      }
    };
    const timer = setTimeout(
      () => finish(() => reject(new WaitTimeoutError(`timed out after ${timeoutMs} ms waiting for ${target.shown} ${what}; ${describe(state)}`, state))),
      timeoutMs,
    );
    const onStop = (): void => finish(() => reject(new Error(`the sandbox stopped while waiting for ${target.shown} ${what}; ${describe(state)}`)));
    if (stopped.aborted) return onStop();
    stopped.addEventListener('abort', onStop);

    // A watch ends when its server-side timeout passes: a new one starts again from the current state.
    const watch = (): void => {
      let initial: KubeObject | undefined;
      let listing = true;
      client
        .watch(
          target.resource,
          {
            ...(target.namespace ? { namespace: target.namespace } : {}),
            query: { fieldSelector: `metadata.name=${ref.name}`, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true },
          },
          (event) => {
            if (settled) return;
            if (event.type === 'ERROR') return finish(() => reject(new Error(`the watch of ${target.shown} failed: ${JSON.stringify(event.object)}`)));
            const object = event.object as KubeObject;
            if (event.type === 'BOOKMARK') {
              if (listing && object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true') {
                listing = false;
                state = initial;
                check();
              }
              return;
            }
            if (listing) initial = object;
            else {
              state = event.type === 'DELETED' ? undefined : object;
              check();
            }
          },
          () => {
            if (!settled && !stopped.aborted) watch();
          },
        )
        .then(
          (handle) => {
            if (settled) handle.stop();
            else stopWatch = () => handle.stop();
          },
          (err: unknown) => finish(() => reject(err as Error)),
        );
    };
    watch();
  });
}

/** `status.conditions[type=…].status` of an object, if it has that condition. */
export function conditionStatus(object: KubeObject, type: string): string | undefined {
  const conditions = isJsonObject(object.status) ? object.status.conditions : undefined;
  if (!Array.isArray(conditions)) return undefined;
  const condition = conditions.find((c) => isJsonObject(c) && c.type === type) as { status?: unknown } | undefined;
  return typeof condition?.status === 'string' ? condition.status : undefined;
}
