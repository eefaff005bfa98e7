// The one HTTP client podops uses against any API server (a real cluster or the sandbox). Credentials come
// from kubeconfig files or the in-cluster service account (kubeconfig.ts: certificates, tokens, exec
// plugins); the transport is ours: keep-alive connections, explicit content types on every patch, streaming watches,
// timeouts, and API errors as typed exceptions carrying the server's Status.

import http from 'node:http';
import https from 'node:https';
import { accessFromKubeconfig, inClusterAccess, loadDefaultAccess, parseKubeconfig, readKubeconfigFile, type ClusterAccess, type Credentials } from './kubeconfig.ts';
import { PODS as PODS_TYPE, resourcePath, type ResourceType } from './resources.ts';
import { defaultUserAgent } from './version.ts';

export interface Status {
  kind?: 'Status';
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; kind?: string; group?: string; causes?: { reason?: string; message?: string; field?: string }[] };
}

/** A non-2xx answer of the API server. */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly status: Status;
  constructor(code: number, status: Status, context: string) {
    super(`${context}: ${status.message ?? `HTTP ${code}`}`);
    this.name = 'ApiError';
    this.code = code;
    this.reason = status.reason ?? '';
    this.status = status;
  }
}

/**
 * No answer from the API server: it could not be reached, or the connection failed before it answered. The
 * message names the server and the failure in words; `cause` keeps the socket's or TLS's error.
 */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  constructor(server: string, reason: string, options?: ErrorOptions) {
    super(`cannot reach the API server ${server}: ${reason}`, options);
  }
}

const UNKNOWN_AUTHORITY = 'TLS certificate signed by an unknown authority';
const NETWORK_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed (DNS temporarily unavailable)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: UNKNOWN_AUTHORITY,
  UNABLE_TO_GET_ISSUER_CERT: UNKNOWN_AUTHORITY,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: UNKNOWN_AUTHORITY,
  SELF_SIGNED_CERT_IN_CHAIN: UNKNOWN_AUTHORITY,
  DEPTH_ZERO_SELF_SIGNED_CERT: `${UNKNOWN_AUTHORITY} (a self-signed certificate)`,
  CERT_HAS_EXPIRED: 'TLS certificate has expired',
  CERT_NOT_YET_VALID: 'TLS certificate is not yet valid',
};

/** A socket's or TLS's error in words (Node's messages name syscalls and OpenSSL functions). */
function networkFailure(err: NodeJS.ErrnoException & { reason?: string }): string {
  const known = NETWORK_FAILURES[err.code ?? ''];
  if (known) return known;
  if (err.code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `TLS certificate does not match the host name (${err.reason})`;
  const openssl = /SSL routines:[^:]*:([^:]+)/.exec(err.message)?.[1];
  if (openssl) return `TLS handshake failed: ${openssl}${openssl === 'wrong version number' ? ' (does the server speak plain http?)' : ''}`;
  return err.message;
}

/** The API server's answer behind an error, however deep in its causes (Go's errors.As, as apierrors reads it). */
export function apiErrorOf(err: unknown): ApiError | undefined {
  for (let cause = err, depth = 0; cause instanceof Error && depth < 10; cause = cause.cause, depth++) {
    if (cause instanceof ApiError) return cause;
  }
  return undefined;
}

export const isNotFound = (err: unknown): boolean => apiErrorOf(err)?.code === 404;

/** Runs `call`; a failure says the step it failed in, before its own words, and keeps the error as its cause. */
export async function during<T>(step: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw new Error(`${step}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/** What a request answers, or undefined when the object is not there (404). */
export async function unlessNotFound<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
export const isConflict = (err: unknown): boolean => apiErrorOf(err)?.code === 409 && apiErrorOf(err)?.reason === 'Conflict';
export const isAlreadyExists = (err: unknown): boolean => apiErrorOf(err)?.code === 409 && apiErrorOf(err)?.reason === 'AlreadyExists';
export const isGone = (err: unknown): boolean => apiErrorOf(err)?.code === 410;
/** 429: an eviction a disruption budget refuses for now, or the server's rate limit. */
export const isTooManyRequests = (err: unknown): boolean => apiErrorOf(err)?.code === 429;

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

type Query = Record<string, string | number | boolean | undefined>;

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query;
  /** JSON-encoded unless a string. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface WatchEvent<T = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; resourceVersion?: string; [field: string]: unknown };
  [field: string]: unknown;
}

/** Anything with Kubernetes object metadata: the constraint of typed reads and writes. */
export interface ObjectWithMeta {
  apiVersion?: string;
  kind?: string;
  metadata: KubeObject['metadata'];
}

export interface ObjectList<T> {
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  /** For server-side apply: take fields owned by other managers. */
  force?: boolean;
  /** Aborts the request: the call rejects and its connection is closed. */
  signal?: AbortSignal;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  /** Aborts the request: the call rejects and its connection is closed. */
  signal?: AbortSignal;
}

export interface ClientOptions {
  userAgent?: string;
  /** Timeout of ordinary requests (watches have their own). Default 30 s. */
  timeoutMs?: number;
  /** The field manager for writes. Default `podops`. */
  fieldManager?: string;
  /** Called with each warning the server sends (admission webhooks', deprecations), as client-go's WarningHandler. */
  onWarning?: (warning: string, request: string) => void;
  /** Called once each request is answered, or failed without an answer (a watch once its stream opens): for metrics. */
  onRequest?: (request: CompletedRequest) => void;
}

/** One request as the client's metrics see it. */
export interface CompletedRequest {
  method: HttpRequest['method'];
  /** The API path, without the server's own path prefix or the query. */
  path: string;
  watch: boolean;
  /** The server's `host:port`. */
  host: string;
  /** The HTTP status code; undefined when no answer came (a connection failure, a timeout, an abort). */
  code: number | undefined;
  seconds: number;
}

/**
 * The texts of `Warning` headers (RFC 7234: `299 - "text"`, quotes escaped with a backslash); Node joins
 * repeated headers with ", ", which a quoted text may also contain, so the texts are matched, not split.
 */
function parseWarnings(header: string | string[] | undefined): string[] {
  const texts: string[] = [];
  for (const value of [header ?? []].flat()) {
    for (const match of value.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)) texts.push(match[1]!.replace(/\\(.)/g, '$1'));
  }
  return texts;
}

/** Where to connect and how to authenticate, refreshed every 10 s so rotated tokens and certificates are picked up. */
class Connection {
  readonly server: URL;
  readonly #credentials: Credentials;
  readonly #agent: http.Agent;
  #tls: https.RequestOptions = {};
  #headers: Record<string, string> = {};
  #refreshedAt = -Infinity;

  constructor(access: ClusterAccess) {
    this.#credentials = access.credentials;
    this.server = access.server;
    const agentOptions = { keepAlive: true, maxSockets: 64 };
    this.#agent = this.server.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  }

  async options(): Promise<https.RequestOptions> {
    if (performance.now() - this.#refreshedAt > 10_000) {
      const { ca, cert, key, rejectUnauthorized, servername, headers } = await this.#credentials.resolve();
      this.#tls = { ca, cert, key, rejectUnauthorized, ...(servername && { servername }) };
      this.#headers = headers;
      this.#refreshedAt = performance.now();
    }
    return { ...this.#tls, agent: this.#agent, headers: { ...this.#headers } };
  }

  /** The server answered 401: resolve the credentials again (an exec plugin is asked anew) before the next request. */
  unauthorized(): void {
    this.#credentials.invalidate();
    this.#refreshedAt = -Infinity;
  }

  close(): void {
    this.#agent.destroy();
  }
}

function queryString(query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') params.set(k, String(v));
  const text = params.toString();
  return text ? `?${text}` : '';
}

export class KubeClient {
  readonly #access: ClusterAccess;
  readonly #options: ClientOptions;
  readonly #connection: Connection;
  readonly #userAgent: string;
  readonly #timeoutMs: number;
  readonly #onWarning: ClientOptions['onWarning'];
  readonly #onRequest: ClientOptions['onRequest'];
  readonly fieldManager: string;
  /** The namespace of the kubeconfig's current context, if it names one. */
  readonly contextNamespace: string | undefined;

  constructor(access: ClusterAccess, options: ClientOptions = {}) {
    this.contextNamespace = access.namespace;
    this.#access = access;
    this.#options = options;
    this.#connection = new Connection(access);
    this.#userAgent = options.userAgent ?? defaultUserAgent();
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.fieldManager = options.fieldManager ?? 'podops';
    this.#onWarning = options.onWarning;
    this.#onRequest = options.onRequest;
  }

  /**
   * From a kubeconfig file, `$KUBECONFIG`/`~/.kube/config` of `env` (the process's environment unless
   * given), or the in-cluster service account.
   */
  static load(options: { kubeconfig?: string; context?: string; inCluster?: boolean; env?: NodeJS.ProcessEnv } & ClientOptions = {}): KubeClient {
    const access = options.inCluster
      ? inClusterAccess()
      : options.kubeconfig
        ? accessFromKubeconfig(readKubeconfigFile(options.kubeconfig), options.context)
        : loadDefaultAccess(options.env ?? process.env, options.context);
    return new KubeClient(access, options);
  }

  static fromKubeconfigText(text: string, options: ClientOptions = {}): KubeClient {
    return new KubeClient(accessFromKubeconfig(parseKubeconfig('(inline)', text, process.cwd())), options);
  }

  /** A client of the same cluster and credentials with some options changed (client-go's CopyConfig); close it too. */
  withOptions(options: ClientOptions): KubeClient {
    return new KubeClient(this.#access, { ...this.#options, ...options });
  }

  get server(): string {
    return this.#connection.server.toString();
  }

  /** A failure of the connection as a ConnectionError; an abort the caller asked for stays an AbortError. */
  #connectionError(err: unknown): unknown {
    if (!(err instanceof Error) || err.name === 'AbortError' || err instanceof ConnectionError) return err;
    return new ConnectionError(this.#serverName(), networkFailure(err), { cause: err });
  }

  #serverName(): string {
    return this.server.replace(/\/$/, '');
  }

  close(): void {
    this.#connection.close();
  }

  async #send(req: HttpRequest): Promise<http.IncomingMessage> {
    const base = await this.#connection.options();
    // A server URL may carry a path (a proxy such as Rancher's `https://host/k8s/clusters/c-x`): API paths go below it.
    const { server } = this.#connection;
    const url = new URL(server.pathname.replace(/\/$/, '') + req.path + queryString(req.query), server);
    const body = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    const headers: Record<string, string> = {
      ...(base.headers as Record<string, string>),
      Accept: req.accept ?? 'application/json',
      'User-Agent': this.#userAgent,
    };
    if (body !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    const transport = url.protocol === 'https:' ? https : http;
    const started = performance.now();
    let answered = false;
    const completed = (code: number | undefined): void => {
      answered = true;
      this.#onRequest?.({ method: req.method, path: req.path, watch: req.query?.watch === true, host: server.host, code, seconds: (performance.now() - started) / 1000 });
    };
    return new Promise((resolve, reject) => {
      const request = transport.request(url, { ...base, method: req.method, headers, signal: req.signal }, (response) => {
        completed(response.statusCode);
        if (response.statusCode === 401) this.#connection.unauthorized();
        const onWarning = this.#onWarning;
        if (onWarning) for (const warning of parseWarnings(response.headers.warning)) onWarning(warning, `${req.method} ${req.path}`);
        resolve(response);
      });
      if (req.timeoutMs !== 0) {
        const ms = req.timeoutMs ?? this.#timeoutMs;
        request.setTimeout(ms, () => request.destroy(new ConnectionError(this.#serverName(), `timed out (no answer to ${req.method} ${req.path} within ${ms} ms)`)));
      }
      request.on('error', (err) => {
        if (!answered) completed(undefined);
        reject(this.#connectionError(err));
      });
      request.end(body);
    });
  }

  /** One request; the JSON answer, or ApiError carrying the server's Status. */
  async request<T>(req: HttpRequest): Promise<T> {
    const text = await this.requestText(req);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** One request; the answer as text (`kubectl get --raw /metrics`), or ApiError carrying the server's Status. */
  async requestText(req: HttpRequest): Promise<string> {
    const response = await this.#send(req);
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of response) chunks.push(chunk as Buffer);
    } catch (err) {
      throw this.#connectionError(err);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const code = response.statusCode ?? 0;
    if (code < 200 || code >= 300) throw new ApiError(code, parseStatus(text, code), `${req.method} ${req.path}`);
    return text;
  }

  /**
   * A watch stream: yields events until the server ends the stream (timeoutSeconds), the signal aborts, or
   * the connection breaks (thrown). A 410 on connect is thrown as ApiError; a 410 during the stream arrives
   * as an ERROR event, as the server sends it. `onOpen` is called once the server accepted the watch.
   */
  async *watch<T = KubeObject>(path: string, query: Query, signal?: AbortSignal, onOpen?: () => void): AsyncGenerator<WatchEvent<T>> {
    const response = await this.#send({ method: 'GET', path, query: { ...query, watch: true }, timeoutMs: 0, ...(signal && { signal }) });
    const code = response.statusCode ?? 0;
    if (code < 200 || code >= 300) {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      throw new ApiError(code, parseStatus(Buffer.concat(chunks).toString('utf8'), code), `GET ${path} (watch)`);
    }
    onOpen?.();
    // An abort after the response started does not always end the response stream: end it explicitly.
    const endStream = (): void => {
      response.destroy();
    };
    signal?.addEventListener('abort', endStream, { once: true });
    let buffered = '';
    try {
      for await (const chunk of response) {
        buffered += (chunk as Buffer).toString('utf8');
        for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (line) yield JSON.parse(line) as WatchEvent<T>;
        }
      }
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    } finally {
      signal?.removeEventListener('abort', endStream);
    }
    if (signal?.aborted) return;
    const rest = buffered.trim();
    if (rest) yield JSON.parse(rest) as WatchEvent<T>;
  }

  get<T>(type: ResourceType, namespace: string | undefined, name: string, signal?: AbortSignal): Promise<T> {
    return this.request<T>({ method: 'GET', path: resourcePath(type, namespace, name), ...(signal && { signal }) });
  }

  list<T>(type: ResourceType, options: ListOptions = {}, signal?: AbortSignal): Promise<ObjectList<T>> {
    const { namespace, labelSelector, fieldSelector, limit, resourceVersion } = options;
    return this.request<ObjectList<T>>({
      method: 'GET',
      path: resourcePath(type, namespace),
      query: { labelSelector, fieldSelector, limit, continue: options.continue, resourceVersion },
      ...(signal && { signal }),
    });
  }

  #writeQuery(options: WriteOptions): Query {
    return { dryRun: options.dryRun ? 'All' : undefined, fieldManager: options.fieldManager ?? this.fieldManager, force: options.force };
  }

  create<T extends ObjectWithMeta>(type: ResourceType, object: T, options: WriteOptions = {}): Promise<T> {
    return this.request<T>({ method: 'POST', path: resourcePath(type, object.metadata.namespace), body: object, query: this.#writeQuery(options), ...(options.signal && { signal: options.signal }) });
  }

  /** PUT: a stale `metadata.resourceVersion` fails with 409 Conflict. */
  replace<T extends ObjectWithMeta>(type: ResourceType, object: T, options: WriteOptions & { subresource?: string } = {}): Promise<T> {
    const path = resourcePath(type, object.metadata.namespace, object.metadata.name ?? '', options.subresource);
    return this.request<T>({ method: 'PUT', path, body: object, query: this.#writeQuery(options), ...(options.signal && { signal: options.signal }) });
  }

  patch<T>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    patch: unknown,
    options: WriteOptions & { subresource?: string } = {},
  ): Promise<T> {
    return this.request<T>({
      method: 'PATCH',
      path: resourcePath(type, namespace, name, options.subresource),
      body: patch,
      contentType: PATCH_CONTENT_TYPES[patchType],
      query: this.#writeQuery(options),
      ...(options.signal && { signal: options.signal }),
    });
  }

  /** POST pods/NAME/eviction: a delete that PodDisruptionBudgets (and eviction webhooks) may refuse with 429. */
  evict(namespace: string, name: string, options: { dryRun?: boolean; signal?: AbortSignal } = {}): Promise<Status> {
    const body = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } };
    const query = { dryRun: options.dryRun ? 'All' : undefined };
    return this.request<Status>({ method: 'POST', path: resourcePath(PODS_TYPE, namespace, name, 'eviction'), body, query, ...(options.signal && { signal: options.signal }) });
  }

  delete<T = Status>(type: ResourceType, namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<T> {
    const { dryRun, signal, ...rest } = options;
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', ...rest, ...(dryRun && { dryRun: ['All'] }) };
    return this.request<T>({ method: 'DELETE', path: resourcePath(type, namespace, name), body, ...(signal && { signal }) });
  }
}

function parseStatus(text: string, code: number): Status {
  try {
    const parsed = JSON.parse(text) as Status;
    if (parsed && typeof parsed === 'object' && parsed.kind === 'Status') return parsed;
  } catch {
    // not JSON: a proxy or a crashed server; keep the text
  }
  return { status: 'Failure', code, message: text.trim().slice(0, 500) || `HTTP ${code}` };
}
