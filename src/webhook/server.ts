// The admission webhook server: HTTPS (TLS 1.2 or newer, AEAD cipher suites only) with certificates that can
// be swapped while serving (rotation), optionally verifying the API server's client certificate, one path
// per webhook, a request body limit, capped idle connections, and controller-runtime's webhook metrics.
// Anyone who can reach the port can send anything: no request may end the process, and nothing internal
// is written back.

import { createServer, type Server, type ServerOptions } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Counter, Gauge, Histogram, type Registry } from '../kube/prometheus.ts';
import { OTHER_LABEL_VALUE } from '../kube/bounded-label.ts';
import { silentLogger, type Logger } from '../kube/log.ts';
import { requestPath, ServerConnections, type ConnectionLimits } from '../kube/server-connections.ts';
import { InvalidReviewError, decodeReview, encodeReview, errored, type AdmissionRequest, type Verdict } from './admission.ts';

export interface WebhookRoute {
  /** URL path, e.g. `/mutating-generic`. */
  path: string;
  handle(request: AdmissionRequest): Verdict | Promise<Verdict>;
  /**
   * The `kind` label of the request's review metrics, from a fixed set (the kinds the route serves, `other` for the
   * rest): the request is anyone's text, and a label per distinct value would grow /metrics without bound.
   * Without it, every review of the route is counted as `other`.
   */
  kindLabel?(request: AdmissionRequest): string;
}


export interface ServingCertificate {
  cert: string;
  key: string;
}

/** Who may call the webhooks: clients presenting a certificate signed by `ca` (and named in `names`, when given). */
export interface ClientAuthentication {
  /** PEM bundle of the CA(s) that sign the API server's client certificate. */
  ca: string;
  /** Accepted common names or DNS SANs of the client certificate; empty accepts any the CA signed. */
  names?: readonly string[];
}

export interface WebhookServerOptions {
  host?: string;
  /** Default 9443 (controller-runtime's). */
  port?: number;
  certificate: ServingCertificate;
  /** Verify the caller's client certificate (mutual TLS); without it any client is served. */
  clientAuthentication?: ClientAuthentication;
  routes: WebhookRoute[];
  /**
   * AdmissionReview bodies above this are refused with 413. Default 7 MiB, controller-runtime's: a review of
   * an UPDATE carries the object twice, and the API server accepts objects of up to 3 MiB.
   */
  maxBodyBytes?: number;
  connections?: ConnectionLimits;
  /** How long a stop waits for reviews in flight before cutting their connections. Default 5 s. */
  shutdownGraceMs?: number;
  registry?: Registry;
  logger?: Logger;
}

const DEFAULT_MAX_BODY_BYTES = 7 * 1024 * 1024;

/**
 * TLS 1.3's suites and TLS 1.2's ECDHE suites with AEAD ciphers (what Go's client, kube-apiserver's,
 * prefers); no CBC or SHA-1 suites.
 */
export const AEAD_CIPHER_SUITES = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

function tlsOptions(certificate: ServingCertificate, client: ClientAuthentication | undefined): ServerOptions {
  return {
    ...certificate,
    minVersion: 'TLSv1.2',
    ciphers: AEAD_CIPHER_SUITES,
    honorCipherOrder: true,
    ...(client && { ca: client.ca, requestCert: true, rejectUnauthorized: true }),
  };
}

/** The names a client certificate stands for: its common name and its DNS SANs. */
function clientNames(socket: TLSSocket): string[] {
  const peer = socket.getPeerCertificate();
  const names = typeof peer.subject?.CN === 'string' ? [peer.subject.CN] : [];
  for (const entry of (peer.subjectaltname ?? '').split(', ')) if (entry.startsWith('DNS:')) names.push(entry.slice(4));
  return names;
}

class WebhookMetrics {
  readonly requests: Counter<'webhook' | 'code'>;
  readonly latency: Histogram<'webhook'>;
  readonly inFlight: Gauge<'webhook'>;
  readonly panics: Counter<never>;
  /** podops' own: latency by what was reviewed and how it was answered, which controller-runtime's lacks. */
  readonly reviews: Histogram<'webhook' | 'kind' | 'operation' | 'verdict'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.requests = (registry.getSingleMetric('controller_runtime_webhook_requests_total') as Counter<'webhook' | 'code'>) ??
      new Counter({ name: 'controller_runtime_webhook_requests_total', help: 'Total number of admission requests by HTTP status code.', labelNames: ['webhook', 'code'], registers });
    this.latency = (registry.getSingleMetric('controller_runtime_webhook_latency_seconds') as Histogram<'webhook'>) ??
      new Histogram({ name: 'controller_runtime_webhook_latency_seconds', help: 'Histogram of the latency of processing admission requests', labelNames: ['webhook'], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers });
    this.inFlight = (registry.getSingleMetric('controller_runtime_webhook_requests_in_flight') as Gauge<'webhook'>) ??
      new Gauge({ name: 'controller_runtime_webhook_requests_in_flight', help: 'Current number of admission requests being served.', labelNames: ['webhook'], registers });
    this.panics = (registry.getSingleMetric('controller_runtime_webhook_panics_total') as Counter<never>) ??
      new Counter({ name: 'controller_runtime_webhook_panics_total', help: 'Total number of webhook panics', registers });
    this.reviews = (registry.getSingleMetric('podops_admission_review_duration_seconds') as Histogram<'webhook' | 'kind' | 'operation' | 'verdict'>) ??
      new Histogram({
        name: 'podops_admission_review_duration_seconds',
        help: 'Time to answer an AdmissionReview, by webhook path, kind (with subresource; other for kinds the webhook does not serve), operation and verdict (allowed, patched, denied, error)',
        labelNames: ['webhook', 'kind', 'operation', 'verdict'],
        buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers,
      });
  }
}

class BodyTooLargeError extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Answer first, then drop the rest of the body (destroying now would hang up without an answer).
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLargeError(`request body larger than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export class WebhookServer {
  readonly #server: Server;
  readonly #options: WebhookServerOptions;
  readonly #routes: Map<string, WebhookRoute>;
  readonly #metrics: WebhookMetrics | undefined;
  readonly #log: Logger;
  readonly #connections: ServerConnections;

  constructor(options: WebhookServerOptions) {
    this.#options = options;
    this.#routes = new Map(options.routes.map((r) => [r.path, r]));
    this.#metrics = options.registry && new WebhookMetrics(options.registry);
    this.#log = (options.logger ?? silentLogger()).child({ component: 'webhook-server' });
    this.#server = createServer({ ...tlsOptions(options.certificate, options.clientAuthentication), handshakeTimeout: 10_000 }, (req, res) => {
      this.#serve(req, res).catch((err: unknown) => {
        // A fault of podops, never an answer to the input: log it, tell the caller nothing internal.
        this.#metrics?.panics.inc();
        this.#log.error({ err }, 'cannot serve the request');
        if (!res.headersSent) plain(res, 500, 'internal error, see the operator log\n');
        else res.destroy();
      });
    });
    this.#server.keepAliveTimeout = 65_000;
    this.#server.on('tlsClientError', (err) => this.#log.debug({ err }, 'TLS handshake failed'));
    this.#connections = new ServerConnections(this.#server, options.connections);
  }

  /** Listens; resolves with `host:port`. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#options.port ?? 9443, this.#options.host ?? '0.0.0.0', () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const { address, port } = this.#server.address() as AddressInfo;
    this.#log.info({ address, port }, 'serving admission webhooks');
    return `${address}:${port}`;
  }

  /** Serves new connections with a new certificate (rotation) without restarting. */
  setCertificate(certificate: ServingCertificate): void {
    this.#server.setSecureContext(tlsOptions(certificate, this.#options.clientAuthentication));
  }

  get listening(): boolean {
    return this.#server.listening;
  }

  /** Idle connections now open (capped by `connections.maxIdle`). */
  get idleConnections(): number {
    return this.#connections.idle;
  }

  /** Stops listening, answers the reviews in flight (for at most `shutdownGraceMs`) and closes every connection. */
  close(): Promise<void> {
    return this.#connections.close(this.#server, this.#options.shutdownGraceMs ?? 5000);
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = requestPath(req.url);
    if (path === undefined) {
      res.setHeader('Connection', 'close');
      return plain(res, 400, 'malformed request target\n');
    }
    const names = this.#options.clientAuthentication?.names ?? [];
    if (names.length > 0 && !clientNames(req.socket as TLSSocket).some((name) => names.includes(name))) {
      this.#log.warn({ client: clientNames(req.socket as TLSSocket), remote: req.socket.remoteAddress }, 'refused a client certificate not named in --webhook-client-names');
      return plain(res, 403, 'the client certificate is not one of the accepted API server names\n');
    }
    const route = this.#routes.get(path);
    if (!route) return plain(res, 404, `no webhook at ${path}\n`);
    if (req.method !== 'POST') return plain(res, 405, `${req.method} is not allowed: admission webhooks take POST\n`);
    const started = performance.now();
    this.#metrics?.inFlight.inc({ webhook: path });
    let code = 200;
    try {
      let body: string;
      try {
        body = await readBody(req, this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
      } catch (err) {
        code = err instanceof BodyTooLargeError ? 413 : 400;
        res.setHeader('Connection', 'close');
        return plain(res, code, `${(err as Error).message}\n`);
      }
      const contentType = req.headers['content-type'] ?? '';
      const respond = (apiVersion: string, uid: string, verdict: Verdict): void => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(encodeReview(apiVersion, uid, verdict));
      };
      if (!contentType.startsWith('application/json')) {
        return respond('admission.k8s.io/v1', '', errored(400, `contentType=${contentType || '<none>'}, expected application/json`));
      }
      let review: ReturnType<typeof decodeReview>;
      try {
        review = decodeReview(body);
      } catch (err) {
        if (!(err instanceof InvalidReviewError)) throw err;
        return respond('admission.k8s.io/v1', '', errored(400, `unable to decode the request: ${err.message}`));
      }
      let verdict: Verdict;
      try {
        verdict = await route.handle(review.request);
      } catch (err) {
        this.#metrics?.panics.inc();
        this.#log.error({ err, webhook: path, uid: review.request.uid }, 'webhook handler failed');
        verdict = errored(500, `internal error while reviewing the request (uid ${review.request.uid}), see the operator log`);
      }
      respond(review.apiVersion, review.request.uid, verdict);
      this.#metrics?.reviews.observe(
        { webhook: path, kind: route.kindLabel?.(review.request) ?? OTHER_LABEL_VALUE, operation: review.request.operation, verdict: verdictLabel(verdict) },
        (performance.now() - started) / 1000,
      );
    } finally {
      this.#metrics?.inFlight.dec({ webhook: path });
      this.#metrics?.requests.inc({ webhook: path, code: String(code) });
      this.#metrics?.latency.observe({ webhook: path }, (performance.now() - started) / 1000);
    }
  }
}

function verdictLabel(verdict: Verdict): string {
  if (verdict.allowed) return verdict.patch ? 'patched' : 'allowed';
  return verdict.status.code === 403 ? 'denied' : 'error';
}

function plain(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
