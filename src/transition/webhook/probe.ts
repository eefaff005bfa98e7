// Admission-time reachability of webhook-rule servers: a TCP connect to host:port. Upstream rejects the
// rule when it fails; podops only warns, since the server may simply not be deployed yet.
//
// The probe runs inside an admission review, on input from whoever may write rules, so it is bounded: only
// URLs the write adds are probed, each endpoint once, at most MAX_PROBED_ENDPOINTS endpoints per write (all
// at once, so as many sockets at most), each within the timeout. What a warning tells (whether a port
// answers) is no more than the rule's own status tells once its webhook is called.

import net from 'node:net';
import type { PodTransitionRule } from '../../api/podtransitionrule.ts';
import { urlProblem } from '../validate.ts';

export const DEFAULT_PROBE_TIMEOUT_MS = 5000;
/** Endpoints (host:port) probed per write at most; the rest are named in one warning. */
export const MAX_PROBED_ENDPOINTS = 8;

/** Why `host:port` cannot be connected to, or undefined when it can. */
export type EndpointProbe = (host: string, port: number, timeoutMs: number) => Promise<string | undefined>;

export const connectProbe: EndpointProbe = (host, port, timeoutMs) =>
  new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (problem: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(problem);
    };
    const timer = setTimeout(() => done(`dial tcp ${host}:${port}: i/o timeout after ${timeoutMs}ms`), timeoutMs);
    socket.once('connect', () => done(undefined));
    socket.once('error', (err) => done(err.message));
  });

/** The host and port a URL connects to (port 80 for http, 443 otherwise). */
function endpointOf(url: string): { host: string; port: number } {
  const target = new URL(url);
  return { host: target.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(target.port || (target.protocol === 'http:' ? 80 : 443)) };
}

/** Why the URL's endpoint cannot be connected to, or undefined when it can. */
export function probeServer(url: string, timeoutMs = DEFAULT_PROBE_TIMEOUT_MS, probe: EndpointProbe = connectProbe): Promise<string | undefined> {
  const { host, port } = endpointOf(url);
  return probe(host, port, timeoutMs);
}

/** `[field path, url]` of every webhook and poll URL of the rule that parses. */
function ruleUrls(ptr: PodTransitionRule | undefined): [string, string][] {
  const urls: [string, string][] = [];
  for (const rule of ptr?.spec?.rules ?? []) {
    const config = rule.webhook?.clientConfig;
    const candidates: [string, string | undefined][] = [
      [`spec.rule.${rule.name ?? ''}.clientConfig.url`, config?.url],
      [`spec.rule.${rule.name ?? ''}.clientConfig.poll.url`, config?.poll?.url],
    ];
    for (const [path, url] of candidates) if (url != null && url !== '' && urlProblem(url) === undefined) urls.push([path, url]);
  }
  return urls;
}

export interface ReachabilityOptions {
  timeoutMs?: number;
  /** The rule before this write: URLs it already had are not probed again. */
  previous?: PodTransitionRule;
  probe?: EndpointProbe;
}

/** One admission warning per webhook or poll URL the write adds that cannot be reached; URLs that do not parse are validation's business. */
export async function reachabilityWarnings(ptr: PodTransitionRule, options: ReachabilityOptions = {}): Promise<string[]> {
  const known = new Set(ruleUrls(options.previous).map(([, url]) => url));
  const pathsByEndpoint = new Map<string, { host: string; port: number; paths: string[] }>();
  for (const [path, url] of ruleUrls(ptr)) {
    if (known.has(url)) continue;
    const { host, port } = endpointOf(url);
    const key = `${host}:${port}`;
    const entry = pathsByEndpoint.get(key) ?? { host, port, paths: [] };
    entry.paths.push(path);
    pathsByEndpoint.set(key, entry);
  }
  const endpoints = [...pathsByEndpoint.values()];
  const probed = endpoints.slice(0, MAX_PROBED_ENDPOINTS);
  const probe = options.probe ?? connectProbe;
  const problems = await Promise.all(probed.map(({ host, port }) => probe(host, port, options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS)));
  const warnings = probed.flatMap(({ paths }, i) => {
    const problem = problems[i];
    return problem === undefined ? [] : paths.map((path) => `${path}: podtransitionrule validate webhook failed, check server reachable, while server unreachable, error: ${problem}`);
  });
  const skipped = endpoints.length - probed.length;
  if (skipped > 0) warnings.push(`the reachability of ${skipped} more webhook endpoint${skipped === 1 ? '' : 's'} was not checked (at most ${MAX_PROBED_ENDPOINTS} per write)`);
  return warnings;
}
