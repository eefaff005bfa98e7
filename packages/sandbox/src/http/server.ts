// The HTTP(S) front of the sandbox API server: routing, body decoding, content negotiation and the
// wire encodings (JSON, YAML, Tables, chunked watch streams). Everything that is API semantics
// happens in the request pipeline (../apiserver/handle.ts), which in-process clients share.

import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import YAML from 'yaml';
import type { UserInfo } from '../apiserver/admission.ts';
import type { ServerContext } from '../apiserver/context.ts';
import { handleRequest } from '../apiserver/handle.ts';
import { sandboxAdmin } from '../apiserver/users.ts';
import type { ApiRequest, ApiResult, BodyKeys, Verb, WatchEvent } from '../apiserver/request.ts';
import { notFoundPath } from '../apiserver/status.ts';
import type { DiscoveryDocuments } from '../discovery/documents.ts';
import { serverVersion } from '../discovery/documents.ts';
import { badRequestStatus, failure, internalErrorStatus, StatusError, type Status } from '../errors.ts';
import type { KubeObject } from '../meta/object.ts';
import type { OpenApiDocuments } from '../openapi/documents.ts';
import { decodeGoJson, GoJsonSyntaxError, parseYamlWithinDepth } from '../patch/index.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import { serialize } from '../storage/store.ts';
import { buildTable, parseIncludeObject, partialObjectMetadata } from '../tables/table.ts';
import { duplicateKeys, keyOccurrences } from './duplicate-keys.ts';
import { ImpersonationError, impersonatedUser } from './impersonation.ts';
import { connectSubresources } from '../apiserver/pod-connect.ts';
import { negotiate, routeAccepts, servedMediaTypes, type Representation } from './negotiation.ts';
import { decodeProtobufObject } from './protobuf.ts';
import { parseRequestTarget } from './request-target.ts';
import { routePath, type ResourcePath } from './router.ts';

const maxBodyBytes = 3 * 1024 * 1024;
// kube-apiserver's MaxHeaderBytes (1 MiB), plus the 4 KiB Go's reader allows for the request line.
const maxHeaderBytes = (1 << 20) + 4096;
const watchBatchMs = 2;
/**
 * A watcher that does not read falls behind: kube-apiserver gives each watcher a bounded buffer and closes one
 * that cannot take an event within a short time budget (the client watches again from its last
 * resourceVersion). Here a watcher is behind once more than `watchBacklogBytes` wait unsent in this process
 * (the sockets' kernel buffers hold more before that); it is closed if still behind after `watchBudgetMs`, or
 * at once past `watchBacklogLimitBytes`.
 */
const watchBacklogBytes = 1 << 20;
const watchBacklogLimitBytes = 8 << 20;
const watchBudgetMs = 1000;

export interface HttpServerOptions {
  tls?: { key: string; cert: string };
}

export interface HttpFront {
  server: Server;
  /** Closes the listener and every open connection (watches included). */
  close(): Promise<void>;
}

export function createHttpFront(
  ctx: ServerContext,
  discovery: DiscoveryDocuments,
  openapi: OpenApiDocuments,
  options: HttpServerOptions,
): HttpFront {
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    serve(ctx, discovery, openapi, req, res).catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else if (err instanceof BodyTooLargeError) answerBeforeBodyEnds(req, res, err.status);
      else writeStatus(res, toStatus(err), err instanceof StatusError ? err.warnings : []);
    });
  };
  const server: Server = options.tls
    ? (createHttpsServer({ key: options.tls.key, cert: options.tls.cert, maxHeaderSize: maxHeaderBytes }, listener) as unknown as Server)
    : createHttpServer({ keepAlive: true, maxHeaderSize: maxHeaderBytes }, listener);
  server.keepAliveTimeout = 60_000;
  server.on('clientError', refuseMalformedRequest);
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function toStatus(err: unknown): Status {
  if (err instanceof StatusError) return err.status;
  const message = err instanceof Error ? err.message : String(err);
  return internalErrorStatus(message);
}

function writeBody(res: ServerResponse, code: number, contentType: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(code, {
    'Content-Type': contentType,
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.length),
    ...headers,
  });
  res.end(body);
}

/**
 * `head`, the items separated by commas, then `tail`, encoded straight into one buffer: a list of
 * 10,000 pods is about 25 MB, and joining it into one string first costs a copy of that size on the
 * heap (and the collections it brings) before the same bytes are encoded again for the socket.
 */
function jsonArrayBytes(head: string, items: readonly string[], tail: string): Buffer {
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, items.length - 1);
  for (const item of items) size += Buffer.byteLength(item);
  const bytes = Buffer.allocUnsafe(size);
  let offset = bytes.write(head, 0);
  items.forEach((item, i) => {
    if (i > 0) bytes[offset++] = 0x2c;
    offset += bytes.write(item, offset);
  });
  bytes.write(tail, offset);
  return bytes;
}

/** ErrorNegotiated: a Status suggesting a delay also says so in `Retry-After`. */
function writeStatus(res: ServerResponse, status: Status, warnings: readonly string[] = []): void {
  const retryAfter = status.details?.retryAfterSeconds;
  const headers = { ...warningHeader(warnings), ...(retryAfter && retryAfter > 0 ? { 'Retry-After': String(retryAfter) } : {}) };
  writeBody(res, status.code, 'application/json', JSON.stringify(status), headers);
}

/**
 * responsewriters.WriteRawJSON: a Status the server could not encode in any representation the client
 * accepts (negotiation failed) goes out as indented JSON.
 */
function writeRawJson(res: ServerResponse, status: Status): void {
  writeBody(res, status.code, 'application/json', JSON.stringify(status, null, 2));
}

/** One `Warning` header with every warning, as the real server combines them (each text once, none empty). */
function warningHeader(warnings: readonly string[]): Record<string, string> {
  const distinct = [...new Set(warnings.filter((w) => w !== ''))];
  if (!distinct.length) return {};
  return { Warning: distinct.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') };
}

/**
 * Go's net/http answer to a request it cannot read (a malformed request line, header or framing),
 * written before any handler runs: plain text, no Content-Length, and the connection closes.
 */
function writeUnreadableRequest(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`);
}

/**
 * Node's parser refused the bytes. Go answers as above (431 for oversized headers), after the answer
 * to a request still in flight when the bad one follows it on the connection. A timeout or a reset
 * gets no answer, nor does a body whose framing breaks (the handler's own read fails with it).
 */
function refuseMalformedRequest(err: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (!socket.writable || !err.code?.startsWith('HPE_') || (inFlight && !inFlight.req.complete)) {
    socket.destroy();
    return;
  }
  const answer = (): void => writeUnreadableRequest(socket, err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request');
  if (inFlight && !inFlight.writableFinished) inFlight.once('finish', answer);
  else answer();
}

/** A body past the limit: answered at once, before the rest of it arrives. */
class BodyTooLargeError extends StatusError {}

/**
 * Go answers a request whose body the handler stopped reading with `Connection: close`. The answer
 * goes out whole at once; the connection ends only once the client has sent the rest (discarded),
 * so a client that is still sending reads the answer instead of a reset.
 */
function answerBeforeBodyEnds(req: IncomingMessage, res: ServerResponse, status: Status): void {
  const body = JSON.stringify(status);
  res.writeHead(status.code, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  });
  res.write(body);
  if (req.readableEnded) res.end();
  else req.once('end', () => res.end()).resume();
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (size > maxBodyBytes) return;
      size += chunk.length;
      if (size > maxBodyBytes) {
        chunks.length = 0;
        reject(new BodyTooLargeError(failure(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${maxBodyBytes}`, undefined)));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function serve(
  ctx: ServerContext,
  discovery: DiscoveryDocuments,
  openapi: OpenApiDocuments,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const target = parseRequestTarget(req.url ?? '/');
  if (!target) return writeUnreadableRequest(req.socket, '400 Bad Request');
  const { path, query } = target;
  let user: UserInfo;
  try {
    user = impersonatedUser(req.headersDistinct, sandboxAdmin, req.url ?? '/');
  } catch (err) {
    if (!(err instanceof ImpersonationError)) throw err;
    return writeBody(res, 500, 'text/plain; charset=utf-8', `${err.message}\n`, { 'X-Content-Type-Options': 'nosniff' });
  }
  const route = routePath(path);
  const accept = req.headers.accept;
  switch (route.type) {
    case 'legacy-root':
    case 'groups-root': {
      const rep = negotiate(accept, true);
      if (rep?.kind === 'discovery') {
        const doc = discovery.aggregated(route.type === 'legacy-root', rep.version);
        writeBody(res, 200, `application/json;g=apidiscovery.k8s.io;v=${rep.version};as=APIGroupDiscoveryList`, doc.body, {
          Vary: 'Accept',
          ETag: doc.etag,
          'X-Varied-Accept': accept ?? '',
        });
        return;
      }
      const address = `${req.socket.localAddress ?? '127.0.0.1'}:${req.socket.localPort ?? 0}`;
      writeBody(res, 200, 'application/json', route.type === 'legacy-root' ? discovery.legacyVersions(address) : discovery.groupList());
      return;
    }
    case 'group': {
      const body = discovery.group(route.group);
      if (body) writeBody(res, 200, 'application/json', body);
      else writeBody(res, 404, 'text/plain; charset=utf-8', '404 page not found\n');
      return;
    }
    case 'group-version': {
      const body = discovery.resourceList(route.group, route.version);
      if (body) writeBody(res, 200, 'application/json', body);
      else if (route.group && !discovery.group(route.group)) writeBody(res, 404, 'text/plain; charset=utf-8', '404 page not found\n');
      else writeStatus(res, notFoundPath().status);
      return;
    }
    case 'other':
      serveOther(ctx, openapi, path, query, res);
      return;
    case 'resource':
      await serveResource(ctx, discovery, route, query, user, req, res);
      return;
  }
}

function serveOther(ctx: ServerContext, openapi: OpenApiDocuments, path: string, query: URLSearchParams, res: ServerResponse): void {
  if (path === '/version') return writeBody(res, 200, 'application/json', JSON.stringify(serverVersion));
  if (path === '/metrics') return writeBody(res, 200, 'text/plain; version=0.0.4; charset=utf-8', ctx.requests.exposition());
  if (path === '/healthz' || path === '/livez' || path === '/readyz') return writeBody(res, 200, 'text/plain; charset=utf-8', 'ok');
  if (path === '/openapi/v2') return writeBody(res, 200, 'application/json', openapi.v2());
  if (path === '/openapi/v3') return writeBody(res, 200, 'text/plain; charset=utf-8', openapi.v3Index());
  if (path.startsWith('/openapi/v3/')) {
    const doc = openapi.v3(path.slice('/openapi/v3/'.length));
    if (!doc) return writeBody(res, 404, 'text/plain; charset=utf-8', '404 page not found\n');
    const hash = query.get('hash');
    if (hash && hash !== doc.hash) {
      res.writeHead(301, { Location: `${path}?hash=${doc.hash}` });
      res.end();
      return;
    }
    const cache = hash ? { 'Cache-Control': 'public, immutable', Etag: `"${doc.hash}"` } : { 'Cache-Control': 'no-cache, private', Etag: `"${doc.hash}"` };
    res.writeHead(200, { 'Content-Type': 'application/json', ...cache });
    res.end(doc.body);
    return;
  }
  writeBody(res, 404, 'text/plain; charset=utf-8', '404 page not found\n');
}

function verbOf(method: string, route: ResourcePath, query: URLSearchParams): Verb | undefined {
  const watchParam = query.get('watch');
  const watching = route.watchPrefix || watchParam === 'true' || watchParam === '1';
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watching) return 'watch';
      return route.name ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return route.name ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

/** handlers.summarizeData: the start of a body a decode error quotes (hex unless it opens a JSON object). */
function summarizeBody(raw: Buffer): string {
  if (raw.length === 0) return '<empty>';
  const head = raw.subarray(0, 30);
  const shown = raw[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return raw.length > head.length ? `${shown} ...` : shown;
}

/** Decodes a JSON, YAML or protobuf object body (create, update, delete options). */
function decodeBody(raw: Buffer, contentType: string, def: ResourceDefinition, required: boolean): unknown {
  const text = raw.toString('utf8');
  if (!text.trim()) {
    if (!required) return undefined;
    throw new StatusError(
      badRequestStatus(`the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; json parse error: unexpected end of JSON input (${summarizeBody(raw)})`),
    );
  }
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType === 'application/vnd.kubernetes.protobuf') return decodeProtobufObject(raw, def.kind);
  if (mediaType === 'application/yaml') {
    try {
      return parseYamlWithinDepth(raw, (yaml) => YAML.parse(yaml) as unknown);
    } catch (err) {
      throw new StatusError(badRequestStatus(`error decoding YAML: ${(err as Error).message.split('\n')[0] ?? ''}`));
    }
  }
  if (mediaType && mediaType !== 'application/json' && mediaType !== '*/*') {
    // NewUnsupportedMediaTypeError with the serializer's types (custom resources have no protobuf): no details.
    const accepted = def.custom ? servedMediaTypes.slice(0, 2) : servedMediaTypes;
    throw new StatusError(failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`, undefined));
  }
  try {
    return decodeGoJson(raw);
  } catch (err) {
    if (!(err instanceof GoJsonSyntaxError)) throw err;
    throw new StatusError(
      badRequestStatus(`the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; json parse error: ${err.message} (${summarizeBody(raw)})`),
    );
  }
}

async function serveResource(
  ctx: ServerContext,
  discovery: DiscoveryDocuments,
  route: ResourcePath,
  query: URLSearchParams,
  user: UserInfo,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const def = ctx.registry.get(route.group, route.version, route.resource);
  // Only a proxy takes a path of its own after the subresource.
  const connect = route.subresource !== undefined && connectSubresources.has(route.subresource);
  if (!def || (route.extra && route.subresource !== 'proxy') || (route.namespace !== undefined && !def.namespaced)) {
    if (route.group && !discovery.group(route.group)) return writeBody(res, 404, 'text/plain; charset=utf-8', '404 page not found\n');
    return writeStatus(res, notFoundPath().status);
  }
  const method = req.method ?? 'GET';
  const verb = verbOf(method, route, query);
  if (!verb || !def.verbs.includes(verb === 'watch' && route.name ? 'watch' : verb)) {
    return writeStatus(res, failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));
  }
  // Connect routes produce anything; pods/log also text/plain, and streams its body without negotiating.
  const log = route.subresource === 'log';
  if (!connect && !routeAccepts(req.headers.accept, log ? [...servedMediaTypes, 'text/plain'] : servedMediaTypes)) {
    return writeRawJson(res, failure(406, 'NotAcceptable', '406: Not Acceptable', {}));
  }
  const representation = connect || log ? { kind: 'json' as const } : negotiate(req.headers.accept, false);
  if (!representation) return writeRawJson(res, failure(406, 'NotAcceptable', `only the following media types are accepted: ${servedMediaTypes.join(', ')}`, undefined));
  const contentType = String(req.headers['content-type'] ?? '');
  const raw = verb === 'get' || verb === 'list' || verb === 'watch' ? Buffer.alloc(0) : await readBody(req);
  let body: unknown;
  let bodyKeys: BodyKeys | undefined;
  if (verb === 'patch' || connect) body = raw;
  else if (verb === 'create' || verb === 'update') {
    body = decodeBody(raw, contentType, def, true);
    const isJson = !/^application\/(yaml|vnd\.kubernetes\.protobuf)/i.test(contentType);
    if (isJson && query.get('fieldValidation') !== 'Ignore' && raw.includes(0x22)) {
      const text = raw.toString('utf8');
      bodyKeys = { duplicates: duplicateKeys(text), inOrder: () => keyOccurrences(text) };
    }
  } else if (verb === 'delete' || verb === 'deletecollection') body = decodeBody(raw, contentType, def, false);

  const apiRequest: ApiRequest = {
    verb,
    def,
    subresource: route.subresource,
    namespace: def.namespaced ? route.namespace : undefined,
    name: route.name,
    query,
    body,
    patchType: verb === 'patch' ? contentType : undefined,
    user,
    userAgent: req.headers['user-agent'],
    ...(bodyKeys ? { bodyKeys } : {}),
    ...(isUpgradeRequest(req) ? { upgrade: true } : {}),
  };
  const result = await handleRequest(ctx, apiRequest);
  writeResult(ctx, def, representation, query, req, res, result);
}

/** httpstream.IsUpgradeRequest: a `Connection` header naming `upgrade`. */
function isUpgradeRequest(req: IncomingMessage): boolean {
  return String(req.headers.connection ?? '')
    .split(',')
    .some((token) => token.trim().toLowerCase() === 'upgrade');
}

function encodeObject(def: ResourceDefinition, representation: Representation, query: URLSearchParams, now: number, object: KubeObject, json: () => string): [string, string] {
  switch (representation.kind) {
    case 'table': {
      const meta = object.metadata.resourceVersion ? { resourceVersion: object.metadata.resourceVersion } : {};
      const table = buildTable(def, [object], meta, { includeObject: parseIncludeObject(query.get('includeObject')), noHeaders: false, now });
      return ['application/json', JSON.stringify({ ...table, apiVersion: representation.apiVersion })];
    }
    case 'partial':
      return ['application/json', JSON.stringify(partialObjectMetadata(object))];
    case 'yaml':
      return ['application/yaml', YAML.stringify(JSON.parse(json()))];
    default:
      return ['application/json', json()];
  }
}

function writeResult(
  ctx: ServerContext,
  def: ResourceDefinition,
  representation: Representation,
  query: URLSearchParams,
  req: IncomingMessage,
  res: ServerResponse,
  result: ApiResult,
): void {
  const now = ctx.clock();
  switch (result.type) {
    case 'status':
      return writeStatus(res, result.status, result.warnings);
    case 'object': {
      const { entry, object } = result;
      const json = (): string => serialize(object, entry);
      const [type, body] = encodeObject(def, representation, query, now, object, json);
      return writeBody(res, result.code, type, body, warningHeader(result.warnings));
    }
    case 'list': {
      const meta = JSON.stringify(result.metadata);
      if (representation.kind === 'table') {
        const table = buildTable(
          def,
          result.items.map((i) => i.object),
          result.metadata,
          { includeObject: parseIncludeObject(query.get('includeObject')), noHeaders: false, now },
        );
        return writeBody(res, 200, 'application/json', JSON.stringify({ ...table, apiVersion: representation.apiVersion }), warningHeader(result.warnings));
      }
      if (representation.kind === 'partial') {
        const list = { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: result.metadata, items: result.items.map((i) => partialObjectMetadata(i.object)) };
        return writeBody(res, 200, 'application/json', JSON.stringify(list));
      }
      const items = result.items.map(({ object, entry }) => serialize(object, entry));
      const head = `{"kind":${JSON.stringify(result.kind)},"apiVersion":${JSON.stringify(result.apiVersion)},"metadata":${meta},"items":[`;
      if (representation.kind === 'yaml') return writeBody(res, 200, 'application/yaml', YAML.stringify(JSON.parse(`${head}${items.join(',')}]}`)));
      return writeBody(res, 200, 'application/json', jsonArrayBytes(head, items, ']}'), warningHeader(result.warnings));
    }
    case 'stream': {
      if (!result.start) {
        res.writeHead(204, { 'Cache-Control': 'no-cache, private' });
        res.end();
        return;
      }
      // Headers go out at once (StreamObject flushes them), then the body chunk by chunk.
      res.writeHead(200, { 'Content-Type': result.contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
      const stop = result.start({
        write: (text) => {
          if (res.destroyed || res.writableEnded) return false;
          if (text) res.write(text);
          return true;
        },
        end: () => {
          if (!res.writableEnded) res.end();
        },
      });
      res.once('close', stop);
      return;
    }
    case 'watch': {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
      let headersSent = false;
      const includeObject = parseIncludeObject(query.get('includeObject'));
      const encode = (event: WatchEvent): Buffer => {
        if (representation.kind === 'table' && event.type !== 'ERROR' && event.type !== 'BOOKMARK') {
          const table = buildTable(def, [event.object as KubeObject], {}, { includeObject, noHeaders: headersSent, now: ctx.clock() });
          headersSent = true;
          return Buffer.from(`${JSON.stringify({ type: event.type, object: { ...table, apiVersion: representation.apiVersion } })}\n`);
        }
        return event.encoded ? event.encoded() : Buffer.from(`${JSON.stringify({ type: event.type, object: event.object })}\n`);
      };
      // Events go out in batches: one write per watcher every couple of milliseconds instead of one
      // per event keeps fan-out to many watchers cheap, for a small, bounded delay. A batch is also
      // written by the next event once it is due, because under load one turn of the event loop
      // (every request that arrived meanwhile) can take far longer than the timer. The event buffers
      // are shared by every watcher (never concatenated per watcher), so what watchers have not read
      // yet costs one copy of each event, not one per watcher.
      let pending: Buffer[] = [];
      let batchStart = 0;
      let behind: NodeJS.Timeout | undefined;
      let closing = false;
      // The initial events (a watch from no resourceVersion lists first) go out at the client's pace, as
      // the real server sends them: only what comes after counts against the budget.
      let initialBytes = Infinity;
      const closeBehind = (): void => {
        if (closing) return;
        closing = true;
        stop();
        pending = [];
        clearTimeout(behind);
        // What was sent before still reaches a client that reads, then the end of the stream.
        if (!res.writableEnded) res.end();
        // A client that does not read keeps the rest in the socket's buffer: the connection goes, with it.
        const { socket } = req;
        setTimeout(() => {
          if (socket.writableLength > 0) socket.destroy();
        }, watchBudgetMs).unref();
      };
      const checkBacklog = (): void => {
        const backlog = res.writableLength - initialBytes;
        if (backlog > watchBacklogLimitBytes) return closeBehind();
        if (backlog <= watchBacklogBytes) {
          clearTimeout(behind);
          behind = undefined;
        } else {
          behind ??= setTimeout(() => {
            if (res.writableLength - initialBytes > watchBacklogBytes) closeBehind();
            else behind = undefined;
          }, watchBudgetMs).unref();
        }
      };
      const flush = (): void => {
        if (pending.length && !res.destroyed && !res.writableEnded) {
          // One chunk per event, the socket corked around them: one system call for the batch. (Corking the
          // response instead would gather them into one chunk, but Node 24.21's uncork of a chunked response
          // throws when no write had a callback.)
          const { socket } = req;
          socket.cork();
          for (const chunk of pending) res.write(chunk);
          socket.uncork();
          checkBacklog();
        }
        pending = [];
      };
      const stop = result.start({
        send: (event) => {
          if (closing || res.destroyed || res.writableEnded) return false;
          const now = performance.now();
          if (!pending.length) {
            batchStart = now;
            setTimeout(flush, watchBatchMs);
          }
          pending.push(encode(event));
          if (now - batchStart >= watchBatchMs) flush();
          return !closing;
        },
        end: () => {
          flush();
          clearTimeout(behind);
          if (!res.writableEnded) res.end();
        },
      });
      flush();
      initialBytes = res.writableLength;
      res.once('close', () => clearTimeout(behind));
      req.socket.once('close', stop);
      res.once('close', stop);
      return;
    }
  }
}
