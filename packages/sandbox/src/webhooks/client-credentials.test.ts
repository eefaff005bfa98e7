import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadClientCertificates } from './client-credentials.ts';

/** A user whose "certificate" names it, so a lookup shows which user answered. */
const user = (name: string) => ({ name, user: { 'client-certificate-data': Buffer.from(`cert ${name}`).toString('base64'), 'client-key-data': Buffer.from('key').toString('base64') } });

test('users are looked up as kube-apiserver looks them up, for each plugin on its own', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'podops-credentials-'));
  try {
    const kubeconfig = join(dir, 'validating.kubeconfig');
    const names = ['a.ns.svc:8443', '*.ns.svc:8443', 'b.ns.svc', '*.other.svc', '[::1]:443', 'example.com', 'fallback'];
    // A user without a certificate still matches: the call then presents none.
    const tokenOnly = { name: 'token.ns.svc:443', user: { token: 't' } };
    await writeFile(kubeconfig, JSON.stringify({ users: [...names.map(user), tokenOnly], contexts: [{ name: 'c', context: { user: 'fallback' } }], 'current-context': 'c' }));
    const certificates = await loadClientCertificates(
      {
        apiVersion: 'apiserver.config.k8s.io/v1',
        kind: 'AdmissionConfiguration',
        plugins: [{ name: 'ValidatingAdmissionWebhook', configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: kubeconfig } }],
      },
      dir,
    );
    const presented = (hostPort: string): string | undefined => certificates('ValidatingAdmissionWebhook', hostPort)?.cert;
    assert.equal(presented('a.ns.svc:8443'), 'cert a.ns.svc:8443', 'exact');
    assert.equal(presented('c.ns.svc:8443'), 'cert *.ns.svc:8443', 'wildcard with the port');
    assert.equal(presented('b.ns.svc:443'), 'cert b.ns.svc', 'port 443 left out');
    assert.equal(presented('x.other.svc:443'), 'cert *.other.svc', 'wildcard without port 443');
    assert.equal(presented('x.other.svc:8443'), 'cert fallback', 'another port: the current context');
    assert.equal(presented('[::1]:443'), 'cert [::1]:443');
    assert.equal(presented('example.com:443'), 'cert example.com');
    assert.equal(presented('token.ns.svc:443'), undefined);
    assert.equal(certificates('MutatingAdmissionWebhook', 'a.ns.svc:8443'), undefined, 'the other plugin has no kubeconfig');

  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a configuration of another kind is refused', async () => {
  await assert.rejects(loadClientCertificates({ apiVersion: 'apiserver.config.k8s.io/v1alpha1', kind: 'AdmissionConfiguration' }, '.'), {
    message: 'admission control configuration: expected apiVersion apiserver.config.k8s.io/v1, kind AdmissionConfiguration; got "apiserver.config.k8s.io/v1alpha1", "AdmissionConfiguration"',
  });
});
