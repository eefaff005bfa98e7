// An API client over HTTP for the sandbox's parts that run against another API server (the simulated
// nodes of ./remote-nodes.ts): the verbs the in-process LocalClient has, with the same arguments, acting as
// the connection's user or impersonating a component (Impersonate-User and Impersonate-Group, which an
// admin in system:masters may send). Failures the server answers are StatusErrors with its Status.

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { PatchKind, RequestOptions, ResourceRef } from '../apiserver/local-client.ts';
import { StatusError, type Status } from '../errors.ts';
import type { KubeObject } from '../meta/object.ts';
import type { NodeApiClient } from '../nodes/node-context.ts';
import type { Connection } from './connection.ts';

const patchContentTypes: Record<PatchKind, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface RemoteIdentity {
  /** Impersonated user; undefined: the connection's own. */
  username?: string;
  groups?: readonly string[];
  userAgent: string;
}

export interface RemoteList {
  items: KubeObject[];
  resourceVersion: string;
}

export interface RemoteWatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject;
}

/** The keep-alive connections of one server, shared by every identity's client. */
export class RemoteServer {
  readonly connection: Connection;
  readonly #agent: HttpAgent;

  constructor(connection: Connection) {
    this.connection = connection;
    const secure = connection.server.startsWith('https:');
    this.#agent = secure
      ? new HttpsAgent({ keepAlive: true, maxSockets: 64, ca: connection.ca, cert: connection.cert, key: connection.key, rejectUnauthorized: !connection.insecureSkipTLSVerify })
      : new HttpAgent({ keepAlive: true, maxSockets: 64 });
  }

  /** Sends one request; resolves with the response (its body unread). */
  send(method: string, path: string, headers: Record<string, string | string[]>, body?: string): Promise<IncomingMessage> {
    const url = new URL(this.connection.server + path);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const framing = body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) };
      const credentials = this.connection.token ? { Authorization: `Bearer ${this.connection.token}` } : {};
      // Node frames no body of a DELETE by itself (no chunked encoding): its length is always given.
      const req = send(url, { method, agent: this.#agent, headers: { ...headers, ...framing, ...credentials } }, resolve);
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

const readBody = (res: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => resolve(text));
    res.on('error', reject);
  });

/** The API path of a resource, e.g. `/apis/apps/v1/namespaces/ns/deployments/web/status`. */
export function resourcePath(ref: ResourceRef, namespace: string | undefined, name?: string, subresource?: string): string {
  const base = ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`;
  const segments = [base, ...(namespace ? ['namespaces', encodeURIComponent(namespace)] : []), ref.resource, ...(name === undefined ? [] : [encodeURIComponent(name)]), ...(subresource ? [subresource] : [])];
  return segments.join('/');
}

export class RemoteClient implements NodeApiClient {
  readonly #server: RemoteServer;
  readonly #headers: Record<string, string | string[]>;

  constructor(server: RemoteServer, identity: RemoteIdentity) {
    this.#server = server;
    this.#headers = {
      Accept: 'application/json',
      'User-Agent': identity.userAgent,
      ...(identity.username === undefined ? {} : { 'Impersonate-User': identity.username }),
      ...(identity.groups?.length ? { 'Impersonate-Group': [...identity.groups] } : {}),
    };
  }

  async #call(method: string, path: string, query: RequestOptions['query'], body?: unknown, contentType = 'application/json'): Promise<unknown> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
    const search = params.size ? `?${params}` : '';
    const headers = body === undefined ? this.#headers : { ...this.#headers, 'Content-Type': contentType };
    const res = await this.#server.send(method, path + search, headers, body === undefined ? undefined : JSON.stringify(body));
    const text = await readBody(res);
    const status = res.statusCode ?? 0;
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (status >= 200 && status < 300) return parsed;
    const answered = parsed as Partial<Status> | undefined;
    throw new StatusError(
      answered?.kind === 'Status'
        ? (answered as Status)
        : { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `${method} ${path}: ${status} ${text.slice(0, 200)}`, code: status },
    );
  }

  async get(ref: ResourceRef, name: string, options: RequestOptions = {}): Promise<KubeObject> {
    return (await this.#call('GET', resourcePath(ref, options.namespace, name, options.subresource), options.query)) as KubeObject;
  }

  async list(ref: ResourceRef, options: RequestOptions = {}): Promise<RemoteList> {
    const list = (await this.#call('GET', resourcePath(ref, options.namespace), options.query)) as { items?: KubeObject[]; metadata?: { resourceVersion?: string } };
    return { items: list.items ?? [], resourceVersion: list.metadata?.resourceVersion ?? '' };
  }

  async create(ref: ResourceRef, object: KubeObject, options: RequestOptions = {}): Promise<KubeObject> {
    const name = options.subresource ? object.metadata.name : undefined;
    return (await this.#call('POST', resourcePath(ref, options.namespace, name, options.subresource), options.query, object)) as KubeObject;
  }

  async update(ref: ResourceRef, object: KubeObject, options: RequestOptions = {}): Promise<KubeObject> {
    return (await this.#call('PUT', resourcePath(ref, options.namespace, object.metadata.name, options.subresource), options.query, object)) as KubeObject;
  }

  async patch(ref: ResourceRef, name: string, kind: PatchKind, patch: unknown, options: RequestOptions = {}): Promise<KubeObject> {
    return (await this.#call('PATCH', resourcePath(ref, options.namespace, name, options.subresource), options.query, patch, patchContentTypes[kind])) as KubeObject;
  }

  async delete(ref: ResourceRef, name: string, options: RequestOptions & { body?: Record<string, unknown> } = {}): Promise<KubeObject> {
    return (await this.#call('DELETE', resourcePath(ref, options.namespace, name, options.subresource), options.query, options.body)) as KubeObject;
  }

  /**
   * Opens a watch from `resourceVersion` (rejects when the server refuses it); events go to `onEvent` in
   * order. When the server or the connection ends it, `onEnd` is called once (with the error, if any);
   * after `stop()` nothing more is called.
   */
  async watch(ref: ResourceRef, options: { namespace?: string; resourceVersion: string }, onEvent: (event: RemoteWatchEvent) => void, onEnd: (err?: unknown) => void): Promise<{ stop(): void }> {
    const query = new URLSearchParams({ watch: '1', resourceVersion: options.resourceVersion, allowWatchBookmarks: 'true', timeoutSeconds: String(300 + Math.floor(Math.random() * 300)) });
    const res = await this.#server.send('GET', `${resourcePath(ref, options.namespace)}?${query}`, this.#headers);
    if (res.statusCode !== 200) {
      const text = await readBody(res);
      throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `watch ${ref.resource}: ${res.statusCode} ${text.slice(0, 200)}`, code: res.statusCode ?? 0 });
    }
    let ended = false;
    const end = (err?: unknown): void => {
      if (ended) return;
      ended = true;
      onEnd(err);
    };
    let buffered = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffered += chunk;
      for (let newline = buffered.indexOf('\n'); newline >= 0 && !ended; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line) onEvent(JSON.parse(line) as RemoteWatchEvent);
      }
    });
    res.on('end', () => end());
    res.on('error', (err) => end(err));
    res.on('close', () => end());
    return {
      stop: () => {
        if (ended) return;
        ended = true;
        res.destroy();
      },
    };
  }
}
