// Test support: a rule server on 127.0.0.1 (HTTP, or HTTPS with a certificate signed by a test CA), the
// CA as a caBundle, and requests recorded for assertions.

import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (request: RecordedRequest, response: http.ServerResponse) => void;

export interface RuleServer {
  /** `http(s)://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface TestPki {
  /** base64 of the CA's PEM: a caBundle. */
  caBundle: string;
  cert: string;
  key: string;
}

let pki: Promise<TestPki> | undefined;

/** A CA and a server certificate for 127.0.0.1 signed by it, made once per test process. */
export function testPki(): Promise<TestPki> {
  pki ??= makePki('podops test CA');
  return pki;
}

/** Another CA with its own server certificate: a server the test CA does not vouch for. */
export const otherPki = (): Promise<TestPki> => makePki('some other CA');

async function makePki(caName: string): Promise<TestPki> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 24 * 3600_000);
  const caKeys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${caName}`,
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: algorithm,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  const serverKeys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=127.0.0.1',
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: algorithm,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }])],
  });
  const key = x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', serverKeys.privateKey), 'PRIVATE KEY');
  return { caBundle: Buffer.from(ca.toString('pem')).toString('base64'), cert: server.toString('pem'), key };
}

/** Starts a server on 127.0.0.1, port 0. Handlers see the whole request body. */
export async function startRuleServer(handler: Handler, tls?: TestPki): Promise<RuleServer> {
  const requests: RecordedRequest[] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      handler(recorded, res);
    });
  };
  const server = tls ? https.createServer({ cert: tls.cert, key: tls.key }, listener) : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const json = (response: http.ServerResponse, body: unknown, status = 200): void => {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
};

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
