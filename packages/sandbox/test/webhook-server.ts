// Test webhook servers for the admission webhook conformance tests: a throwaway CA (the sandbox's own CA
// maker), serving (and client) certificates signed by it, and an HTTPS server on 127.0.0.1 that records
// every AdmissionReview it receives and answers through a handler chosen by the request path; given a
// client CA, it requires a client certificate signed by it.

import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import * as x509 from '@peculiar/x509';
import { createCertificateAuthority as createAuthority, servingExtensions } from '../src/tls/certificates.ts';

export interface CertificateAuthority {
  /** PEM of the CA certificate. */
  certificate: string;
  /** base64 of the PEM, as `clientConfig.caBundle` carries it. */
  caBundle: string;
  issue(hosts: readonly string[]): Promise<{ cert: string; key: string }>;
  /** A client certificate (extended key usage clientAuth) for `commonName`. */
  issueClient(commonName: string): Promise<{ cert: string; key: string }>;
}

export async function createCertificateAuthority(commonName: string): Promise<CertificateAuthority> {
  const ca = await createAuthority(commonName, 30);
  return {
    certificate: ca.certificate,
    caBundle: Buffer.from(ca.certificate).toString('base64'),
    issue: (hosts) => ca.sign('CN=webhook', servingExtensions(hosts)),
    issueClient: (name) => ca.sign(`CN=${name}`, [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])]),
  };
}

/** One request a webhook server received. */
export interface ReceivedReview {
  path: string;
  /** The query string, e.g. `?timeout=10s`. */
  query: string;
  headers: IncomingHttpHeaders;
  /** The common name of the client certificate presented, if any. */
  clientName: string | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  review: any;
}

/** What a handler answers: an AdmissionReview response (uid and envelope filled in), or raw HTTP. */
export type WebhookAnswer = ReviewAnswer | RawAnswer;

export interface RawAnswer {
  raw: { status: number; contentType?: string; body: string };
  delayMs?: number;
}

export interface ReviewAnswer {
  allowed: boolean;
  patch?: unknown[];
  patchType?: string;
  status?: Record<string, unknown>;
  warnings?: string[];
  /** Overrides of the response envelope (e.g. no apiVersion). */
  envelope?: Record<string, unknown>;
  /** A uid other than the request's. */
  uid?: string;
  delayMs?: number;
}

const isRaw = (answer: WebhookAnswer): answer is RawAnswer => 'raw' in answer;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WebhookHandler = (review: any, received: ReceivedReview) => WebhookAnswer;

export interface WebhookServer {
  /** `https://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  /** Everything received, in order. */
  readonly received: ReceivedReview[];
  /** TLS connections accepted so far. */
  readonly connections: number;
  /** Answers requests to `path` with `handler` (unknown paths are allowed without change). */
  handle(path: string, handler: WebhookHandler): void;
  /** The reviews received on one path. */
  reviews(path: string): ReceivedReview[];
  close(): Promise<void>;
}

export async function startWebhookServer(tls: { cert: string; key: string; clientCa?: string }): Promise<WebhookServer> {
  const handlers = new Map<string, WebhookHandler>();
  const received: ReceivedReview[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const clientAuth = tls.clientCa ? { requestCert: true, rejectUnauthorized: true, ca: tls.clientCa } : {};
  const server: Server = createServer({ cert: tls.cert, key: tls.key, ...clientAuth }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://localhost');
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const clientName = (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
      const entry: ReceivedReview = { path: url.pathname, query: url.search, headers: req.headers, clientName: String(clientName ?? '') || undefined, review };
      received.push(entry);
      const answer: WebhookAnswer = (handlers.get(url.pathname) ?? (() => ({ allowed: true })))(review, entry);
      const reply = (): void => {
        if (isRaw(answer)) {
          res.writeHead(answer.raw.status, { 'Content-Type': answer.raw.contentType ?? 'application/json' });
          res.end(answer.raw.body);
          return;
        }
        const response: Record<string, unknown> = { uid: answer.uid ?? review.request.uid, allowed: answer.allowed };
        if (answer.status) response.status = answer.status;
        if (answer.patch) {
          response.patchType = answer.patchType ?? 'JSONPatch';
          response.patch = Buffer.from(JSON.stringify(answer.patch)).toString('base64');
        } else if (answer.patchType) response.patchType = answer.patchType;
        if (answer.warnings) response.warnings = answer.warnings;
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response, ...answer.envelope }));
      };
      if (!answer.delayMs) return reply();
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) reply();
      }, answer.delayMs);
      timers.add(timer);
    });
  });
  let connections = 0;
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    received,
    get connections() {
      return connections;
    },
    handle: (path, handler) => void handlers.set(path, handler),
    reviews: (path) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
