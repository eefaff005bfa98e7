// Admission-time reachability of webhook-rule servers: a TCP connect to host:port. Upstream rejects the
// rule when it fails; podops only warns, since the server may simply not be deployed yet.
//
// The probe runs inside an admission review, on input from whoever may write rules (or forge a review), so
// it is bounded: only URLs the write adds are probed, each endpoint once, at most MAX_PROBED_ENDPOINTS
// endpoints per write, at most MAX_CONCURRENT_PROBES in the whole process, each within the timeout (waiting
// for a turn included). And it tells nothing about podops' own surroundings: a name is resolved first and
// an address on podops' own host (loopback) or link-local (the node's metadata service) is not probed, unless
// loopback is the cluster's network (podops runs beside its API server on one host, as `podops up`). What a
// warning tells otherwise (whether a port answers) is no more than the rule's own status tells once its
// webhook is called.

import { lookup } from 'node:dns/promises';
import net from 'node:net';
import type { PodTransitionRule } from '../../api/podtransitionrule.ts';
import { urlProblem } from '../validate.ts';
import { Slots } from './slots.ts';

export const DEFAULT_PROBE_TIMEOUT_MS = 5000;
/** Endpoints (host:port) probed per write at most; the rest are named in one warning. */
export const MAX_PROBED_ENDPOINTS = 8;
/** Probes under way in the process at most, whatever the number of reviews at once. */
const MAX_CONCURRENT_PROBES = 32;
const processProbes = new Slots(MAX_CONCURRENT_PROBES, 'concurrent probes');

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

/** Resolves a host name to its addresses (an address resolves to itself). */
export type Resolver = (host: string) => Promise<string[]>;

const lookupAll: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

function blockList(ipv4: [string, number][], ipv6: [string, number][]): net.BlockList {
  const list = new net.BlockList();
  for (const [network, prefix] of ipv4) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of ipv6) list.addSubnet(network, prefix, 'ipv6');
  return list;
}

/** podops' own host: loopback and unspecified (a BlockList matches IPv4-mapped IPv6 forms too). */
const LOOPBACK = blockList([['127.0.0.0', 8], ['0.0.0.0', 8]], [['::1', 128], ['::', 128]]);
/** The node's: link-local, where the metadata services are, and AWS's IPv6 metadata address (a unique-local one). */
const LINK_LOCAL = blockList([['169.254.0.0', 16]], [['fe80::', 10], ['fd00:ec2::254', 128]]);

/** Whether the address is on podops' own host (loopback, unspecified) or the node's link-local network. */
function privateToPodops(address: string): 'loopback' | 'link-local' | undefined {
  const family = net.isIPv4(address) ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(address, family)) return 'loopback';
  if (LINK_LOCAL.check(address, family)) return 'link-local';
  return undefined;
}

/** The host and port a URL connects to (port 80 for http, 443 otherwise). */
function endpointOf(url: string): { host: string; port: number } {
  const target = new URL(url);
  return { host: target.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(target.port || (target.protocol === 'http:' ? 80 : 443)) };
}

/** Whether the API server at this URL is on podops' own host: then loopback is the cluster's network. */
export function serverOnLoopback(server: string): boolean {
  const host = new URL(server).hostname.replace(/^\[(.*)\]$/, '$1');
  return host === 'localhost' || privateToPodops(host) === 'loopback';
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
  resolve?: Resolver;
  /** Loopback addresses are the cluster's network (podops beside its API server on one host), so they are probed. */
  loopbackIsCluster?: boolean;
  /** The process's probe slots (tests give their own). */
  slots?: Slots;
}

type ProbeOutcome = { problem: string | undefined } | { notProbed: string };

/** Resolves, refuses addresses private to podops, waits for a slot and probes, all within the timeout. */
async function probeEndpoint(host: string, port: number, options: ReachabilityOptions): Promise<ProbeOutcome> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const deadline = performance.now() + timeoutMs;
  const timedOut = (ms: number) => new Promise<'timeout'>((resolve) => setTimeout(resolve, ms, 'timeout').unref());
  let addresses: string[];
  try {
    const resolved = await Promise.race([(options.resolve ?? lookupAll)(host), timedOut(timeoutMs)]);
    if (resolved === 'timeout') return { problem: `lookup ${host}: no answer within ${timeoutMs}ms` };
    addresses = resolved;
  } catch (err) {
    return { problem: (err as Error).message };
  }
  const address = addresses[0];
  if (address === undefined) return { problem: `lookup ${host}: no address` };
  for (const candidate of addresses) {
    const kind = privateToPodops(candidate);
    if (kind === 'link-local' || (kind === 'loopback' && !options.loopbackIsCluster)) {
      return { notProbed: `${host} is a ${kind} address, which from podops is ${kind === 'loopback' ? "podops' own pod" : "the node's link-local network"}` };
    }
  }
  const slots = options.slots ?? processProbes;
  const slot = slots.acquire();
  const turn = await Promise.race([slot, timedOut(deadline - performance.now())]);
  if (turn !== true) {
    // A turn that comes after all is handed on at once.
    if (turn === 'timeout') void slot.then((granted) => granted && slots.release());
    return { notProbed: "too many probes were under way in podops" };
  }
  try {
    // The address resolved and checked above, not the name again: a second lookup could answer otherwise.
    return { problem: await (options.probe ?? connectProbe)(address, port, Math.max(1, Math.round(deadline - performance.now()))) };
  } finally {
    slots.release();
  }
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
  const outcomes = await Promise.all(probed.map(({ host, port }) => probeEndpoint(host, port, options)));
  const warnings = probed.flatMap(({ paths }, i) => {
    const outcome = outcomes[i]!;
    if ('notProbed' in outcome) return paths.map((path) => `${path}: the reachability was not checked: ${outcome.notProbed}`);
    return outcome.problem === undefined ? [] : paths.map((path) => `${path}: podtransitionrule validate webhook failed, check server reachable, while server unreachable, error: ${outcome.problem}`);
  });
  const skipped = endpoints.length - probed.length;
  if (skipped > 0) warnings.push(`the reachability of ${skipped} more webhook endpoint${skipped === 1 ? '' : 's'} was not checked (at most ${MAX_PROBED_ENDPOINTS} per write)`);
  return warnings;
}
