import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MUTATING_WEBHOOK_CONFIGURATIONS, SECRETS } from '../../src/kube/resources.ts';
import { CertificateManager, type CertificateManagerOptions } from '../../src/webhook/certificate-manager.ts';
import { inspectCertificate } from '../../src/webhook/certificates.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { useSandboxClient } from '../support/sandbox-client.ts';

const DAY = 86_400_000;

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
});
