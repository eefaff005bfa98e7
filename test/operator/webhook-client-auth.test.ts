// `podops manifests --webhook-client-auth DIR`: the API server's side of the authenticated webhooks (an
// AdmissionConfiguration, the kubeconfig with a client certificate, the CA that issued it) and manifests whose
// operator serves only that certificate. Then end to end on a real kube-apiserver started with those files: the
// API server's reviews are answered, and a caller without the certificate is refused.

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse, parseAllDocuments, stringify } from 'yaml';
import type { Pod } from '../../src/api/kube.ts';
import { podTransitionRuleCRD } from '../../src/api/podtransitionrule.ts';
import { rolloutLifecycleCRD } from '../../src/api/rolloutlifecycle.ts';
import { registerWebhooks } from '../../src/cli/local-stack.ts';
import type { KubeClient, KubeObject } from '../../src/kube/client.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, NAMESPACES, PODS, SECRETS, SERVICE_ACCOUNTS } from '../../src/kube/resources.ts';
import { WEBHOOK_CLIENT_FILES, WEBHOOK_CLIENT_NAME } from '../../src/operator/webhook-client-auth.ts';
import { generateCA, generateClientCertificate } from '../../src/webhook/certificates.ts';
import { startOperatorProcess, type OperatorProcess } from '../e2e/operator-process.ts';
import { runCli } from '../support/cli.ts';
import { skipWithoutKubeApiserver, startKubeApiserver, type KubeApiserver } from '../support/kube-apiserver.ts';
import { post } from '../support/tls.ts';
import { freePort, until } from '../support/wait.ts';

interface Written {
  stdout: string;
  objects: Record<string, unknown>[];
  file(name: keyof typeof WEBHOOK_CLIENT_FILES): Promise<string>;
}

async function manifestsWithClientAuth(dir: string, extra: string[] = []): Promise<Written> {
  const { code, stdout, stderr } = await runCli(['manifests', '--webhook-client-auth', dir, ...extra]);
  assert.equal(code, 0, stderr);
  assert.match(stderr, /--admission-control-config-file=/);
  return { stdout, objects: parseAllDocuments(stdout).map((d) => d.toJS() as Record<string, unknown>), file: (name) => readFile(join(dir, WEBHOOK_CLIENT_FILES[name]), 'utf8') };
}

const clientCertificate = (kubeconfig: string): { name: string; cert: string; key: string } => {
  const { users } = parse(kubeconfig) as { users: { name: string; user: Record<string, string> }[] };
  const [user] = users;
  assert.equal(users.length, 1, 'one user: the certificate goes to podops only');
  const data = (field: string) => Buffer.from(user?.user[field] ?? '', 'base64').toString();
  return { name: user?.name ?? '', cert: data('client-certificate-data'), key: data('client-key-data') };
};

describe('podops manifests --webhook-client-auth', () => {
  let dir: string;
  before(async () => (dir = await mkdtemp(join(tmpdir(), 'podops-client-auth-'))));
  after(() => rm(dir, { recursive: true, force: true }));

  test("writes the API server's files and prints manifests that serve only its certificate", async () => {
    const written = await manifestsWithClientAuth(dir);
    const ca = await written.file('caCert');
    const client = clientCertificate(await written.file('kubeconfig'));
    // The user the API server looks up for the webhook Service (port 443 is left out of the name).
    assert.equal(client.name, 'podops-webhook.podops-system.svc');
    const cert = new X509Certificate(client.cert);
    assert.equal(cert.subject, `CN=${WEBHOOK_CLIENT_NAME}`);
    assert.ok(cert.checkIssued(new X509Certificate(ca)) && cert.verify(new X509Certificate(ca).publicKey), 'issued by the CA');
    for (const secret of ['caKey', 'kubeconfig'] as const) assert.equal((await stat(join(dir, WEBHOOK_CLIENT_FILES[secret]))).mode & 0o077, 0, `${secret} is readable by its owner only`);
    assert.deepEqual(parse(await written.file('admissionConfiguration')), {
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: ['ValidatingAdmissionWebhook', 'MutatingAdmissionWebhook'].map((name) => ({
        name,
        configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: '/etc/kubernetes/podops/webhook-client.kubeconfig' },
      })),
    });
    // The cluster gets the CA's certificate, never its key.
    const secret = written.objects.find((o) => o.kind === 'Secret') as { metadata: { name: string }; stringData: Record<string, string> };
    assert.deepEqual(secret.stringData, { 'ca.crt': ca });
    assert.ok(!written.stdout.includes('PRIVATE KEY'));
    const deployment = written.objects.find((o) => o.kind === 'Deployment') as { spec: { template: { spec: { containers: { args: string[] }[]; volumes: unknown[] } } } };
    const args = deployment.spec.template.spec.containers[0]?.args ?? [];
    assert.ok(args.includes('--webhook-client-ca-file=/etc/podops/webhook-client-ca/ca.crt'));
    assert.ok(args.includes(`--webhook-client-names=${WEBHOOK_CLIENT_NAME}`));
    assert.deepEqual(deployment.spec.template.spec.volumes, [{ name: 'webhook-client-ca', secret: { secretName: secret.metadata.name } }]);
    assert.deepEqual(parse(await written.file('helmValues')), { webhookClientAuth: { caCert: ca, names: WEBHOOK_CLIENT_NAME } });
  });

  test('run again, it keeps the CA and a certificate that is not due; another namespace names another user', async () => {
    const [ca, kubeconfig] = [await readFile(join(dir, WEBHOOK_CLIENT_FILES.caCert), 'utf8'), await readFile(join(dir, WEBHOOK_CLIENT_FILES.kubeconfig), 'utf8')];
    const again = await manifestsWithClientAuth(dir, ['--apiserver-config-dir', '/srv/kube/podops']);
    assert.equal(await again.file('caCert'), ca);
    assert.equal(await again.file('kubeconfig'), kubeconfig);
    assert.match(await again.file('admissionConfiguration'), /kubeConfigFile: \/srv\/kube\/podops\/webhook-client\.kubeconfig/);
    const other = await mkdtemp(join(tmpdir(), 'podops-client-auth-'));
    try {
      assert.equal(clientCertificate(await (await manifestsWithClientAuth(other, ['--namespace', 'ops'])).file('kubeconfig')).name, 'podops-webhook.ops.svc');
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  test('refuses what cannot go together, and a relative path kube-apiserver would refuse', async () => {
    for (const [args, message] of [
      [['--webhook-client-ca-secret', 'mine'], /--webhook-client-auth makes its own CA/],
      [['--webhook-client-names', 'x'], /--webhook-client-auth makes its own CA/],
      [['--apiserver-config-dir', 'podops'], /--apiserver-config-dir must be an absolute path/],
    ] as const) {
      const { code, stderr } = await runCli(['manifests', '--webhook-client-auth', dir, ...args]);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, message);
    }
    const alone = await runCli(['manifests', '--apiserver-config-dir', '/etc/x']);
    assert.match(alone.stderr, /--apiserver-config-dir needs --webhook-client-auth/);
  });
});

describe('the authenticated webhooks on a real kube-apiserver', { skip: skipWithoutKubeApiserver }, () => {
  let dir: string;
  let server: KubeApiserver;
  let admin: KubeClient;
  let operator: OperatorProcess;
  let servingCa: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'podops-client-auth-e2e-'));
    // The files exactly as the command writes them, to be read from `dir` by the API server.
    const written = await manifestsWithClientAuth(dir, ['--apiserver-config-dir', dir]);
    // No cluster networking here: podops' webhooks are registered by URL, so the API server looks the user up by
    // host and port; the certificate is the command's.
    const webhookPort = await freePort();
    const kubeconfig = parse(await written.file('kubeconfig')) as { users: { name: string }[] };
    kubeconfig.users[0]!.name = `127.0.0.1:${webhookPort}`;
    await writeFile(join(dir, WEBHOOK_CLIENT_FILES.kubeconfig), stringify(kubeconfig));
    server = await startKubeApiserver({ admissionControlConfigFile: join(dir, WEBHOOK_CLIENT_FILES.admissionConfiguration) });
    admin = server.client();
    for (const crd of [podTransitionRuleCRD(), rolloutLifecycleCRD()]) await admin.create(CUSTOM_RESOURCE_DEFINITIONS, crd as KubeObject);
    for (const name of ['podops-system', 'shop']) await admin.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await admin.create(SERVICE_ACCOUNTS, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'shop' } });
    // The operator as the manifests run it: the CA from their Secret, the names from their arguments.
    const secret = written.objects.find((o) => o.kind === 'Secret') as { stringData: Record<string, string> };
    await writeFile(join(dir, 'mounted-ca.crt'), secret.stringData['ca.crt'] ?? '');
    const deployment = written.objects.find((o) => o.kind === 'Deployment') as { spec: { template: { spec: { containers: { args: string[] }[] } } } };
    const names = deployment.spec.template.spec.containers[0]?.args.find((a) => a.startsWith('--webhook-client-names=')) ?? '';
    const kubeconfigPath = join(dir, 'admin.kubeconfig');
    await writeFile(kubeconfigPath, server.kubeconfig());
    operator = await startOperatorProcess(kubeconfigPath, { webhookPort, extraArgs: ['--webhook-client-ca-file', join(dir, 'mounted-ca.crt'), names] });
    await operator.ready();
    await until(() => admin.get(SECRETS, 'podops-system', 'podops-webhook-certs'), Boolean, "the operator's serving certificate", 20_000);
    await registerWebhooks(admin, `127.0.0.1:${webhookPort}`);
    const serving = await admin.get<{ data: Record<string, string> }>(SECRETS, 'podops-system', 'podops-webhook-certs');
    servingCa = Buffer.from(serving.data['ca.crt'] ?? '', 'base64').toString();
  });
  after(async () => {
    await operator?.kill();
    admin?.close();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test("the API server presents its certificate and podops answers: a controlled pod is mutated", async () => {
    const pod = await admin.create<Pod>(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', namespace: 'shop', labels: { 'kusionstack.io/control': 'true' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } });
    assert.deepEqual(pod.spec?.readinessGates, [{ conditionType: 'pod.kusionstack.io/service-ready' }]);
  });

  test('a caller without the certificate is refused in the handshake; one with a certificate of another CA too', async () => {
    const address = `127.0.0.1:${operator.webhookPort}`;
    await assert.rejects(post(address, '/validating-generic', '{}', servingCa));
    const stranger = await generateClientCertificate(await generateCA('stranger', 1, Date.now()), WEBHOOK_CLIENT_NAME, 1, Date.now());
    await assert.rejects(postWithCertificate(address, servingCa, stranger));
    assert.equal(operator.child.exitCode, null);
  });
});

/** A review POSTed with a client certificate. */
function postWithCertificate(address: string, ca: string, client: { cert: string; key: string }): Promise<number> {
  return import('node:https').then(
    ({ request }) =>
      new Promise<number>((resolve, reject) => {
        const [host, port] = address.split(':');
        const req = request({ host, port: Number(port), path: '/validating-generic', method: 'POST', ca, cert: client.cert, key: client.key, agent: false, headers: { 'Content-Type': 'application/json' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end('{}');
      }),
  );
}
