// The operator's small HTTP endpoints: Prometheus metrics, and liveness/readiness probes with named checks
// (controller-runtime serves them on :8080/metrics and :8081/healthz|readyz).

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { requestPath, requestQuery, ServerConnections } from './server-connections.ts';

export type Check = () => boolean | Promise<boolean>;

export interface ProbeServerOptions {
  /** `host:port`, `:port`, or `0` to disable. */
  address: string;
  healthChecks?: Record<string, Check>;
  readyChecks?: Record<string, Check>;
  registry?: Registry;
}

export interface RunningServer {
  /** The actual `host:port` (useful with port 0). */
  address: string;
  close(): Promise<void>;
}

export function parseBindAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = colon > 0 ? address.slice(0, colon) : '0.0.0.0';
  const port = Number(colon >= 0 ? address.slice(colon + 1) : address);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid bind address "${address}": expected host:port or :port`);
  return { host, port };
}

async function runChecks(checks: Record<string, Check>): Promise<{ ok: boolean; lines: string[] }> {
  const lines: string[] = [];
  let ok = true;
  for (const [name, check] of Object.entries(checks)) {
    const passed = await Promise.resolve()
      .then(check)
      .catch(() => false);
    ok &&= passed;
    lines.push(`[${passed ? '+' : '-'}]${name} ${passed ? 'ok' : 'failed'}`);
  }
  return { ok, lines };
}

/** Serves `/metrics`, `/healthz` and `/readyz` (each probe also answers `/healthz/<check>`). */
export async function startProbeServer(options: ProbeServerOptions): Promise<RunningServer> {
  const { host, port } = parseBindAddress(options.address);
  const server: Server = createServer((req, res) => {
    answer(options, req.url).then(
      ({ code, contentType, body }) => {
        res.writeHead(code, { 'Content-Type': contentType });
        res.end(body);
      },
      () => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('internal error\n');
      },
    );
  });
  const connections = new ServerConnections(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const bound = server.address() as AddressInfo;
  return {
    address: `${bound.address}:${bound.port}`,
    close: () => connections.close(server, 1000),
  };
}

interface Answer {
  code: number;
  contentType: string;
  body: string;
}

const text = (code: number, body: string): Answer => ({ code, contentType: 'text/plain; charset=utf-8', body });

async function answer(options: ProbeServerOptions, target: string | undefined): Promise<Answer> {
  const path = requestPath(target);
  if (path === undefined) return text(400, 'malformed request target\n');
  if (path === '/metrics' && options.registry) return { code: 200, contentType: options.registry.contentType, body: await options.registry.metrics() };
  for (const [prefix, checks] of [['/healthz', options.healthChecks], ['/readyz', options.readyChecks]] as const) {
    if (!checks || (path !== prefix && !path.startsWith(`${prefix}/`))) continue;
    const only = path.slice(prefix.length + 1);
    const selected = only ? Object.fromEntries(Object.entries(checks).filter(([n]) => n === only)) : checks;
    if (only && Object.keys(selected).length === 0) break;
    const { ok, lines } = await runChecks(selected);
    const verbose = requestQuery(target).has('verbose') || !ok;
    return text(ok ? 200 : 500, verbose ? `${lines.join('\n')}\n${prefix.slice(1)} check ${ok ? 'passed' : 'failed'}\n` : 'ok');
  }
  return text(404, '404 page not found\n');
}
