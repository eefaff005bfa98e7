import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { L, PERM, pod } from '../support/pods.ts';
import { localCertificates, post } from '../support/tls.ts';
import { genericRoute } from '../../src/webhook/dispatch.ts';
import { mutatePodLifecycle, validatePodLifecycle } from '../../src/webhook/pod-lifecycle.ts';
import { WebhookServer } from '../../src/webhook/server.ts';
import type { ServingBundle } from '../../src/webhook/certificates.ts';

const NOW = 1717505885197871195n;

function review(operation: string, object: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'b0b1-uid',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      name: 'web-0',
      namespace: 'default',
      operation,
      object,
      ...extra,
    },
  });
}

describe('webhook server with the pod lifecycle handlers', () => {
  let certs: ServingBundle;
  let server: WebhookServer;
  let address: string;
  const registry = new Registry();

  before(async () => {
    certs = await localCertificates();
    server = new WebhookServer({
      host: '127.0.0.1',
      port: 0,
      certificate: certs.serving,
      registry,
      maxBodyBytes: 64 * 1024,
      routes: [
        genericRoute('/mutating-generic', { Pod: [(r) => mutatePodLifecycle(r, () => NOW)], 'Pod/status': [(r) => mutatePodLifecycle(r, () => NOW)] }),
        genericRoute('/validating-generic', { Pod: [validatePodLifecycle] }),
        { path: '/broken', handle: () => { throw new Error('boom'); } },
      ],
    });
    address = await server.listen();
  });
  after(() => server.close());

  const send = (path: string, body: string, headers?: Record<string, string>) => post(address, path, body, certs.ca.cert, headers);
  const response = (text: string) => (JSON.parse(text) as { response: Record<string, unknown> }).response;

  test('CREATE of a controlled pod: allowed with a base64 JSON patch injecting the readiness gate', async () => {
    const answer = await send('/mutating-generic', review('CREATE', pod({ gate: false })));
    assert.equal(answer.status, 200);
    const body = JSON.parse(answer.text) as { apiVersion: string; kind: string; response: { uid: string; allowed: boolean; patchType: string; patch: string } };
    assert.equal(body.apiVersion, 'admission.k8s.io/v1');
    assert.equal(body.kind, 'AdmissionReview');
    assert.equal(body.response.uid, 'b0b1-uid');
    assert.equal(body.response.allowed, true);
    assert.equal(body.response.patchType, 'JSONPatch');
    assert.deepEqual(JSON.parse(Buffer.from(body.response.patch, 'base64').toString()), [
      { op: 'add', path: '/spec/readinessGates', value: [{ conditionType: 'pod.kusionstack.io/service-ready' }] },
    ]);
  });

  test('pods/status UPDATE goes through the same mutation; dry-run gets no patch', async () => {
    const labels = { [L('operating', 'a')]: '1', [L('operation-type', 'a')]: 'update' };
    const status = response((await send('/mutating-generic', review('UPDATE', pod({ labels }), { subResource: 'status', oldObject: pod({ labels }) }))).text);
    assert.ok(status.patch, 'pre-check added on the status request');
    const dry = response((await send('/mutating-generic', review('UPDATE', pod({ labels }), { dryRun: true, oldObject: pod({ labels }) }))).text);
    assert.deepEqual(dry, { uid: 'b0b1-uid', allowed: true });
  });

  test('an invalid lifecycle is denied with the upstream wording, as 403 Forbidden', async () => {
    const answer = response((await send('/validating-generic', review('UPDATE', pod({ labels: { [L('pre-checked', 'a')]: '1' } })))).text);
    assert.deepEqual(answer, {
      uid: 'b0b1-uid',
      allowed: false,
      status: {
        code: 403,
        reason: 'Forbidden',
        message: 'failed to validate PodOpsLifecycleWebhook, not found the expected label prefixes: map[operation-permission.podopslifecycle.kusionstack.io:{}]',
      },
    });
    const ok = response((await send('/validating-generic', review('UPDATE', pod({ labels: { [L('pre-checked', 'a')]: '1', [PERM('update')]: '1' } })))).text);
    assert.equal(ok.allowed, true);
  });

  test('a malformed lifecycle key errors with 500 so the failurePolicy applies', async () => {
    const answer = response((await send('/mutating-generic', review('UPDATE', pod({ labels: { 'operating.podopslifecycle.kusionstack.io': '1' } })))).text);
    assert.deepEqual(answer.status, { code: 500, message: 'invalid label operating.podopslifecycle.kusionstack.io' });
  });

  test('malformed reviews get a 400 verdict naming the problem', async () => {
    assert.deepEqual(response((await send('/mutating-generic', '{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1"}')).text).status, {
      code: 400,
      message: 'unable to decode the request: the AdmissionReview has no request',
    });
    assert.match(String((response((await send('/mutating-generic', 'not json')).text).status as { message: string }).message), /^unable to decode the request: the request body is not JSON: /);
    assert.deepEqual(response((await send('/mutating-generic', '{}', { 'Content-Type': 'text/plain' })).text).status, {
      code: 400,
      message: 'contentType=text/plain, expected application/json',
    });
  });

  test('HTTP errors: oversized body 413, unknown path 404, GET 405; a failing handler errors with 500', async () => {
    assert.equal((await send('/mutating-generic', JSON.stringify({ big: 'x'.repeat(100 * 1024) }))).status, 413);
    assert.equal((await send('/nope', '{}')).status, 404);
    assert.equal((await post(address, '/mutating-generic', '', certs.ca.cert, {}, 'GET')).status, 405);
    const broken = response((await send('/broken', review('CREATE', pod()))).text);
    assert.deepEqual(broken, { uid: 'b0b1-uid', allowed: false, status: { code: 500, message: 'boom' } });
    assert.match(await registry.metrics(), /controller_runtime_webhook_panics_total 1/);
    assert.match(await registry.metrics(), /controller_runtime_webhook_requests_total\{webhook="\/mutating-generic",code="413"\} 1/);
  });

  test('TLS older than 1.2 is refused', async () => {
    const [host, port] = address.split(':');
    const error = await new Promise<Error | undefined>((resolve) => {
      const socket = connect({ host, port: Number(port), ca: certs.ca.cert, maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }, () => resolve(undefined));
      socket.on('error', resolve);
    });
    assert.ok(error, 'the handshake fails');
  });

  test('a new certificate is served to new connections without a restart', async () => {
    const rotated = await localCertificates();
    server.setCertificate(rotated.serving);
    const answer = await post(address, '/validating-generic', review('CREATE', pod()), rotated.ca.cert);
    assert.equal(answer.peerCertificate, new X509Certificate(rotated.serving.cert).fingerprint256);
  });
});
