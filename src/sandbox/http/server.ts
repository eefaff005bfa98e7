// The HTTP(S) front of the sandbox API server: routing, body decoding, content negotiation and the
// wire encodings (JSON, YAML, Tables, chunked watch streams). Everything that is API semantics
// happens in the request pipeline (../apiserver/handle.ts), which in-process clients share.

import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import YAML from 'yaml';
import type { UserInfo } from '../apiserver/admission.ts';
import type { ServerContext } from '../apiserver/context.ts';
import { handleRequest } from '../apiserver/handle.ts';
import type { ApiRequest, ApiResult, Verb, WatchEvent } from '../apiserver/request.ts';
import { notFoundPath } from '../apiserver/status.ts';
import type { DiscoveryDocuments } from '../discovery/documents.ts';
import { serverVersion } from '../discovery/documents.ts';
import { badRequestStatus, failure, internalErrorStatus, StatusError, type Status } from '../errors.ts';
import type { KubeObject } from '../meta/object.ts';
import type { OpenApiDocuments } from '../openapi/documents.ts';
import { goJsonSyntaxError } from '../patch/index.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import { serialize } from '../storage/store.ts';
import { buildTable, parseIncludeObject, partialObjectMetadata } from '../tables/table.ts';
import { duplicateKeys } from './duplicate-keys.ts';
import { negotiate, notAcceptableBody, type Representation } from './negotiation.ts';
import { decodeProtobufObject } from './protobuf.ts';
import { routePath, type ResourcePath } from './router.ts';

/** Every request acts as a cluster admin (the sandbox does not authenticate). */
export const sandboxAdmin: UserInfo = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };

const maxBodyBytes = 3 * 1024 * 1024;
const watchBatchMs = 2;

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
      if (!res.headersSent) writeStatus(res, toStatus(err), err instanceof StatusError ? err.warnings : []);
      else res.destroy();
    });
  };
  const server: Server = options.tls
    ? (createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, listener) as unknown as Server)
    : createHttpServer({ keepAlive: true }, listener);
  server.keepAliveTimeout = 60_000;
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

function writeStatus(res: ServerResponse, status: Status, warnings: readonly string[] = []): void {
  writeBody(res, status.code, 'application/json', JSON.stringify(status), warningHeader(warnings));
}

/** One `Warning` header with every warning, as the real server combines them (each text once, none empty). */
function warningHeader(warnings: readonly string[]): Record<string, string> {
  const distinct = [...new Set(warnings.filter((w) => w !== ''))];
  if (!distinct.length) return {};
  return { Warning: distinct.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        reject(new StatusError(failure(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728', {})));
        req.destroy();
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
  const url = new URL(req.url ?? '/', 'http://sandbox');
  const path = url.pathname;
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
      serveOther(ctx, openapi, path, url, req, res);
      return;
    case 'resource':
      await serveResource(ctx, discovery, route, url, req, res);
      return;
  }
}

function serveOther(ctx: ServerContext, openapi: OpenApiDocuments, path: string, url: URL, req: IncomingMessage, res: ServerResponse): void {
  if (path === '/version') return writeBody(res, 200, 'application/json', JSON.stringify(serverVersion));
  if (path === '/metrics') return writeBody(res, 200, 'text/plain; version=0.0.4; charset=utf-8', ctx.writes.exposition());
  if (path === '/healthz' || path === '/livez' || path === '/readyz') return writeBody(res, 200, 'text/plain; charset=utf-8', 'ok');
  if (path === '/openapi/v2') return writeBody(res, 200, 'application/json', openapi.v2());
  if (path === '/openapi/v3') return writeBody(res, 200, 'text/plain; charset=utf-8', openapi.v3Index());
  if (path.startsWith('/openapi/v3/')) {
    const doc = openapi.v3(path.slice('/openapi/v3/'.length));
    if (!doc) return writeBody(res, 404, 'text/plain; charset=utf-8', '404 page not found\n');
    const hash = url.searchParams.get('hash');
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
  void req;
  writeBody(res, 404, 'text/plain; charset=utf-8', '404 page not found\n');
}

function verbOf(method: string, route: ResourcePath, url: URL): Verb | undefined {
  const watchParam = url.searchParams.get('watch');
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

/** Decodes a JSON, YAML or protobuf object body (create, update, delete options). */
function decodeBody(raw: Buffer, contentType: string, def: ResourceDefinition, required: boolean): unknown {
  const text = raw.toString('utf8');
  if (!text.trim()) {
    if (!required) return undefined;
    throw new StatusError(
      badRequestStatus(`the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; json parse error: unexpected end of JSON input`),
    );
  }
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType === 'application/vnd.kubernetes.protobuf') return decodeProtobufObject(raw, def.kind);
  if (mediaType === 'application/yaml') {
    try {
      return YAML.parse(text) as unknown;
    } catch (err) {
      throw new StatusError(badRequestStatus(`error decoding YAML: ${(err as Error).message.split('\n')[0] ?? ''}`));
    }
  }
  if (mediaType && mediaType !== 'application/json' && mediaType !== '*/*') {
    throw new StatusError(
      failure(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
        {},
      ),
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const why = goJsonSyntaxError(raw) ?? 'unexpected end of JSON input';
    throw new StatusError(
      badRequestStatus(`the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; json parse error: ${why} (${text.slice(0, 60)})`),
    );
  }
}

async function serveResource(
  ctx: ServerContext,
  discovery: DiscoveryDocuments,
  route: ResourcePath,
  url: URL,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const def = ctx.registry.get(route.group, route.version, route.resource);
  if (!def || route.extra || (route.namespace !== undefined && !def.namespaced)) {
    if (route.group && !discovery.group(route.group)) return writeBody(res, 404, 'text/plain; charset=utf-8', '404 page not found\n');
    return writeStatus(res, notFoundPath().status);
  }
  const method = req.method ?? 'GET';
  const verb = verbOf(method, route, url);
  if (!verb || !def.verbs.includes(verb === 'watch' && route.name ? 'watch' : verb)) {
    return writeStatus(res, failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));
  }
  const representation = negotiate(req.headers.accept, false);
  if (!representation) return writeBody(res, 406, 'text/plain; charset=utf-8', notAcceptableBody);
  const contentType = String(req.headers['content-type'] ?? '');
  const raw = verb === 'get' || verb === 'list' || verb === 'watch' ? Buffer.alloc(0) : await readBody(req);
  let body: unknown;
  let duplicateFields: string[] | undefined;
  if (verb === 'patch') body = raw;
  else if (verb === 'create' || verb === 'update') {
    body = decodeBody(raw, contentType, def, true);
    const isJson = !/^application\/(yaml|vnd\.kubernetes\.protobuf)/i.test(contentType);
    if (isJson && url.searchParams.get('fieldValidation') !== 'Ignore' && raw.includes(0x22)) {
      const dups = duplicateKeys(raw.toString('utf8'));
      if (dups.length) duplicateFields = dups;
    }
  } else if (verb === 'delete' || verb === 'deletecollection') body = decodeBody(raw, contentType, def, false);

  const apiRequest: ApiRequest = {
    verb,
    def,
    subresource: route.subresource,
    namespace: def.namespaced ? route.namespace : undefined,
    name: route.name,
    query: url.searchParams,
    body,
    patchType: verb === 'patch' ? contentType : undefined,
    user: sandboxAdmin,
    userAgent: req.headers['user-agent'],
    ...(duplicateFields ? { duplicateFields } : {}),
  };
  const result = await handleRequest(ctx, apiRequest);
  writeResult(ctx, def, representation, url, req, res, result);
}

function encodeObject(def: ResourceDefinition, representation: Representation, url: URL, now: number, object: KubeObject, json: () => string): [string, string] {
  switch (representation.kind) {
    case 'table': {
      const meta = object.metadata.resourceVersion ? { resourceVersion: object.metadata.resourceVersion } : {};
      const table = buildTable(def, [object], meta, { includeObject: parseIncludeObject(url.searchParams.get('includeObject')), noHeaders: false, now });
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
  url: URL,
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
      const [type, body] = encodeObject(def, representation, url, now, object, json);
      return writeBody(res, result.code, type, body, warningHeader(result.warnings));
    }
    case 'list': {
      const meta = JSON.stringify(result.metadata);
      if (representation.kind === 'table') {
        const table = buildTable(
          def,
          result.items.map((i) => i.object),
          result.metadata,
          { includeObject: parseIncludeObject(url.searchParams.get('includeObject')), noHeaders: false, now },
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
    case 'watch': {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
      let headersSent = false;
      const includeObject = parseIncludeObject(url.searchParams.get('includeObject'));
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
      // (every request that arrived meanwhile) can take far longer than the timer.
      let pending: Buffer[] = [];
      let batchStart = 0;
      const flush = (): void => {
        if (pending.length && !res.destroyed && !res.writableEnded) res.write(pending.length === 1 ? pending[0] : Buffer.concat(pending));
        pending = [];
      };
      const stop = result.start({
        send: (event) => {
          if (res.destroyed || res.writableEnded) return false;
          const now = performance.now();
          if (!pending.length) {
            batchStart = now;
            setTimeout(flush, watchBatchMs);
          }
          pending.push(encode(event));
          if (now - batchStart >= watchBatchMs) flush();
          return true;
        },
        end: () => {
          flush();
          if (!res.writableEnded) res.end();
        },
      });
      req.socket.once('close', stop);
      res.once('close', stop);
      return;
    }
  }
}
