// Admission-time reachability of webhook-rule servers: a TCP connect to host:port. Upstream rejects the
// rule when it fails; podops only warns, since the server may simply not be deployed yet.

import net from 'node:net';
import type { PodTransitionRule } from '../../api/podtransitionrule.ts';
import { urlProblem } from '../validate.ts';

export const DEFAULT_PROBE_TIMEOUT_MS = 5000;

/** Why the URL's host:port (port 80 for http, 443 otherwise) cannot be connected to, or undefined when it can. */
export async function probeServer(url: string, timeoutMs = DEFAULT_PROBE_TIMEOUT_MS): Promise<string | undefined> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(target.port || (target.protocol === 'http:' ? 80 : 443));
  return new Promise((resolve) => {
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
}

/** One admission warning per webhook or poll URL of the rule that cannot be reached; URLs that do not parse are validation's business. */
export async function reachabilityWarnings(ptr: PodTransitionRule, timeoutMs = DEFAULT_PROBE_TIMEOUT_MS): Promise<string[]> {
  const probes: Promise<string | undefined>[] = [];
  for (const rule of ptr.spec?.rules ?? []) {
    const config = rule.webhook?.clientConfig;
    const urls: [string, string | undefined][] = [
      [`spec.rule.${rule.name ?? ''}.clientConfig.url`, config?.url],
      [`spec.rule.${rule.name ?? ''}.clientConfig.poll.url`, config?.poll?.url],
    ];
    for (const [path, url] of urls) {
      if (url == null || url === '' || urlProblem(url) !== undefined) continue;
      probes.push(
        probeServer(url, timeoutMs).then(
          (problem) =>
            problem === undefined ? undefined : `${path}: podtransitionrule validate webhook failed, check server reachable, while server unreachable, error: ${problem}`,
        ),
      );
    }
  }
  return (await Promise.all(probes)).filter((w): w is string => w !== undefined);
}
