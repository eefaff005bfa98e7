import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:tls';
import { describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { L, PERM, pod } from '../../test/support/pods.ts';
import { localCertificates, post } from '../../test/support/tls.ts';
import { genericRoute } from './dispatch.ts';
import { mutatePodLifecycle, validatePodLifecycle } from './pod-lifecycle.ts';
import { WebhookServer } from './server.ts';
import { useWebhookServer } from '../../test/support/webhook-server.ts';
import { podTransitionRuleSchema } from '../api/podtransitionrule.ts';
import { generateCA, generateClientCertificate, type KeyPair } from './certificates.ts';
import { POD_SHAPE, requireShape } from './object-shape.ts';
import { open, targetOf } from '../../test/support/hostile-http.ts';
import { reviewBody } from '../../test/support/admission-review.ts';
import { until } from '../../test/support/wait.ts';

const NOW = 1717505885197871195n;

const review = (operation: string, object: unknown, extra: Record<string, unknown> = {}): string => reviewBody({ name: 'web-0', operation, object, ...extra });

const patchOps = (patch: unknown): unknown => JSON.parse(Buffer.from(String(patch), 'base64').toString());

describe('webhook server with the pod lifecycle handlers', () => {
  const registry = new Registry();
  const webhook = useWebhookServer(() => ({
    registry,
    maxBodyBytes: 64 * 1024,
    routes: [
      genericRoute('/mutating-generic', { Pod: [(r) => mutatePodLifecycle(r, () => NOW)], 'Pod/status': [(r) => mutatePodLifecycle(r, () => NOW)] }),
      genericRoute('/validating-generic', { Pod: [validatePodLifecycle] }),
      { path: '/broken', handle: () => { throw new Error('boom'); } },
    ],
  }));
  const send = webhook.send;
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

  test('pods/status UPDATE goes through the same mutation; a dry run gets the patch the real write gets', async () => {
    const labels = { [L('operating', 'a')]: '1', [L('operation-type', 'a')]: 'update' };
    const status = response((await send('/mutating-generic', review('UPDATE', pod({ labels }), { subResource: 'status', oldObject: pod({ labels }) }))).text);
    assert.ok(status.patch, 'pre-check added on the status request');
    const real = response((await send('/mutating-generic', review('UPDATE', pod({ labels }), { oldObject: pod({ labels }) }))).text);
    const dry = response((await send('/mutating-generic', review('UPDATE', pod({ labels }), { dryRun: true, oldObject: pod({ labels }) }))).text);
    assert.ok(dry.patch, 'the dry run is mutated');
    assert.deepEqual(patchOps(dry.patch), patchOps(real.patch));
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
    assert.equal((await send('/mutating-generic', '', {}, 'GET')).status, 405);
    const broken = response((await send('/broken', review('CREATE', pod()))).text);
    assert.deepEqual(broken, { uid: 'b0b1-uid', allowed: false, status: { code: 500, message: 'internal error while reviewing the request (uid b0b1-uid), see the operator log' } });
    assert.match(await registry.metrics(), /controller_runtime_webhook_panics_total 1/);
    assert.match(await registry.metrics(), /controller_runtime_webhook_requests_total\{webhook="\/mutating-generic",code="413"\} 1/);
  });

  test('TLS older than 1.2 is refused', async () => {
    const [host, port] = webhook.address.split(':');
    const error = await new Promise<Error | undefined>((resolve) => {
      const socket = connect({ host, port: Number(port), ca: webhook.certs.ca.cert, maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }, () => resolve(undefined));
      socket.on('error', resolve);
    });
    assert.ok(error, 'the handshake fails');
  });

  test('a new certificate is served to new connections without a restart', async () => {
    const rotated = await localCertificates();
    webhook.server.setCertificate(rotated.serving);
    const answer = await post(webhook.address, '/validating-generic', review('CREATE', pod()), rotated.ca.cert);
    assert.equal(answer.peerCertificate, new X509Certificate(rotated.serving.cert).fingerprint256);
  });
});

describe('webhook server hardening', () => {
  const webhook = useWebhookServer(() => ({
    connections: { maxIdle: 8 },
    routes: [
      genericRoute('/validating-generic', {
        Pod: [requireShape(POD_SHAPE), validatePodLifecycle],
        PodTransitionRule: [requireShape(podTransitionRuleSchema()), validatePodLifecycle],
      }),
    ],
  }));

  const verdictOf = async (body: string): Promise<Record<string, unknown>> =>
    (JSON.parse((await webhook.send('/validating-generic', body)).text) as { response: Record<string, unknown> }).response;

  test('a malformed object is answered 400 naming the field, never with internal error text', async () => {
    const labels = await verdictOf(review('CREATE', { metadata: { name: 'p', labels: { app: 7 } } }));
    assert.deepEqual(labels.status, { code: 400, message: 'malformed Pod: request.object.metadata.labels.app: got a number, must be a string' });
    const ptr = await verdictOf(
      reviewBody({
        kind: { group: 'apps.kusionstack.io', version: 'v1alpha1', kind: 'PodTransitionRule' },
        resource: { group: 'apps.kusionstack.io', version: 'v1alpha1', resource: 'podtransitionrules' },
        operation: 'CREATE',
        object: { metadata: { name: 'r' }, spec: { rules: [null] } },
      }),
    );
    assert.deepEqual(ptr.status, { code: 400, message: 'malformed PodTransitionRule: request.object.spec.rules[0]: got null, must be an object' });
    const kind = await verdictOf(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', operation: 'CREATE', kind: { group: '', version: 'v1', kind: 7 }, resource: {} } }));
    assert.deepEqual(kind.status, { code: 400, message: 'unable to decode the request: request.kind.kind must be a string' });
  });

  test("an object beyond its schema's bounds is denied naming the field; an old object beyond them is not", async () => {
    const ptrReview = (object: unknown, oldObject?: unknown) =>
      reviewBody({
        kind: { group: 'apps.kusionstack.io', version: 'v1alpha1', kind: 'PodTransitionRule' },
        resource: { group: 'apps.kusionstack.io', version: 'v1alpha1', resource: 'podtransitionrules' },
        operation: oldObject ? 'UPDATE' : 'CREATE',
        object,
        ...(oldObject !== undefined && { oldObject }),
      });
    const rules = (count: number, url = 'http://rules.example.com/check') => Array.from({ length: count }, (_, i) => ({ name: `r${i}`, webhook: { clientConfig: { url } } }));
    const rule = (list: unknown[]) => ({ metadata: { name: 'r' }, spec: { selector: {}, rules: list } });
    assert.deepEqual((await verdictOf(ptrReview(rule(rules(5000))))).status, { code: 403, reason: 'Forbidden', message: 'spec.rules: Too many: 5000: must have at most 64 items' });
    const longUrl = `http://rules.example.com/${'a'.repeat(3000)}`;
    assert.deepEqual((await verdictOf(ptrReview(rule(rules(1, longUrl))))).status, { code: 403, reason: 'Forbidden', message: 'spec.rules[0].webhook.clientConfig.url: Too long: may not be more than 2048 bytes' });
    // Characters, not bytes, as the API server counts them: 2,048 three-byte characters are within the bound.
    assert.equal((await verdictOf(ptrReview(rule(rules(1, `http://x/${'€'.repeat(2039)}`))))).status, undefined);
    // An update that shrinks an object stored before a bound existed passes.
    assert.equal((await verdictOf(ptrReview(rule(rules(2)), rule(rules(100))))).status, undefined);
  });

  test('only AEAD cipher suites: a TLS 1.2 client offering only CBC suites is refused', async () => {
    const [host, port] = webhook.address.split(':');
    const handshake = (ciphers: string) =>
      new Promise<Error | undefined>((resolve) => {
        const socket = connect({ host, port: Number(port), ca: webhook.certs.ca.cert, maxVersion: 'TLSv1.2', ciphers }, () => {
          socket.end();
          resolve(undefined);
        });
        socket.on('error', resolve);
      });
    assert.ok(await handshake('ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA'), 'CBC-SHA1 suites are not offered');
    assert.equal(await handshake('ECDHE-ECDSA-AES128-GCM-SHA256'), undefined, 'a GCM suite is');
    assert.equal(await handshake('ECDHE-ECDSA-CHACHA20-POLY1305'), undefined, 'and ChaCha20-Poly1305');
  });

  test('idle connections are capped: the longest idle make room, and a new client is still served', async () => {
    const target = targetOf(webhook.address, { ca: webhook.certs.ca.cert });
    const idle = await Promise.all(Array.from({ length: 40 }, () => open(target)));
    await until(() => webhook.server.idleConnections, (n) => n <= 8, 'idle connections to be capped');
    await until(() => idle.filter((socket) => !socket.closed).length, (n) => n === 8, 'all but 8 idle connections to be closed');
    const answer = await webhook.send('/validating-generic', review('CREATE', pod()));
    assert.equal(answer.status, 200);
    for (const socket of idle) socket.destroy();
  });

  test('a connection that sends no request is closed after the first-request deadline', async () => {
    const quick = new WebhookServer({ host: '127.0.0.1', port: 0, certificate: webhook.certs.serving, connections: { firstRequestTimeoutMs: 200 }, routes: [] });
    const socket = await open(targetOf(await quick.listen(), { ca: webhook.certs.ca.cert }));
    await until(() => socket.closed, Boolean, 'the silent connection to be closed', 3000);
    await quick.close();
  });

  test('close answers the review in flight, drops kept-alive connections and returns promptly', async () => {
    let release: () => void = () => {};
    const slow = new WebhookServer({
      host: '127.0.0.1',
      port: 0,
      certificate: webhook.certs.serving,
      routes: [{ path: '/slow', handle: () => new Promise((resolve) => (release = () => resolve({ allowed: true }))) }],
    });
    const slowAddress = await slow.listen();
    const target = targetOf(slowAddress, { ca: webhook.certs.ca.cert });
    // A client that keeps idle connections open, as the API server does.
    const kept = await Promise.all(Array.from({ length: 5 }, () => open(target)));
    const inFlight = post(slowAddress, '/slow', review('CREATE', pod()), webhook.certs.ca.cert);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = slow.close();
    release();
    assert.equal((await inFlight).status, 200, 'the review in flight was answered');
    await closing;
    await until(() => kept.every((socket) => socket.closed), Boolean, 'the kept-alive connections to be closed', 2000);
  });

  test('close cuts a review that does not finish within the grace period', async () => {
    const stuck = new WebhookServer({ host: '127.0.0.1', port: 0, certificate: webhook.certs.serving, shutdownGraceMs: 200, routes: [{ path: '/stuck', handle: () => new Promise(() => {}) }] });
    const stuckAddress = await stuck.listen();
    const inFlight = post(stuckAddress, '/stuck', review('CREATE', pod()), webhook.certs.ca.cert).catch((err: Error) => err);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await stuck.close();
    assert.ok(Date.now() - started < 2000, 'close returned after the grace period');
    assert.ok((await inFlight) instanceof Error, 'the stuck request was cut');
  });
});

describe('webhook server with client certificates', () => {
  let clientCa: KeyPair;
  const webhook = useWebhookServer(async () => {
    clientCa = await generateCA('apiserver-client-ca', 30, Date.now());
    return { clientAuthentication: { ca: clientCa.cert, names: ['kube-apiserver'] }, routes: [genericRoute('/validating-generic', { Pod: [validatePodLifecycle] })] };
  });

  const call = (client?: KeyPair) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const [host, port] = webhook.address.split(':');
      const req = httpsRequest(
        { host, port: Number(port), path: '/validating-generic', method: 'POST', ca: webhook.certs.ca.cert, headers: { 'Content-Type': 'application/json' }, agent: false, ...(client && { cert: client.cert, key: client.key }) },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      req.end(review('CREATE', pod()));
    });

  test('the API server, presenting a certificate the CA signed with an accepted name, is served', async () => {
    const apiserver = await generateClientCertificate(clientCa, 'kube-apiserver', 30, Date.now());
    const answer = await call(apiserver);
    assert.equal(answer.status, 200);
    assert.equal((JSON.parse(answer.text) as { response: { allowed: boolean } }).response.allowed, true);
  });

  test('a client without a certificate, or with one from another CA, is refused in the handshake', async () => {
    await assert.rejects(call());
    const stranger = await generateClientCertificate(await generateCA('other', 30, Date.now()), 'kube-apiserver', 30, Date.now());
    await assert.rejects(call(stranger));
  });

  test('a certificate the CA signed for another name is answered 403', async () => {
    const kubelet = await generateClientCertificate(clientCa, 'system:node:worker-1', 30, Date.now());
    const answer = await call(kubelet);
    assert.equal(answer.status, 403);
    assert.equal(answer.text, 'the client certificate is not one of the accepted API server names\n');
  });
});
