// An HTTP proxy in front of an API server that forwards every request, or, for the requests a test picks,
// holds them open without ever answering (an API server that hangs), forwards them but answers late, or
// refuses them as RBAC would (403). It records every request it gets.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingProxy {
  /** Base URL of the proxy. */
  readonly url: string;
  /** Requests held so far, and how many of them the client has not closed yet. */
  readonly held: number;
  readonly open: number;
  /** Holds the requests `matches` picks from now on; forwards all of them again without one. */
  hold(matches?: (req: http.IncomingMessage) => boolean): void;
  /** Forwards the requests `matches` picks at once but passes their answers on only `ms` later; none without one. */
  delay(ms: number, matches?: (req: http.IncomingMessage) => boolean): void;
  /** Requests delayed so far. */
  readonly delayed: number;
  /** Answers the requests `matches` picks with kube-apiserver's 403 Forbidden from now on; none without one. */
  forbid(matches?: (req: http.IncomingMessage) => boolean): void;
  /** Every request so far, as `METHOD url`. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const agent = new http.Agent({ keepAlive: true });
  let matches: ((req: http.IncomingMessage) => boolean) | undefined;
  let forbidden: ((req: http.IncomingMessage) => boolean) | undefined;
  let slow: { ms: number; matches: (req: http.IncomingMessage) => boolean } | undefined;
  let delayed = 0;
  const requests: string[] = [];
  let held = 0;
  let open = 0;
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (forbidden?.(req)) {
      const url = new URL(req.url ?? '/', target);
      const resource = url.pathname.split('/').at(-1);
      const verb = url.searchParams.get('watch') ? 'watch' : 'list';
      const message = `${resource} is forbidden: User "test" cannot ${verb} resource "${resource}"`;
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message }));
      return;
    }
    if (matches?.(req)) {
      held++;
      open++;
      res.on('close', () => open--);
      return;
    }
    const lateBy = slow?.matches(req) ? (delayed++, slow.ms) : 0;
    const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers, agent }, (answer) => {
      const passOn = (): void => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        // A watch's headers come before any event, as from the API server itself.
        res.flushHeaders();
        answer.pipe(res);
      };
      if (lateBy) setTimeout(passOn, lateBy);
      else passOn();
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get held() {
      return held;
    },
    get open() {
      return open;
    },
    hold(picks) {
      matches = picks;
    },
    delay(ms, picks) {
      slow = picks && { ms, matches: picks };
    },
    get delayed() {
      return delayed;
    },
    forbid(picks) {
      forbidden = picks;
    },
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      agent.destroy();
    },
  };
}
