// The certificates podops makes for its webhooks, read back by Node's X.509 parser and used in a TLS handshake.

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { connect, createServer } from 'node:tls';
import { generateCA, generateClientCertificate, generateServing, inspectCertificate } from './certificates.ts';

const NOW = Date.parse('2026-11-26T00:00:00Z');

test('a CA, a serving and a client certificate: constraints, names, usages, validity and issuer', async () => {
  const ca = await generateCA('podops-webhook-ca', 3650, NOW);
  const serving = await generateServing(ca, ['podops-webhook.podops-system.svc', '127.0.0.1', 'fd00::1'], 365, NOW);
  const client = await generateClientCertificate(ca, 'kube-apiserver', 30, NOW);
  const [caCert, servingCert, clientCert] = [ca, serving, client].map((pair) => new X509Certificate(pair.cert));
  assert.equal(caCert!.ca, true);
  assert.equal(caCert!.subject, 'CN=podops-webhook-ca');
  assert.equal(servingCert!.ca, false);
  assert.equal(servingCert!.issuer, 'CN=podops-webhook-ca');
  assert.equal(servingCert!.subjectAltName, 'DNS:podops-webhook.podops-system.svc, IP Address:127.0.0.1, IP Address:FD00:0:0:0:0:0:0:1');
  assert.deepEqual(servingCert!.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  assert.deepEqual(clientCert!.keyUsage, ['1.3.6.1.5.5.7.3.2']);
  assert.equal(clientCert!.subject, 'CN=kube-apiserver');
  assert.equal(Date.parse(servingCert!.validTo), NOW + 365 * 86_400_000);
  assert.equal(Date.parse(servingCert!.validFrom), NOW - 60_000);
  assert.ok(servingCert!.checkIssued(caCert!) && servingCert!.verify(caCert!.publicKey));
  const facts = inspectCertificate(serving.cert);
  assert.ok(facts.issuedBy(ca.cert));
  assert.equal(facts.issuedBy((await generateCA('another', 1, NOW)).cert), false);
});

test('TLS with them: the client trusting only the CA accepts the server, and the server accepts the client certificate', async () => {
  const now = Date.now();
  const ca = await generateCA('ca', 1, now);
  const serving = await generateServing(ca, ['127.0.0.1'], 1, now);
  const client = await generateClientCertificate(ca, 'kube-apiserver', 1, now);
  const server = createServer({ cert: serving.cert, key: serving.key, ca: ca.cert, requestCert: true, rejectUnauthorized: true }, (socket) => socket.end(String(socket.getPeerCertificate().subject.CN)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const socket = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, ca: ca.cert, cert: client.cert, key: client.key });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    await once(socket, 'end');
    assert.equal(Buffer.concat(chunks).toString(), 'kube-apiserver');
  } finally {
    server.close();
  }
});
