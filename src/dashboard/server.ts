// The dashboard's HTTP server: the page and its files, the live stream (Server-Sent Events: a snapshot, then each
// update the hub sends), and one pod's full inspect report. Read-only, bound to 127.0.0.1 unless told otherwise; a
// bad request gets a 4xx with the reason and never ends the process.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pod } from '../api/kube.ts';
import { formatPodReport } from '../lifecycle/explain-text.ts';
import type { KubeClient } from '../kube/client.ts';
import { silentLogger, type Logger } from '../kube/log.ts';
import { explainPod } from '../lifecycle/explain.ts';
import { contentSecurityPolicy, loadAssets, type Asset } from './assets.ts';
import { DashboardHub } from './hub.ts';

export interface DashboardOptions {
  client: KubeClient;
  /** The namespace to show; all when undefined. */
  namespace: string | undefined;
  /** Default 127.0.0.1. */
  address?: string;
  /** Default 3100; 0 picks a free one. */
  port?: number;
  logger?: Logger;
}

export interface Dashboard {
  url: string;
  hub: DashboardHub;
  /** Resolves once the signal aborted and everything is closed. */
  done: Promise<void>;
}

export const DEFAULT_DASHBOARD_PORT = 3100;

/**
 * Live streams at once. A page holds one; when a new one would pass the cap, the slowest is dropped (the most
 * unsent, else the newest: a browser that keeps opening streams drops its own), and an EventSource reconnects.
 */
export const MAX_STREAMS = 32;
/**
 * What a browser may leave unread beyond its snapshot: one that reads more slowly than updates come is dropped past
 * this, and reconnects to a fresh snapshot. It bounds the memory one client can hold (32 streams, 32 MiB plus their
 * snapshots, at most).
 */
export const MAX_UNREAD_BYTES = 1024 * 1024;
const KEEPALIVE_MS = 15_000;

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** The Host headers a page on this machine sends; others are refused so no web site can read the dashboard (DNS rebinding). */
function allowedHosts(address: string, port: number): Set<string> | undefined {
  if (!LOOPBACK.has(address) && !address.startsWith('127.')) return undefined;
  return new Set([`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `${address.includes(':') ? `[${address}]` : address}:${port}`]);
}

function send(res: http.ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(`${text}\n`);
}

function serveAsset(req: http.IncomingMessage, res: http.ServerResponse, asset: Asset, csp: string): void {
  const headers: http.OutgoingHttpHeaders = {
    'content-type': asset.contentType,
    'cache-control': 'no-cache',
    etag: asset.etag,
    'x-content-type-options': 'nosniff',
    'content-security-policy': csp,
    vary: 'accept-encoding',
  };
  if (req.headers['if-none-match'] === asset.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
  const body = gzip ? asset.gzip : asset.body;
  res.writeHead(200, { ...headers, 'content-length': body.length, ...(gzip && { 'content-encoding': 'gzip' }) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The live streams of one dashboard, with when each opened. */
type Streams = Map<http.ServerResponse, number>;

/** The stream to drop for a new one: the most unsent, else the newest. */
function slowest(streams: Streams): http.ServerResponse | undefined {
  let chosen: [http.ServerResponse, number] | undefined;
  for (const entry of streams) {
    const [res, opened] = entry;
    if (!chosen || res.writableLength > chosen[0].writableLength || (res.writableLength === chosen[0].writableLength && opened > chosen[1])) chosen = entry;
  }
  return chosen?.[0];
}

function stream(res: http.ServerResponse, hub: DashboardHub, streams: Streams): void {
  while (streams.size >= MAX_STREAMS) {
    const dropped = slowest(streams) as http.ServerResponse;
    streams.delete(dropped);
    dropped.destroy();
  }
  streams.set(res, performance.now());
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.write('retry: 2000\n\n');
  // Set once the snapshot is written: what the browser has not read of it, and MAX_UNREAD_BYTES more.
  let limit = Infinity;
  const send = (text: string): void => {
    if (res.writableLength > limit) res.destroy();
    else res.write(text);
  };
  const unsubscribe = hub.subscribe((event, json) => send(`event: ${event}\ndata: ${json}\n\n`));
  limit = res.writableLength + MAX_UNREAD_BYTES;
  const keepalive = setInterval(() => send(': keep-alive\n\n'), KEEPALIVE_MS);
  res.on('close', () => {
    streams.delete(res);
    unsubscribe();
    clearInterval(keepalive);
  });
}

function inspect(res: http.ServerResponse, url: URL, hub: DashboardHub): void {
  const namespace = url.searchParams.get('namespace');
  const name = url.searchParams.get('name');
  if (!namespace || !name) return send(res, 400, 'inspect needs ?namespace=NS&name=POD');
  const pod: Pod | undefined = hub.pod(namespace, name);
  // Quoted: the names come from the request, and a terminal (curl) may show this answer.
  if (!pod) return send(res, 404, `no controlled pod ${JSON.stringify(`${namespace}/${name}`)} (deleted, or not labelled for PodOpsLifecycle)`);
  const body = JSON.stringify({
    namespace,
    name,
    text: formatPodReport(explainPod(pod), Date.now()),
    node: pod.spec?.nodeName,
    podPhase: pod.status?.phase,
    labels: pod.metadata.labels ?? {},
    annotations: pod.metadata.annotations ?? {},
    finalizers: pod.metadata.finalizers ?? [],
    conditions: (pod.status?.conditions ?? []).map(({ type, status, reason, message }) => ({ type, status, reason, message })),
  });
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

/** Starts watching and serving; rejects when the address cannot be bound (e.g. EADDRINUSE). */
export async function startDashboard(options: DashboardOptions, signal: AbortSignal): Promise<Dashboard> {
  const log = (options.logger ?? silentLogger()).child({ component: 'dashboard' });
  const assets = loadAssets();
  const csp = contentSecurityPolicy(assets.get('/') as Asset);
  const hub = new DashboardHub({ client: options.client, namespace: options.namespace, logger: log });
  const address = options.address ?? '127.0.0.1';
  const server = http.createServer();
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_DASHBOARD_PORT, address, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const hosts = allowedHosts(address, port);
  const streams: Streams = new Map();
  // Answered once the address is known (its URL is not out before this function returns).
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    try {
      if (hosts && !hosts.has(req.headers.host ?? '')) return send(res, 403, `unexpected Host header ${JSON.stringify(req.headers.host ?? '')}: open the dashboard by its own address`);
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'the dashboard is read-only: GET only');
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://dashboard');
      } catch {
        return send(res, 400, 'malformed request URL');
      }
      if (url.pathname === '/api/stream') return stream(res, hub, streams);
      if (url.pathname === '/api/pod') return inspect(res, url, hub);
      const asset = assets.get(url.pathname);
      if (asset) return serveAsset(req, res, asset, csp);
      send(res, 404, `not found: ${url.pathname}`);
    } catch (err) {
      log.error({ err }, 'dashboard request failed');
      if (!res.headersSent) send(res, 500, 'internal error');
      else res.destroy();
    }
  });
  const running = hub.run(signal);
  const done = new Promise<void>((resolve) => {
    const stop = (): void => {
      server.closeAllConnections();
      server.close(() => void running.then(() => resolve()));
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
  const host = address.includes(':') ? `[${address}]` : address === '0.0.0.0' ? '127.0.0.1' : address;
  return { url: `http://${host}:${port}/`, hub, done };
}
