// Client certificates for admission webhooks (kube-apiserver's --admission-control-config-file): each
// webhook plugin's kubeconfig names users after webhook hosts, and the matching user's certificate is
// presented in the TLS handshake to a webhook server that requires one signed by its client CA. A
// call without a matching user, or with a certificate the server does not trust, fails as Go's TLS
// client reports the server's alert.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { startSandbox } from '../src/index.ts';
import { startHarness, type Harness } from './harness.ts';
import { createCertificateAuthority, startWebhookServer, type CertificateAuthority, type WebhookServer } from './webhook-server.ts';

let dir: string;
let servingCa: CertificateAuthority;
let clientCa: CertificateAuthority;
let server: WebhookServer;
let h: Harness;

const base64 = (text: string): string => Buffer.from(text).toString('base64');

/** A kubeconfig user presenting `cert` inline (client-certificate-data, client-key-data). */
const inlineUser = (name: string, cert: { cert: string; key: string }) => ({
  name,
  user: { 'client-certificate-data': base64(cert.cert), 'client-key-data': base64(cert.key) },
});

const webhookConfiguration = (kubeConfigFile: string) => ({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile });

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'podops-webhook-client-'));
  servingCa = await createCertificateAuthority('webhook-serving-ca');
  clientCa = await createCertificateAuthority('apiserver-client-ca');
  server = await startWebhookServer({ ...(await servingCa.issue(['127.0.0.1', 'localhost', 'hook.secure.svc', 'hook.wild.svc'])), clientCa: clientCa.certificate });

  // Validating: an exact service name (port 443 left out), a URL's host:port with the certificate in
  // files (relative to the kubeconfig), a wildcard; no `*` and no current context.
  const urlUser = await clientCa.issueClient('url-user');
  await writeFile(join(dir, 'url-user.crt'), urlUser.cert);
  await writeFile(join(dir, 'url-user.key'), urlUser.key);
  const validating = {
    apiVersion: 'v1',
    kind: 'Config',
    users: [
      inlineUser('hook.secure.svc', await clientCa.issueClient('exact')),
      { name: `127.0.0.1:${server.port}`, user: { 'client-certificate': 'url-user.crt', 'client-key': 'url-user.key' } },
      inlineUser('*.wild.svc:8443', await clientCa.issueClient('wildcard')),
    ],
  };
  // Mutating: the default user.
  const mutating = { apiVersion: 'v1', kind: 'Config', users: [inlineUser('*', await clientCa.issueClient('mutating'))] };
  await writeFile(join(dir, 'validating.kubeconfig'), YAML.stringify(validating));
  await writeFile(join(dir, 'mutating.kubeconfig'), YAML.stringify(mutating));
  // One plugin configured inline, the other through a path relative to the AdmissionConfiguration.
  await writeFile(join(dir, 'mutating.yaml'), YAML.stringify(webhookConfiguration(join(dir, 'mutating.kubeconfig'))));
  const admission = {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AdmissionConfiguration',
    plugins: [
      { name: 'ValidatingAdmissionWebhook', configuration: webhookConfiguration(join(dir, 'validating.kubeconfig')) },
      { name: 'MutatingAdmissionWebhook', path: 'mutating.yaml' },
    ],
  };
  await writeFile(join(dir, 'admission.yaml'), YAML.stringify(admission));

  h = await startHarness({ admissionControlConfigFile: join(dir, 'admission.yaml'), webhookServices: { 'secure/hook': server.url, 'wild/hook': server.url } });
  for (const [ns, port] of [
    ['secure', 443],
    ['wild', 8443],
  ] as const) {
    assert.equal((await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
    assert.equal((await h.http('POST', `/api/v1/namespaces/${ns}/services`, { metadata: { name: 'hook' }, spec: { ports: [{ port }] } })).status, 201);
  }
});
after(async () => {
  await h.stop();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

type Kind = 'mutating' | 'validating';

/** Creates a ConfigMap in `ns` while one webhook of `kind` with `clientConfig` watches ConfigMaps there. */
async function createWith(sandbox: Harness, kind: Kind, name: string, clientConfig: Record<string, unknown>, ns: string) {
  const configurationPath = `/apis/admissionregistration.k8s.io/v1/${kind}webhookconfigurations`;
  const webhook = {
    name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    timeoutSeconds: 5,
    clientConfig: { caBundle: servingCa.caBundle, ...clientConfig },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
  };
  const kindName = `${kind === 'mutating' ? 'Mutating' : 'Validating'}WebhookConfiguration`;
  assert.equal((await sandbox.http('POST', configurationPath, { apiVersion: 'admissionregistration.k8s.io/v1', kind: kindName, metadata: { name: ns }, webhooks: [webhook] })).status, 201);
  try {
    return await sandbox.http('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' } });
  } finally {
    await sandbox.http('DELETE', `${configurationPath}/${ns}`);
  }
}

async function namespace(sandbox: Harness, name: string): Promise<void> {
  assert.equal((await sandbox.http('POST', '/api/v1/namespaces', { metadata: { name } })).status, 201);
}

describe('the user named after the webhook host is presented', () => {
  test('a Service on port 443: `<service>.<namespace>.svc`, the port left out', async () => {
    await namespace(h, 'by-service');
    const res = await createWith(h, 'validating', 'svc.example.com', { service: { namespace: 'secure', name: 'hook', path: '/svc' } }, 'by-service');
    assert.equal(res.status, 201, res.text);
    assert.equal(server.reviews('/svc')[0]?.clientName, 'exact');
  });

  test("a URL: its host:port, with the certificate read from files beside the kubeconfig", async () => {
    await namespace(h, 'by-url');
    const res = await createWith(h, 'validating', 'url.example.com', { url: `${server.url}/url` }, 'by-url');
    assert.equal(res.status, 201, res.text);
    assert.equal(server.reviews('/url')[0]?.clientName, 'url-user');
  });

  test('a wildcard user: `*.<domain>:<port>`', async () => {
    await namespace(h, 'by-wildcard');
    const res = await createWith(h, 'validating', 'wild.example.com', { service: { namespace: 'wild', name: 'hook', port: 8443, path: '/wild' } }, 'by-wildcard');
    assert.equal(res.status, 201, res.text);
    assert.equal(server.reviews('/wild')[0]?.clientName, 'wildcard');
  });

  test("each plugin has its own kubeconfig: the mutating plugin's default user `*`", async () => {
    await namespace(h, 'mutating');
    const res = await createWith(h, 'mutating', 'mutating.example.com', { url: `${server.url}/mutate` }, 'mutating');
    assert.equal(res.status, 201, res.text);
    assert.equal(server.reviews('/mutate')[0]?.clientName, 'mutating');
  });
});

describe('failures', () => {
  test('no user matches the host: no certificate, and the server refuses the call', async () => {
    await namespace(h, 'no-user');
    const url = `https://localhost:${server.port}/none`;
    const res = await createWith(h, 'validating', 'none.example.com', { url }, 'no-user');
    assert.equal(res.status, 500);
    assert.equal(res.json.message, `Internal error occurred: failed calling webhook "none.example.com": failed to call webhook: Post "${url}?timeout=5s": remote error: tls: certificate required`);
    assert.equal(server.reviews('/none').length, 0);
  });

  test('a certificate the server does not trust (the configuration given in-process)', async () => {
    const stranger = await (await createCertificateAuthority('stranger-ca')).issueClient('stranger');
    const kubeconfig = join(dir, 'stranger.kubeconfig');
    await writeFile(kubeconfig, YAML.stringify({ apiVersion: 'v1', kind: 'Config', users: [inlineUser('*', stranger)] }));
    const other = await startHarness({
      admissionControlConfig: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'ValidatingAdmissionWebhook', configuration: webhookConfiguration(kubeconfig) }] },
    });
    try {
      await namespace(other, 'stranger');
      const url = `${server.url}/stranger`;
      const res = await createWith(other, 'validating', 'stranger.example.com', { url }, 'stranger');
      // Node's TLS server closes the connection on a certificate it does not trust, without an alert.
      assert.equal(res.json.message, `Internal error occurred: failed calling webhook "stranger.example.com": failed to call webhook: Post "${url}?timeout=5s": EOF`);
      assert.equal(server.reviews('/stranger').length, 0);
    } finally {
      await other.stop();
    }
  });

  test('a kubeConfigFile that is not an absolute path stops the sandbox from starting', async () => {
    const admissionControlConfig = { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'ValidatingAdmissionWebhook', configuration: webhookConfiguration('relative.kubeconfig') }] };
    await assert.rejects(startSandbox({ admissionControlConfig }), { message: 'ValidatingAdmissionWebhook: kubeConfigFile: Invalid value: "relative.kubeconfig": must be an absolute file path' });
  });
});
