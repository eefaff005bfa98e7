import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, test } from 'node:test';
import type { ResourceType } from '../../src/kube/resources.ts';
import { MUTATING_WEBHOOK_CONFIGURATIONS, SECRETS, VALIDATING_WEBHOOK_CONFIGURATIONS } from '../../src/kube/resources.ts';
import { CertificateManager, type CertificateManagerOptions, type ManagedCertificates } from '../../src/webhook/certificate-manager.ts';
import { inspectCertificate } from '../../src/webhook/certificates.ts';
import { genericRoute } from '../../src/webhook/dispatch.ts';
import { WebhookServer } from '../../src/webhook/server.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { useSandboxClient } from '../support/sandbox-client.ts';
import { localCertificates, post } from '../support/tls.ts';
import { waitFor } from '../support/wait.ts';

const DAY = 86_400_000;
const CONFIGMAPS: ResourceType = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };

/** The certificates of a PEM bundle, one PEM string each. */
const certificatesOf = (pem: string): string[] => (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((c) => new X509Certificate(c).toString());
const samePem = (a: string, b: string): boolean => new X509Certificate(a).fingerprint256 === new X509Certificate(b).fingerprint256;

/**
 * A manager's run() loop on a fake clock: `tick` moves time on by `ms`, which runs exactly one check, and
 * resolves once that check is done (the loop is asleep again).
 */
function runLoop(manager: CertificateManager, clock: FakeClock, onServing: (bundle: ManagedCertificates) => void = () => {}) {
  const abort = new AbortController();
  const served: ManagedCertificates[] = [];
  const done = manager.run(abort.signal, (bundle) => {
    served.push(bundle);
    onServing(bundle);
  });
  const asleep = () => waitFor(() => clock.pendingTimers() === 1, 'the certificate check', 10_000);
  return {
    served,
    started: asleep(),
    async tick(ms: number) {
      await asleep();
      clock.advance(ms);
      await asleep();
    },
    async stop() {
      abort.abort();
      await done;
    },
  };
}

interface Config {
  metadata: { resourceVersion: string };
  webhooks: { name: string; clientConfig: { caBundle?: string; url?: string } }[];
}

describe('CertificateManager', () => {
  const env = useSandboxClient();

  const manager = (secretName: string, extra: Partial<CertificateManagerOptions> = {}) =>
    new CertificateManager({ client: env.client, namespace: 'default', secretName, hosts: ['podops-webhook.podops-system.svc', '127.0.0.1'], ...extra });

  test('creates a CA and a serving certificate for the hosts, kept in a kubernetes.io/tls Secret', async () => {
    const bundle = await manager('created').ensure();
    const serving = inspectCertificate(bundle.serving.cert);
    assert.deepEqual(serving.hosts, ['podops-webhook.podops-system.svc', '127.0.0.1']);
    assert.ok(serving.issuedBy(bundle.ca.cert));
    const secret = await env.client.get<{ type: string; data: Record<string, string> }>(SECRETS, 'default', 'created');
    assert.equal(secret.type, 'kubernetes.io/tls');
    assert.deepEqual(Object.keys(secret.data).sort(), ['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    assert.equal(Buffer.from(secret.data['tls.crt']!, 'base64').toString(), bundle.serving.cert);
  });

  test('replicas starting together agree on one certificate', async () => {
    const bundles = await Promise.all([1, 2, 3].map(() => manager('raced').ensure()));
    assert.equal(new Set(bundles.map((b) => b.serving.cert)).size, 1);
  });

  test('rotates the serving certificate before it expires, keeping the CA; new hosts also rotate', async () => {
    const clock = new FakeClock(Date.now());
    const first = await manager('rotated', { clock, servingValidityDays: 60, rotateBeforeDays: 30 }).ensure();
    clock.advance(20 * DAY);
    assert.equal((await manager('rotated', { clock, servingValidityDays: 60, rotateBeforeDays: 30 }).ensure()).serving.cert, first.serving.cert);
    clock.advance(15 * DAY);
    const rotated = await manager('rotated', { clock, servingValidityDays: 60, rotateBeforeDays: 30 }).ensure();
    assert.notEqual(rotated.serving.cert, first.serving.cert);
    assert.equal(rotated.ca.cert, first.ca.cert);
    const rehosted = await manager('rotated', { clock, hosts: ['other.svc'] }).ensure();
    assert.deepEqual(inspectCertificate(rehosted.serving.cert).hosts, ['other.svc']);
  });

  test('injects the CA into every webhook of the named configuration, once', async () => {
    await env.client.create(MUTATING_WEBHOOK_CONFIGURATIONS, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'podops-mutating' },
      webhooks: ['a', 'b'].map((n) => ({
        name: `${n}.podops.io`,
        clientConfig: { url: 'https://127.0.0.1:9443/mutating-generic' },
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      })),
    });
    const m = manager('injected', { mutatingWebhookConfigurations: ['podops-mutating', 'absent'] });
    const bundle = await m.ensure();
    await m.injectCABundle(bundle.ca.cert);
    const config = await env.client.get<{ metadata: { resourceVersion: string }; webhooks: { clientConfig: { caBundle: string } }[] }>(MUTATING_WEBHOOK_CONFIGURATIONS, undefined, 'podops-mutating');
    assert.deepEqual(config.webhooks.map((w) => Buffer.from(w.clientConfig.caBundle, 'base64').toString()), [bundle.ca.cert, bundle.ca.cert]);
    await m.injectCABundle(bundle.ca.cert);
    const again = await env.client.get<{ metadata: { resourceVersion: string } }>(MUTATING_WEBHOOK_CONFIGURATIONS, undefined, 'podops-mutating');
    assert.equal(again.metadata.resourceVersion, config.metadata.resourceVersion, 'no write when already current');
  });

  test('the run() loop rotates the serving certificate before it expires and serves the new one', async () => {
    const clock = new FakeClock(Date.now());
    const loop = runLoop(manager('looped', { clock, servingValidityDays: 20, rotateBeforeDays: 5, checkIntervalMs: DAY }), clock);
    await loop.started;
    await loop.tick(10 * DAY);
    assert.equal(loop.served.length, 1, 'no rotation while more than the margin is left');
    await loop.tick(6 * DAY);
    assert.equal(loop.served.length, 2, 'rotated once less than 5 days were left');
    const [first, second] = loop.served as [ManagedCertificates, ManagedCertificates];
    assert.notEqual(second.serving.cert, first.serving.cert);
    assert.ok(inspectCertificate(second.serving.cert).notAfter > inspectCertificate(first.serving.cert).notAfter);
    assert.equal(second.ca.cert, first.ca.cert, 'a serving rotation keeps the CA, so the caBundle does not change');
    await loop.stop();
  });

  test('a CA rotation keeps the old and the new CA trusted, so replicas serving either certificate keep answering', async () => {
    // Two replicas behind one validating webhook configuration (failurePolicy Fail) of the sandbox, which
    // verifies their certificates against the injected caBundle: A runs the manager and serves what it gets,
    // B still serves the first certificate (it has not reached its next check yet).
    // The fake clock starts 91 days and 10 minutes back, so the promotion happens 10 minutes before the real
    // now and every certificate involved is valid for the sandbox's real-time TLS checks.
    const clock = new FakeClock(Date.now() - 91 * DAY - 10 * 60_000);
    const m = manager('ca-rotated', { clock, caValidityDays: 100, servingValidityDays: 100, rotateBeforeDays: 10, checkIntervalMs: DAY, validatingWebhookConfigurations: ['rotation'] });
    const first = await m.ensure();
    const routes = [genericRoute('/validate', {})];
    const replicaA = new WebhookServer({ host: '127.0.0.1', port: 0, certificate: first.serving, routes });
    const replicaB = new WebhookServer({ host: '127.0.0.1', port: 0, certificate: first.serving, routes });
    const [addressA, addressB] = await Promise.all([replicaA.listen(), replicaB.listen()]);
    await env.client.create(VALIDATING_WEBHOOK_CONFIGURATIONS, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'rotation' },
      webhooks: [
        ['a', addressA],
        ['b', addressB],
      ].map(([n, address]) => ({
        name: `${n}.rotation.podops.io`,
        clientConfig: { url: `https://${address}/validate` },
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      })),
    });
    let created = 0;
    const createConfigMap = () => env.client.create(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${++created}`, namespace: 'default' } });
    const trusted = async () => {
      const config = await env.client.get<Config>(VALIDATING_WEBHOOK_CONFIGURATIONS, undefined, 'rotation');
      const bundles = new Set(config.webhooks.map((w) => w.clientConfig.caBundle));
      assert.equal(bundles.size, 1, 'every webhook of the configuration trusts the same CAs');
      return certificatesOf(Buffer.from([...bundles][0] ?? '', 'base64').toString());
    };
    const has = (bundle: string[], ca: string) => bundle.some((c) => samePem(c, ca));

    const loop = runLoop(m, clock, (bundle) => replicaA.setCertificate(bundle.serving));
    try {
      await loop.started;
      assert.equal((await trusted()).length, 1);
      await createConfigMap();

      // 81 days in, 19 left: the next CA is made and trusted, but signs nothing yet.
      await loop.tick(81 * DAY);
      const caNext = (await m.ensure()).next?.cert;
      assert.ok(caNext, 'a next CA is kept in the Secret');
      const beforePromotion = await trusted();
      assert.equal(beforePromotion.length, 2);
      assert.ok(has(beforePromotion, first.ca.cert) && has(beforePromotion, caNext));
      assert.equal(loop.served.length, 1, 'the serving certificate is unchanged');
      await createConfigMap();

      // 91 days in, 9 left: the next CA signs a new serving certificate; the old CA stays trusted.
      await loop.tick(10 * DAY);
      const rotated = loop.served.at(-1) as ManagedCertificates;
      assert.ok(samePem(rotated.ca.cert, caNext), 'the next CA was promoted');
      assert.ok(inspectCertificate(rotated.serving.cert).issuedBy(caNext));
      const afterPromotion = await trusted();
      assert.equal(afterPromotion.length, 2);
      assert.ok(has(afterPromotion, first.ca.cert) && has(afterPromotion, caNext), 'both the old and the new CA are in the caBundle');
      assert.ok(inspectCertificate(first.serving.cert).issuedBy(first.ca.cert));
      const answerA = await post(addressA, '/validate', '{}', rotated.caBundle);
      assert.equal(answerA.peerCertificate, new X509Certificate(rotated.serving.cert).fingerprint256, 'A serves the new certificate');
      const answerB = await post(addressB, '/validate', '{}', rotated.caBundle);
      assert.equal(answerB.peerCertificate, new X509Certificate(first.serving.cert).fingerprint256, 'B still serves the old one, and it verifies');
      await createConfigMap();

      // Once the old CA has expired it is dropped; a replica still serving its certificate is now refused,
      // which shows the sandbox really checks against the caBundle.
      await loop.tick(10 * DAY);
      const afterExpiry = await trusted();
      assert.equal(afterExpiry.length, 1);
      assert.ok(has(afterExpiry, caNext));
      await assert.rejects(createConfigMap(), /unknown authority/);
      replicaB.setCertificate(rotated.serving);
      await createConfigMap();
    } finally {
      await loop.stop();
      await Promise.all([replicaA.close(), replicaB.close()]);
      await env.client.delete(VALIDATING_WEBHOOK_CONFIGURATIONS, undefined, 'rotation');
    }
  });

  test('a caBundle changed by someone else is put back at the next check', async () => {
    await env.client.create(MUTATING_WEBHOOK_CONFIGURATIONS, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'tampered' },
      webhooks: [
        {
          name: 'a.tampered.podops.io',
          clientConfig: { url: 'https://127.0.0.1:9443/mutating-generic' },
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['limitranges'] }],
        },
      ],
    });
    const clock = new FakeClock(Date.now());
    const loop = runLoop(manager('tampered', { clock, mutatingWebhookConfigurations: ['tampered'] }), clock);
    await loop.started;
    const caBundle = async () => (await env.client.get<Config>(MUTATING_WEBHOOK_CONFIGURATIONS, undefined, 'tampered')).webhooks[0]?.clientConfig.caBundle;
    const ours = Buffer.from((loop.served[0] as ManagedCertificates).caBundle).toString('base64');
    assert.equal(await caBundle(), ours);
    const config = await env.client.get<Config>(MUTATING_WEBHOOK_CONFIGURATIONS, undefined, 'tampered');
    const foreign = Buffer.from((await localCertificates()).ca.cert).toString('base64');
    await env.client.replace(MUTATING_WEBHOOK_CONFIGURATIONS, { ...config, webhooks: config.webhooks.map((w) => ({ ...w, clientConfig: { ...w.clientConfig, caBundle: foreign } })) });
    assert.equal(await caBundle(), foreign);
    await loop.tick(60_000);
    assert.equal(await caBundle(), ours);
    await loop.stop();
  });
});
