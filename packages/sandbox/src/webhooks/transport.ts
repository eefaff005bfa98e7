// One POST of an AdmissionReview to a webhook, as kube-apiserver's webhook client sends it: HTTPS
// only (HTTP/1.1), the caBundle as the only trust root, the client certificate the admission
// configuration names for the host (./client-credentials.ts), the headers of a real call, a deadline of
// timeoutSeconds for the whole exchange (announced as `?timeout=Ns`), and failures worded as Go's
// net/http and client-go word them (`Post "URL": dial tcp ...: connect: connection refused`,
// `context deadline exceeded`, `an error on the server (...) has prevented the request from succeeding`).

import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import type { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, createSecureContext, type SecureContext } from 'node:tls';
import { isJsonObject } from '../meta/object.ts';
import type { ClientCertificate } from './client-credentials.ts';
import { bundleCertificates, verifyServerCertificate } from './tls-verification.ts';

/** Where one webhook call goes. */
export interface WebhookTarget {
  /** The URL as the real server prints it in errors, e.g. `https://svc.ns.svc:443/mutate?timeout=10s`. */
  url: string;
  /** The address actually dialled (a Service's mapped address, or the URL's host). */
  dialHost: string;
  dialPort: number;
  /** The name the certificate must be valid for (the URL's host, or `<service>.<namespace>.svc`). */
  serverName: string;
  /** The request target: path and query. */
  path: string;
  /** The Host header: the URL's authority. */
  hostHeader: string;
  /** PEM trust roots; undefined trusts the system's roots. */
  caBundle: string | undefined;
  /** The name the webhook kubeconfig's users are matched against: `<service>.<namespace>.svc:<port>`, or the URL's host and port. */
  hostPort: string;
  /** Presented in the handshake when the server asks for one. */
  clientCertificate?: ClientCertificate;
}

/** A failure to get a usable answer; `message` is the reason after "failed to call webhook: ". */
export class WebhookTransportError extends Error {
  override readonly name = 'WebhookTransportError';
}

export interface WebhookReply {
  body: Buffer;
  contentType: string;
}

const userAgent = 'kube-apiserver-admission';

/** crypto/tls's names of the alerts OpenSSL calls otherwise (the rest are OpenSSL's, lowercased). */
const goAlertNames: Readonly<Record<string, string>> = {
  UNKNOWN_CA: 'unknown certificate authority',
  CERTIFICATE_REVOKED: 'revoked certificate',
  CERTIFICATE_EXPIRED: 'expired certificate',
  CERTIFICATE_UNKNOWN: 'unknown certificate',
  DECRYPT_ERROR: 'error decrypting message',
  DECODE_ERROR: 'error decoding message',
  PROTOCOL_VERSION: 'protocol version not supported',
  INSUFFICIENT_SECURITY: 'insufficient security level',
  BAD_RECORD_MAC: 'bad record MAC',
};

/** A TLS alert the webhook sent (a client certificate it refused, or none when it requires one), as Go's `remote error`. */
function remoteAlert(code: string | undefined): string | undefined {
  const alert = /^ERR_SSL_(?:SSLV3|TLSV1|TLSV13)_ALERT_(.+)$/.exec(code ?? '')?.[1];
  return alert && `remote error: tls: ${goAlertNames[alert] ?? alert.toLowerCase().replaceAll('_', ' ')}`;
}

/** Go's dial error for a connect failure (Node's error carries the address tried). */
function dialFailure(err: NodeJS.ErrnoException & { address?: string; port?: number }, target: WebhookTarget): string {
  const address = err.address ?? target.dialHost;
  const hostPort = `${isIP(address) === 6 ? `[${address}]` : address}:${err.port ?? target.dialPort}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${hostPort}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${hostPort}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${hostPort}: connect: network is unreachable`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${target.dialHost}: no such host`;
    case 'ECONNRESET':
    case 'EPIPE':
      return 'EOF';
    default:
      if (/wrong version number|packet length too long|http request/i.test(err.message)) return 'http: server gave HTTP response to HTTPS client';
      return remoteAlert(err.code) ?? err.message;
  }
}

/** client-go's error for a response outside 200-206 (a Status body is used as is). */
function statusCodeFailure(code: number, contentType: string, body: Buffer): string {
  if (/json/.test(contentType)) {
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (isJsonObject(parsed) && parsed.kind === 'Status' && parsed.status === 'Failure' && typeof parsed.message === 'string') return parsed.message;
    } catch {
      // not a Status: the generic message below
    }
  }
  const isText = contentType === '' || contentType.startsWith('text/');
  const serverMessage = isText ? body.subarray(0, 1024).toString('utf8').trim() : 'unknown';
  const fixed: Record<number, string> = {
    400: 'the server rejected our request for an unknown reason',
    401: 'the server has asked for the client to provide credentials',
    404: 'the server could not find the requested resource',
    405: 'the server does not allow this method on the requested resource',
    409: 'the server reported a conflict',
    422: 'the server rejected our request due to an error in our request',
    429: 'the server has received too many requests and has asked us to try again later',
    504: 'the server was unable to return a response in the time allotted, but may still be processing the request',
  };
  if (code === 403) return serverMessage;
  if (fixed[code]) return fixed[code];
  if (code >= 500) return `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
  return `the server responded with the status code ${code} but did not return more information`;
}

/**
 * A keep-alive agent per trust configuration, as kube-apiserver caches one client (and so one pool of
 * idle connections) per webhook: a connection is verified once, when dialled, and reused after that.
 */
class VerifyingAgent extends Agent {
  readonly #target: WebhookTarget;
  readonly #roots: X509Certificate[] | undefined;
  /** Made once: a webhook under load dials many connections, and each would otherwise load the roots anew. */
  readonly #context: SecureContext;

  constructor(target: WebhookTarget, roots: X509Certificate[] | undefined) {
    // Go's transport keeps idle connections for 90 s, and kube-apiserver's clients at most 25 idle per host
    // (utilnet.SetTransportDefaults); the rest are closed when a burst of calls ends.
    super({ keepAlive: true, timeout: 90_000, maxFreeSockets: 25 });
    this.#target = target;
    this.#roots = roots;
    this.#context = createSecureContext({ ...(roots ? { ca: roots.map((c) => c.toString()) } : {}), ...(target.clientCertificate ?? {}) });
  }

  override createConnection(_options: unknown, done: (err: Error | null, socket?: Duplex) => void): undefined {
    const target = this.#target;
    const socket = tlsConnect({
      host: target.dialHost,
      port: target.dialPort,
      ...(isIP(target.serverName) ? {} : { servername: target.serverName }),
      secureContext: this.#context,
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    });
    const fail = (err: Error): void => {
      socket.destroy();
      done(err);
    };
    socket.once('error', (err) => fail(new WebhookTransportError(`Post ${JSON.stringify(target.url)}: ${dialFailure(err, target)}`)));
    socket.once('secureConnect', () => {
      const problem = verifyServerCertificate(socket, target.serverName, this.#roots ?? [], Date.now());
      if (problem) fail(new WebhookTransportError(`Post ${JSON.stringify(target.url)}: ${problem}`));
      else done(null, socket);
    });
    return undefined;
  }
}

const agents = new Map<string, VerifyingAgent>();
const maxAgents = 64;

/** The agent for the target's TLS configuration; its caBundle is parsed once, when the agent is made. */
function agentFor(target: WebhookTarget): VerifyingAgent {
  const key = JSON.stringify([target.dialHost, target.dialPort, target.serverName, target.caBundle ?? null, target.clientCertificate?.cert ?? null]);
  let agent = agents.get(key);
  if (agent) agents.delete(key);
  else {
    const roots = target.caBundle === undefined ? undefined : bundleCertificates(target.caBundle);
    if (roots && roots.length === 0) {
      throw new WebhookTransportError('could not get REST client: unable to load root certificates: unable to parse bytes as PEM block');
    }
    // The least recently used agent is dropped; its idle connections close on their own timeout.
    if (agents.size >= maxAgents) agents.delete(agents.keys().next().value as string);
    agent = new VerifyingAgent(target, roots);
  }
  agents.set(key, agent);
  return agent;
}

function exchange(agent: VerifyingAgent, target: WebhookTarget, body: string, signal: AbortSignal): Promise<WebhookReply> {
  return new Promise((resolve, reject) => {
    let response: IncomingMessage | undefined;
    const req = httpRequest({
      method: 'POST',
      path: target.path,
      agent,
      headers: {
        Host: target.hostHeader,
        'User-Agent': userAgent,
        'Content-Type': 'application/json',
        Accept: 'application/json, */*',
        'Content-Length': String(Buffer.byteLength(body)),
      },
    });
    const onAbort = (): void => {
      // The deadline covers dialling and reading the body too; client-go words the latter differently.
      const reason = response
        ? 'unexpected error when reading response body. Please retry. Original error: context deadline exceeded'
        : `Post ${JSON.stringify(target.url)}: context deadline exceeded`;
      req.destroy();
      reject(new WebhookTransportError(reason));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    req.once('error', (err: NodeJS.ErrnoException) => {
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) return;
      reject(err instanceof WebhookTransportError ? err : new WebhookTransportError(`Post ${JSON.stringify(target.url)}: ${dialFailure(err, target)}`));
    });
    req.once('response', (res) => {
      response = res;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => {
        signal.removeEventListener('abort', onAbort);
        const contentType = String(res.headers['content-type'] ?? '');
        const data = Buffer.concat(chunks);
        const code = res.statusCode ?? 0;
        if (code < 200 || code > 206) reject(new WebhookTransportError(statusCodeFailure(code, contentType, data)));
        else resolve({ body: data, contentType: contentType || 'application/json' });
      });
    });
    req.end(body);
  });
}

/** POSTs `body` to the webhook within `timeoutSeconds`. Rejects with a WebhookTransportError. */
export async function postReview(target: WebhookTarget, body: string, timeoutSeconds: number): Promise<WebhookReply> {
  return exchange(agentFor(target), target, body, AbortSignal.timeout(timeoutSeconds * 1000));
}
