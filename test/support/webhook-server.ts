// podops' WebhookServer on 127.0.0.1, on a free port, with certificates of its own: started for one test, or for
// the tests of one describe block (listening before them, closed after).

import { after, before } from 'node:test';
import type { ServingBundle } from '../../src/webhook/certificates.ts';
import { WebhookServer, type WebhookServerOptions } from '../../src/webhook/server.ts';
import { localCertificates, post, type HttpsAnswer } from './tls.ts';

export type LocalServerOptions = Omit<WebhookServerOptions, 'host' | 'port' | 'certificate'>;

export interface LocalWebhookServer {
  readonly server: WebhookServer;
  /** The CA the server's certificate is signed by, and that certificate. */
  readonly certs: ServingBundle;
  /** `127.0.0.1:port`. */
  readonly address: string;
  /** A request to `path` that trusts the server's CA (a JSON POST unless told otherwise). */
  send(path: string, body: string, headers?: Record<string, string>, method?: string): Promise<HttpsAnswer>;
}

export async function startWebhookServer(options: LocalServerOptions): Promise<LocalWebhookServer> {
  const certs = await localCertificates();
  const server = new WebhookServer({ host: '127.0.0.1', port: 0, certificate: certs.serving, ...options });
  const address = await server.listen();
  return { server, certs, address, send: (path, body, headers, method) => post(address, path, body, certs.ca.cert, headers, method) };
}

/** The server of a describe block: `options` is read in its before(), which may first make what they need. */
export function useWebhookServer(options: () => LocalServerOptions | Promise<LocalServerOptions>): LocalWebhookServer {
  let started: LocalWebhookServer | undefined;
  before(async () => {
    started = await startWebhookServer(await options());
  });
  after(() => started?.server.close());
  const running = (): LocalWebhookServer => {
    if (!started) throw new Error('the webhook server starts in before()');
    return started;
  };
  return {
    get server() {
      return running().server;
    },
    get certs() {
      return running().certs;
    },
    get address() {
      return running().address;
    },
    send: (...args) => running().send(...args),
  };
}
