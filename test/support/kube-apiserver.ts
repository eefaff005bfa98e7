// A real kube-apiserver (with etcd) for the tests that must hold against the real thing: CEL as the API server
// runs it (ValidatingAdmissionPolicy), RBAC, and the webhook client certificate of an AdmissionConfiguration.
// The binaries come from KUBEBUILDER_ASSETS, as for Go's envtest (etcd and kube-apiserver in one directory);
// without it the tests that need one skip, saying so. Certificates are made in-process; the admin is a
// static token in system:masters, which may impersonate anyone.

import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '../../src/kube/client.ts';
import type { ResourceType } from '../../src/kube/resources.ts';
import { generateCA, generateServing, type KeyPair } from '../../src/webhook/certificates.ts';
import { freePort } from './wait.ts';

const ASSETS = process.env.KUBEBUILDER_ASSETS;

/** `skip` option for node:test: the reason when no real API server can be started here. */
export const skipWithoutKubeApiserver: string | false = ASSETS
  ? false
  : 'KUBEBUILDER_ASSETS is not set: set it to a directory holding etcd and kube-apiserver to run the tests against a real API server';

export interface KubeApiserver {
  url: string;
  /** The CA of its serving certificate. */
  ca: KeyPair;
  /** A kubeconfig of the admin (system:masters), or of the admin acting as `as` (impersonation). */
  kubeconfig(as?: string): string;
  /** A client of the admin, or of the admin acting as `as`. */
  client(as?: string): KubeClient;
  stop(): Promise<void>;
}

export interface KubeApiserverOptions {
  /** --admission-control-config-file. */
  admissionControlConfigFile?: string;
}

function started(child: ChildProcess, name: string, log: () => string): Promise<never> {
  return new Promise((_, reject) => child.once('exit', (code, signal) => reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${log().slice(-3000)}`))));
}

async function ready(check: () => Promise<boolean>, exited: Promise<never>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await Promise.race([check().catch(() => false), exited])) return;
    if (Date.now() > deadline) throw new Error(`${what} was not ready in ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function startKubeApiserver(options: KubeApiserverOptions = {}): Promise<KubeApiserver> {
  if (!ASSETS) throw new Error(String(skipWithoutKubeApiserver));
  await access(join(ASSETS, 'kube-apiserver'));
  const dir = await mkdtemp(join(tmpdir(), 'podops-kube-apiserver-'));
  const children: ChildProcess[] = [];
  const stop = async (): Promise<void> => {
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const run = (name: string, args: string[]): [ChildProcess, Promise<never>] => {
      const child = spawn(join(ASSETS, name), args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let log = '';
      child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-20_000)));
      children.push(child);
      const exited = started(child, name, () => log);
      exited.catch(() => {});
      return [child, exited];
    };
    const [, etcdExited] = run('etcd', [
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      '--unsafe-no-fsync',
      '--log-level=warn',
    ]);
    await ready(async () => (await fetch(`http://127.0.0.1:${etcdPort}/health`)).ok, etcdExited, 'etcd', 30_000);

    const ca = await generateCA('kube-apiserver-test-ca', 30, Date.now());
    const serving = await generateServing(ca, ['127.0.0.1', 'localhost'], 30, Date.now());
    const serviceAccount = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const token = randomBytes(24).toString('hex');
    const file = async (name: string, text: string): Promise<string> => {
      await writeFile(join(dir, name), text, { mode: 0o600 });
      return join(dir, name);
    };
    const [, apiExited] = run('kube-apiserver', [
      `--etcd-servers=http://127.0.0.1:${etcdPort}`,
      `--secure-port=${apiPort}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--tls-cert-file=${await file('serving.crt', serving.cert)}`,
      `--tls-private-key-file=${await file('serving.key', serving.key)}`,
      `--client-ca-file=${await file('ca.crt', ca.cert)}`,
      `--token-auth-file=${await file('tokens.csv', `${token},admin,admin-uid,"system:masters"\n`)}`,
      '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=NamespaceLifecycle,ServiceAccount,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy,ResourceQuota',
      '--endpoint-reconciler-type=none',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--service-account-issuer=https://kubernetes.default.svc',
      `--service-account-key-file=${await file('sa.pub', serviceAccount.publicKey.export({ type: 'spki', format: 'pem' }).toString())}`,
      `--service-account-signing-key-file=${await file('sa.key', serviceAccount.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString())}`,
      ...(options.admissionControlConfigFile ? [`--admission-control-config-file=${options.admissionControlConfigFile}`] : []),
    ]);
    const url = `https://127.0.0.1:${apiPort}`;
    const kubeconfig = (as?: string): string =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'real', cluster: { server: url, 'certificate-authority-data': Buffer.from(ca.cert).toString('base64') } }],
        users: [{ name: 'admin', user: { token, ...(as && { as }) } }],
        contexts: [{ name: 'real', context: { cluster: 'real', user: 'admin' } }],
        'current-context': 'real',
      });
    const readyz = (): Promise<boolean> =>
      new Promise((resolve) => {
        const req = httpsGet(`${url}/readyz`, { ca: ca.cert, headers: { Authorization: `Bearer ${token}` } }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve(res.statusCode === 200 && body === 'ok'));
        });
        req.on('error', () => resolve(false));
      });
    await ready(readyz, apiExited, 'kube-apiserver', 120_000);
    return { url, ca, kubeconfig, client: (as) => KubeClient.fromKubeconfigText(kubeconfig(as)), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

const CLUSTER_SCOPED = new Set(['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);

/** The resource of an object of the manifests, from its apiVersion and kind. */
export function resourceTypeOf(object: { apiVersion?: unknown; kind?: unknown }): ResourceType {
  const [group, version] = String(object.apiVersion).includes('/') ? String(object.apiVersion).split('/') : ['', String(object.apiVersion)];
  const kind = String(object.kind);
  const lower = kind.toLowerCase();
  const resource = lower.endsWith('y') ? `${lower.slice(0, -1)}ies` : `${lower}s`;
  return { group: group ?? '', version: version ?? '', resource, kind, namespaced: !CLUSTER_SCOPED.has(kind) };
}
