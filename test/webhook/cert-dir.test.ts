// `podops operator --cert-dir DIR`: the operator serves tls.crt/tls.key from DIR and picks up replaced files
// (cert-manager renews them in place) for new connections, without a restart.

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { describe, test } from 'node:test';
import { podTransitionRuleCRD } from '../../src/api/podtransitionrule.ts';
import { silentLogger } from '../../src/kube/log.ts';
import { CUSTOM_RESOURCE_DEFINITIONS } from '../../src/kube/resources.ts';
import { startOperator } from '../../src/operator/operator.ts';
import type { ServingBundle } from '../../src/webhook/certificates.ts';
import { useSandboxClient } from '../support/sandbox-client.ts';
import { localCertificates } from '../support/tls.ts';
import { until } from '../support/wait.ts';

/** The fingerprint of the certificate a new TLS connection to `address` is served, verified against `ca`. */
function servedFingerprint(address: string, ca: string): Promise<string> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port: Number(port), ca, servername: 'localhost' }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

/** Replaces the files as a renewal would: each is written aside and renamed over the old one. */
async function install(dir: string, bundle: ServingBundle): Promise<void> {
  await writeFile(join(dir, 'tls.key.new'), bundle.serving.key);
  await writeFile(join(dir, 'tls.crt.new'), bundle.serving.cert);
  await rename(join(dir, 'tls.key.new'), join(dir, 'tls.key'));
  await rename(join(dir, 'tls.crt.new'), join(dir, 'tls.crt'));
}

describe('--cert-dir', () => {
  const env = useSandboxClient();

  test('serves the directory certificate and reloads it when the files are replaced', { timeout: 60_000 }, async () => {
    await env.client.create(CUSTOM_RESOURCE_DEFINITIONS, podTransitionRuleCRD() as never);
    const dir = await mkdtemp(join(tmpdir(), 'podops-cert-dir-'));
    const first = await localCertificates();
    await install(dir, first);
    const abort = new AbortController();
    const operator = startOperator(
      {
        client: env.client,
        namespace: 'default',
        featureGates: { GraceDeleteWebhook: false, GracefulEviction: true },
        leaderElect: false,
        webhook: { host: '127.0.0.1', port: 0, certDir: dir, hosts: [], secretName: 'unused' },
        metricsAddress: '0',
        probeAddress: '0',
        logger: silentLogger(),
      },
      abort.signal,
    );
    try {
      const address = await operator.webhookAddress;
      assert.equal(await servedFingerprint(address, first.ca.cert), new X509Certificate(first.serving.cert).fingerprint256);

      const renewed = await localCertificates();
      await install(dir, renewed);
      // The directory is watched (and polled every 10 s where changes go unreported): wait for a new
      // connection to be served the renewed certificate, well before the next poll.
      const expected = new X509Certificate(renewed.serving.cert).fingerprint256;
      await until(() => servedFingerprint(address, renewed.ca.cert), (seen) => seen === expected, 'new connections to get the renewed certificate', 5_000);
      await assert.rejects(servedFingerprint(address, first.ca.cert), 'the old CA no longer verifies what is served');
    } finally {
      abort.abort();
      await operator.done;
    }
  });
});
