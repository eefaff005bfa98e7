// An in-process API client for the sandbox's own controllers (and part 2's kubelet and workload
// controllers): every call runs the same request pipeline as an HTTP request (options, admission,
// validation, metrics), without serialization. Results are copies; errors are StatusErrors.

import { notFoundStatus, StatusError } from '../errors.ts';
import { cloneJson, type KubeObject } from '../meta/object.ts';
import type { Registry } from '../registry/registry.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import type { UserInfo } from './admission.ts';
import type { ServerContext } from './context.ts';
import { handleRequest } from './handle.ts';
import type { ApiRequest, ApiResult, Verb, WatchEvent } from './request.ts';

/** A resource addressed as kubectl does: group, version and plural name (`{group:'apps', version:'v1', resource:'deployments'}`). */
export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
}

export interface RequestOptions {
  namespace?: string;
  subresource?: string;
  /** Query parameters (dryRun, fieldManager, labelSelector, propagationPolicy, …). */
  query?: Record<string, string | number | boolean | undefined>;
}

export type PatchKind = 'json' | 'merge' | 'strategic' | 'apply';

const patchContentTypes: Record<PatchKind, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface ObjectList {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
}

export interface LocalWatch {
  stop(): void;
}

export class LocalClient {
  readonly #ctx: ServerContext;
  readonly #registry: Registry;
  readonly #user: UserInfo;
  readonly #userAgent: string;

  constructor(ctx: ServerContext, identity: { user: UserInfo; userAgent: string }) {
    this.#ctx = ctx;
    this.#registry = ctx.registry;
    this.#user = identity.user;
    this.#userAgent = identity.userAgent;
  }

  #definition(ref: ResourceRef): ResourceDefinition {
    const def = this.#registry.get(ref.group, ref.version, ref.resource);
    if (!def) throw new StatusError(notFoundStatus({ resource: ref.resource, group: ref.group, name: '' }));
    return def;
  }

  async #call(verb: Verb, ref: ResourceRef, name: string | undefined, options: RequestOptions, body?: unknown, patchType?: string): Promise<ApiResult> {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) query.set(k, String(v));
    const request: ApiRequest = {
      verb,
      def: this.#definition(ref),
      subresource: options.subresource,
      namespace: options.namespace,
      name,
      query,
      body: body === undefined ? undefined : cloneJson(body),
      patchType,
      user: this.#user,
      userAgent: this.#userAgent,
    };
    return handleRequest(this.#ctx, request);
  }

  async #object(result: ApiResult): Promise<KubeObject> {
    if (result.type === 'object') return cloneJson(result.object);
    if (result.type === 'status') return cloneJson(result.status) as unknown as KubeObject;
    throw new Error(`unexpected ${result.type} result`);
  }

  async get(ref: ResourceRef, name: string, options: RequestOptions = {}): Promise<KubeObject> {
    return this.#object(await this.#call('get', ref, name, options));
  }

  async list(ref: ResourceRef, options: RequestOptions = {}): Promise<ObjectList> {
    const result = await this.#call('list', ref, undefined, options);
    if (result.type !== 'list') throw new Error(`unexpected ${result.type} result`);
    const list: ObjectList = { items: result.items.map((i) => cloneJson(i.object)), resourceVersion: result.metadata.resourceVersion };
    if (result.metadata.continue) list.continue = result.metadata.continue;
    return list;
  }

  /** POST; with a subresource (`binding`) the object's name addresses the parent. */
  async create(ref: ResourceRef, object: KubeObject, options: RequestOptions = {}): Promise<KubeObject> {
    return this.#object(await this.#call('create', ref, options.subresource ? object.metadata.name : undefined, options, object));
  }

  async update(ref: ResourceRef, object: KubeObject, options: RequestOptions = {}): Promise<KubeObject> {
    return this.#object(await this.#call('update', ref, object.metadata.name, options, object));
  }

  async patch(ref: ResourceRef, name: string, kind: PatchKind, patch: unknown, options: RequestOptions = {}): Promise<KubeObject> {
    return this.#object(await this.#call('patch', ref, name, options, patch, patchContentTypes[kind]));
  }

  /** DELETE; answers the object (pending or returned) or the Success Status as a plain object. */
  async delete(ref: ResourceRef, name: string, options: RequestOptions & { body?: Record<string, unknown> } = {}): Promise<KubeObject> {
    return this.#object(await this.#call('delete', ref, name, options, options.body));
  }

  /** Watches with list semantics (selectors, resourceVersion…); events arrive asynchronously, in order. */
  async watch(ref: ResourceRef, options: RequestOptions, onEvent: (event: WatchEvent) => void, onEnd?: () => void): Promise<LocalWatch> {
    const result = await this.#call('watch', ref, undefined, options);
    if (result.type !== 'watch') throw new Error(`unexpected ${result.type} result`);
    const queue: WatchEvent[] = [];
    let scheduled = false;
    let ended = false;
    let open = true;
    const flush = (): void => {
      scheduled = false;
      while (open && queue.length) onEvent(queue.shift() as WatchEvent);
      if (ended && open) {
        open = false;
        onEnd?.();
      }
    };
    const schedule = (): void => {
      if (!scheduled) {
        scheduled = true;
        queueMicrotask(flush);
      }
    };
    const stop = result.start({
      send: (event) => {
        if (!open) return false;
        queue.push({ type: event.type, object: cloneJson(event.object) });
        schedule();
        return true;
      },
      end: () => {
        ended = true;
        schedule();
      },
    });
    return {
      stop: () => {
        open = false;
        stop();
      },
    };
  }
}
