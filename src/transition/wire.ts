// The webhook-rule wire format, pure: the first request body, response parsing with clear errors,
// the poll URL, and caBundle decoding. The HTTP client in webhook/ sends what these build.

import { X509Certificate } from 'node:crypto';
import type { Pod } from '../api/kube.ts';
import {
  DEFAULT_POLL_QUERY_KEY,
  EMPTY_CA_BUNDLE,
  WEBHOOK_RESOURCE_API_VERSION,
  type PollResponse,
  type TransitionRule,
  type WebhookRequest,
  type WebhookResource,
  type WebhookResponse,
} from '../api/podtransitionrule.ts';
import type { EffectivePoll } from './defaults.ts';
import { parameterValue, ParameterError } from './parameters.ts';

/**
 * The first request for `podNames` (sorted by the caller). Throws ParameterError as
 * `<key> failed to parse parameter, <reason>` when a parameter cannot be read for some pod.
 */
export function buildWebhookRequest(
  rule: TransitionRule,
  ruleKey: string,
  podNames: readonly string[],
  pods: ReadonlyMap<string, Pod>,
  traceId: string,
): WebhookRequest {
  const parameters = rule.webhook?.parameters ?? [];
  const resources = podNames.map((name): WebhookResource => {
    const resource: WebhookResource = { apiVersion: WEBHOOK_RESOURCE_API_VERSION, kind: 'Pod', name };
    if (parameters.length === 0) return resource;
    const values = new Map<string, string>();
    const pod = pods.get(name) as Pod;
    for (const parameter of parameters) {
      try {
        values.set(parameter.key ?? '', parameterValue(parameter, pod));
      } catch (err) {
        if (err instanceof ParameterError) throw new ParameterError(`${ruleKey} failed to parse parameter, ${err.message}`);
        throw err;
      }
    }
    // fromEntries, not assignment: a parameter named `__proto__` is a key like any other.
    resource.parameters = Object.fromEntries([...values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return resource;
  });
  return { traceId, ruleName: rule.name ?? '', ...(rule.stage != null ? { stage: rule.stage } : {}), resources };
}

/** `<poll.url>?<rawQueryKey or task-id>=<taskId>`; `&` when the URL already has a query; key and ID URL-encoded. */
export function pollUrl(poll: EffectivePoll, taskId: string): string {
  const key = poll.rawQueryKey !== '' ? poll.rawQueryKey : DEFAULT_POLL_QUERY_KEY;
  const separator = poll.url.includes('?') ? '&' : '?';
  return `${poll.url}${separator}${encodeURIComponent(key)}=${encodeURIComponent(taskId)}`;
}

export class ResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResponseError';
  }
}

type Field = 'boolean' | 'string' | 'strings';

function readObject(json: unknown, fields: Record<string, Field>): Record<string, unknown> {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new ResponseError('the response must be a JSON object');
  const source = json as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(fields)) {
    const value = source[name];
    if (value == null) continue;
    const ok = kind === 'strings' ? Array.isArray(value) && value.every((v) => typeof v === 'string') : typeof value === kind;
    if (!ok) throw new ResponseError(`"${name}" must be ${kind === 'strings' ? 'a list of strings' : `a ${kind}`}`);
    out[name] = value;
  }
  return out;
}

/** A first-request answer; missing fields take Go's zero values. Throws ResponseError on a wrong shape. */
export function parseWebhookResponse(json: unknown): WebhookResponse {
  const r = readObject(json, { success: 'boolean', message: 'string', finishedNames: 'strings', poll: 'boolean', async: 'boolean', traceId: 'string', taskId: 'string' });
  return {
    success: (r.success as boolean | undefined) ?? false,
    message: (r.message as string | undefined) ?? '',
    ...(r.finishedNames !== undefined ? { finishedNames: r.finishedNames as string[] } : {}),
    poll: (r.poll as boolean | undefined) ?? false,
    async: (r.async as boolean | undefined) ?? false,
    traceId: (r.traceId as string | undefined) ?? '',
    taskId: (r.taskId as string | undefined) ?? '',
  };
}

/** A poll answer; missing fields take Go's zero values. Throws ResponseError on a wrong shape. */
export function parsePollResponse(json: unknown): PollResponse {
  const r = readObject(json, { success: 'boolean', message: 'string', finished: 'boolean', finishedNames: 'strings', stop: 'boolean' });
  return {
    success: (r.success as boolean | undefined) ?? false,
    message: (r.message as string | undefined) ?? '',
    finished: (r.finished as boolean | undefined) ?? false,
    ...(r.finishedNames !== undefined ? { finishedNames: r.finishedNames as string[] } : {}),
    stop: (r.stop as boolean | undefined) ?? false,
  };
}

/** A response asks for polling with `poll`, or the deprecated `async`. */
export const wantsPolling = (response: WebhookResponse): boolean => response.poll || response.async;

/** The task of a polling response: `taskId`, else `traceId` (async servers); "" when not polling. */
export const responseTaskId = (response: WebhookResponse): string =>
  wantsPolling(response) ? (response.taskId !== '' ? response.taskId : response.traceId) : '';

export class CaBundleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CaBundleError';
  }
}

const PEM_BLOCK = /-----BEGIN ([^-\r\n]+)-----\r?\n([\s\S]*?)-----END \1-----/;
const excerpt = (text: string, max = 200): string => (text.length > max ? `${text.slice(0, max)}...` : text);

/**
 * The PEM trust roots of a caBundle (base64 of PEM), or undefined for "system roots" (empty or `Cg==`).
 * Throws CaBundleError with upstream's messages when it is not base64 of a PEM certificate.
 */
export function caBundlePem(caBundle: string | undefined): string | undefined {
  if (caBundle == null || caBundle === '' || caBundle === EMPTY_CA_BUNDLE) return undefined;
  const text = strictBase64(caBundle);
  const block = PEM_BLOCK.exec(text);
  if (!block) throw new CaBundleError(`failed to parse CABundle PEM, ${excerpt(text)}`);
  try {
    new X509Certificate(block[0]);
  } catch (err) {
    throw new CaBundleError(`failed to parse CABundle certificate, ${(err as Error).message}`);
  }
  return text;
}

/** Go's base64.StdEncoding: padding required, line breaks skipped, anything else is an error. */
function strictBase64(value: string): string {
  const compact = value.replace(/[\r\n]/g, '');
  const bad = compact.search(/[^A-Za-z0-9+/=]/);
  const padding = compact.indexOf('=');
  const malformed = bad >= 0 ? bad : compact.length % 4 !== 0 ? compact.length - (compact.length % 4) : padding >= 0 && !/^={1,2}$/.test(compact.slice(padding)) ? padding : -1;
  if (malformed >= 0) throw new CaBundleError(`illegal base64 data at input byte ${malformed}`);
  return Buffer.from(compact, 'base64').toString('utf8');
}
