// The HTTP(S) client of webhook rules: one request per call (no connection reuse, so a broken server
// cannot hold pooled sockets), the rule's caBundle as the only trust root, a deadline for the whole
// exchange (a slow drip counts), and a cap on the response size.

import http from 'node:http';
import https from 'node:https';
import type { PollResponse, WebhookRequest, WebhookResponse } from '../../api/podtransitionrule.ts';
import { caBundlePem, CaBundleError, parsePollResponse, parseWebhookResponse, ResponseError } from '../wire.ts';

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
/** How much of a bad response body goes into an error (reject reasons land in the rule's status). */
const BODY_EXCERPT_CHARS = 256;

export interface RequestOptions {
  /** Deadline of the whole exchange, from connect to the last byte. Default 30 s. */
  timeoutMs?: number;
  /** Larger responses fail. Default 1 MiB. */
  maxResponseBytes?: number;
  signal?: AbortSignal;
}

/** A call that produced no usable answer: transport, TLS, deadline, status, size or body. */
export class WebhookCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookCallError';
  }
}

/** The first request: POST the body as JSON to the rule's URL. */
export async function sendWebhookRequest(url: string, caBundle: string, body: WebhookRequest, options: RequestOptions = {}): Promise<WebhookResponse> {
  const { json, text } = await exchange('POST', url, caBundle, JSON.stringify(body), options);
  return parsed(() => parseWebhookResponse(json), text);
}

/** One poll: GET the poll URL (task ID already in its query). */
export async function sendPollRequest(url: string, caBundle: string, options: RequestOptions = {}): Promise<PollResponse> {
  const { json, text } = await exchange('GET', url, caBundle, undefined, options);
  return parsed(() => parsePollResponse(json), text);
}

/** Certificate checks that fail because nothing among the trust roots signed the server's certificate. */
const UNTRUSTED_CERTIFICATE_CODES = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
]);

/**
 * A transport failure in the words of this protocol: a certificate problem names the trust root that was
 * used (the rule's caBundle, or the system's roots when it is empty), never Node's advice about its flags.
 */
function transportProblem(err: NodeJS.ErrnoException & { reason?: string }, host: string, withCaBundle: boolean): string {
  const roots = withCaBundle ? "the rule's caBundle" : 'the system trust roots (the rule has no caBundle)';
  const code = err.code ?? '';
  if (UNTRUSTED_CERTIFICATE_CODES.has(code)) return `x509: the certificate of ${host} is not signed by ${roots} (${code})`;
  if (code === 'CERT_HAS_EXPIRED') return `x509: the certificate of ${host} has expired`;
  if (code === 'CERT_NOT_YET_VALID') return `x509: the certificate of ${host} is not valid yet`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `x509: the certificate is not valid for ${host}: ${err.reason ?? err.message}`;
  return err.message;
}

const excerpt = (text: string): string => (text.length > BODY_EXCERPT_CHARS ? `${text.slice(0, BODY_EXCERPT_CHARS)}...(truncated)` : text);

function parsed<T>(parse: () => T, text: string): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ResponseError) throw new WebhookCallError(`invalid response: ${err.message}, response: ${excerpt(text)}`);
    throw err;
  }
}

async function exchange(method: 'GET' | 'POST', url: string, caBundle: string, body: string | undefined, options: RequestOptions): Promise<{ json: unknown; text: string }> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new WebhookCallError(`invalid URL ${JSON.stringify(url)}`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new WebhookCallError(`unsupported URL scheme ${target.protocol} in ${url}`);
  let ca: string | undefined;
  try {
    ca = caBundlePem(caBundle);
  } catch (err) {
    if (err instanceof CaBundleError) throw new WebhookCallError(`invalid caBundle: ${err.message}`);
    throw err;
  }
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  if (body !== undefined) headers['Content-Length'] = Buffer.byteLength(body);

  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, value?: { json: unknown; text: string }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error) {
        request.destroy();
        reject(error instanceof WebhookCallError ? error : new WebhookCallError(error.message));
      } else {
        resolve(value as { json: unknown; text: string });
      }
    };
    const onAbort = (): void => finish(new WebhookCallError('request aborted'));
    const requestOptions: https.RequestOptions = { method, headers, agent: false, ...(ca !== undefined ? { ca } : {}) };
    const request = (target.protocol === 'https:' ? https : http).request(target, requestOptions, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) finish(new WebhookCallError(`response body exceeds ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      response.on('error', (err) => finish(err));
      response.on('close', () => finish(new WebhookCallError('connection closed before the response ended')));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = response.statusCode ?? 0;
        if (status < 200 || status > 299) {
          finish(new WebhookCallError(`failed by response status code: ${status}, body: ${excerpt(text)}`));
          return;
        }
        try {
          finish(undefined, { json: JSON.parse(text), text });
        } catch (err) {
          finish(new WebhookCallError(`invalid JSON in response: ${(err as Error).message}, response: ${excerpt(text)}`));
        }
      });
    });
    const timer = setTimeout(() => finish(new WebhookCallError(`request timed out after ${timeoutMs}ms`)), timeoutMs);
    request.on('error', (err) => finish(new WebhookCallError(transportProblem(err, target.host, ca !== undefined))));
    if (options.signal?.aborted) {
      onAbort();
      return;
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
    request.end(body);
  });
}
