// An HTTP proxy in front of an API server that forwards every request, or, for the requests a test picks,
// holds them open without ever answering: an API server that hangs.

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
  close(): Promise<void>;
}

export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const agent = new http.Agent({ keepAlive: true });
  let matches: ((req: http.IncomingMessage) => boolean) | undefined;
  let held = 0;
  let open = 0;
  const server = http.createServer((req, res) => {
    if (matches?.(req)) {
      held++;
      open++;
      res.on('close', () => open--);
      return;
    }
    const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
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
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      agent.destroy();
    },
  };
}
