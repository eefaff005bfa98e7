// HTTPS helpers for tests: generated certificates for 127.0.0.1 and a JSON POST that trusts a given CA.

import { Agent, request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { generateCA, generateServing, type ServingBundle } from '../../src/webhook/certificates.ts';

export async function localCertificates(hosts = ['127.0.0.1', 'localhost']): Promise<ServingBundle> {
  const ca = await generateCA('test-ca', 30, Date.now());
  return { ca, serving: await generateServing(ca, hosts, 30, Date.now()) };
}

export interface HttpsAnswer {
  status: number;
  text: string;
  peerCertificate: string;
}

export function post(address: string, path: string, body: string, ca: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }, method = 'POST'): Promise<HttpsAnswer> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const req = request({ host: host === '0.0.0.0' ? '127.0.0.1' : host, port: Number(port), path, method, ca, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), peerCertificate: (res.socket as TLSSocket).getPeerCertificate().fingerprint256 }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * POSTs every body over a few kept-alive connections (as the API server's webhook client does), `connections`
 * requests at a time; resolves with the HTTP status of each.
 */
export async function postAll(address: string, path: string, bodies: readonly string[], ca: string, connections = 8): Promise<number[]> {
  const [host, port] = address.split(':');
  const agent = new Agent({ keepAlive: true, maxSockets: connections, ca });
  const statuses: number[] = new Array<number>(bodies.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < bodies.length; i = next++) {
      statuses[i] = await new Promise<number>((resolve, reject) => {
        const req = request({ host, port: Number(port), path, method: 'POST', agent, headers: { 'Content-Type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(bodies[i]);
      });
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    agent.destroy();
  }
  return statuses;
}
