// A real Kubernetes control plane for tests, as Go's envtest starts one: etcd and kube-apiserver (and, if
// asked, kube-controller-manager) from a directory of binaries, on free loopback ports, with certificates
// made in-process, a temporary directory for etcd's data, the logs and the kubeconfigs, and an admin client
// in system:masters; and, if asked, the sandbox's simulated nodes as its clients, so that pods run on it.
// `startControlPlane` resolves once the API server answers /readyz (and the controller manager /healthz);
// `stop()` ends every process and removes the directory, and so does a start that fails.

import { access, constants, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeConfigLoadOptions, renderKubeconfig, type KubeConfigLoadOptions, type KubeconfigOptions } from '../kubeconfig.ts';
import type { KubeletOptions } from '../nodes/index.ts';
import { startSimulatedNodes, type SimulatedNodes } from '../remote/remote-nodes.ts';
import { createControlPlanePki, serviceClusterIPRange, type ControlPlanePki } from './pki.ts';
import { ProcessGroup, type ManagedProcess } from './processes.ts';

export interface ControlPlaneOptions {
  /**
   * The directory of the binaries: etcd and kube-apiserver, and kube-controller-manager when it is asked
   * for. Default: `KUBEBUILDER_ASSETS`, the variable of Go's envtest and setup-envtest.
   */
  assets?: string;
  /** Also run kube-controller-manager (the workload, garbage-collection, namespace, service-account … controllers). */
  controllerManager?: boolean;
  /**
   * Simulated nodes, `node-1` … `node-N`, as clients of the API server: the sandbox's scheduler and kubelets
   * (docs/sandbox-nodes.md), which bind pods, run their containers and report their status. Default 0: a
   * control plane of its own has no nodes, and pods stay Pending.
   */
  nodes?: number;
  /** The simulated kubelets' delays and limits. */
  kubelet?: KubeletOptions;
  /** Also write the admin kubeconfig to this file (else it is in the control plane's directory). */
  kubeconfigPath?: string;
  /** More kube-apiserver flags, e.g. `--admission-control-config-file=…`; a flag given here wins. */
  apiServerFlags?: readonly string[];
  /** How long each process may take to become ready. Default 60,000 ms. */
  startTimeoutMs?: number;
}

export interface ControlPlane extends AsyncDisposable {
  /** The API server, e.g. `https://127.0.0.1:41235`. */
  readonly url: string;
  /** A kubeconfig (YAML) of the admin, a client certificate in system:masters. */
  readonly kubeconfig: string;
  readonly kubeconfigPath: string;
  /** The kubeconfig as @kubernetes/client-node's `new KubeConfig().loadFromOptions(…)` takes it. */
  readonly kubeConfigOptions: KubeConfigLoadOptions;
  /** The same, acting as `user` (Impersonate-User), which system:masters may. */
  kubeConfigOptionsAs(user: string): KubeConfigLoadOptions;
  /** A kubeconfig (YAML) acting as `user`. */
  kubeconfigAs(user: string): string;
  /** PEM of the CA of the API server's serving certificate and of its client certificates. */
  readonly caCertificate: string;
  /** The temporary directory: the logs (`etcd.log`, `kube-apiserver.log`, `kube-controller-manager.log`), etcd's data. */
  readonly directory: string;
  /** Stops every process and removes the directory; calling it again returns the same stop. */
  stop(): Promise<void>;
}

/** Why a control plane cannot start here, or undefined when `assets` (default KUBEBUILDER_ASSETS) has the binaries. */
export async function controlPlaneUnavailable(options: { assets?: string; controllerManager?: boolean } = {}): Promise<string | undefined> {
  const assets = options.assets ?? process.env.KUBEBUILDER_ASSETS;
  if (!assets) return 'KUBEBUILDER_ASSETS is not set: set it to a directory holding etcd, kube-apiserver and kube-controller-manager (Go envtest assets work)';
  const binaries = ['etcd', 'kube-apiserver', ...(options.controllerManager ? ['kube-controller-manager'] : [])];
  for (const binary of binaries) {
    const found = await access(join(assets, binary), constants.X_OK).then(
      () => true,
      () => false,
    );
    if (!found) return `${join(assets, binary)} is missing or not executable (KUBEBUILDER_ASSETS=${assets})`;
  }
  return undefined;
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const unavailable = await controlPlaneUnavailable(options);
  if (unavailable) throw new Error(`cannot start a control plane: ${unavailable}`);
  // Free ports are found by binding and releasing them: another process may take one meanwhile. A start that
  // lost a port that way is tried again with new ones.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      if (attempt >= 3 || !/address already in use/.test((err as Error).message)) throw err;
    }
  }
}

async function startOnce(options: ControlPlaneOptions): Promise<ControlPlane> {
  const assets = (options.assets ?? process.env.KUBEBUILDER_ASSETS)!;
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const directory = await mkdtemp(join(tmpdir(), 'podops-control-plane-'));
  const processes = new ProcessGroup(directory);
  let nodes: SimulatedNodes | undefined;
  const cleanUp = async (): Promise<void> => {
    await nodes?.stop();
    await processes.stop();
    await rm(directory, { recursive: true, force: true });
  };
  try {
    const pki = await createControlPlanePki();
    const file = async (name: string, content: string): Promise<string> => {
      const path = join(directory, name);
      await writeFile(path, content, { mode: 0o600 });
      return path;
    };
    const [etcdPort, peerPort, apiPort, kcmPort] = await freePorts(4);
    const url = `https://127.0.0.1:${apiPort}`;
    const kubeconfigOf = (as?: string, clientCertificate = pki.admin): KubeconfigOptions => ({
      server: url,
      caCertificate: pki.ca.cert,
      clientCertificate,
      name: 'podops-control-plane',
      ...(as === undefined ? {} : { as }),
    });
    const kubeconfig = renderKubeconfig(kubeconfigOf());
    const kubeconfigPath = await file('kubeconfig', kubeconfig);
    if (options.kubeconfigPath) await writeFile(options.kubeconfigPath, kubeconfig, { mode: 0o600 });

    const etcd = processes.start('etcd', join(assets, 'etcd'), [
      `--data-dir=${join(directory, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      '--unsafe-no-fsync',
      '--log-level=warn',
    ]);
    await waitUntilReady(etcd, () => httpAnswer(`http://127.0.0.1:${etcdPort}/health`, {}).then((a) => a.status === 200), timeoutMs);

    const apiServer = processes.start('kube-apiserver', join(assets, 'kube-apiserver'), withExtraFlags(await apiServerFlags(pki, file, etcdPort!, apiPort!, directory), options.apiServerFlags ?? []));
    const asAdmin = { ca: pki.ca.cert, cert: pki.admin.cert, key: pki.admin.key };
    await waitUntilReady(apiServer, () => httpAnswer(`${url}/readyz`, asAdmin).then((a) => a.status === 200 && a.body === 'ok'), timeoutMs);

    if (options.controllerManager) {
      const kcmKubeconfig = await file('kube-controller-manager.kubeconfig', renderKubeconfig(kubeconfigOf(undefined, pki.controllerManager)));
      const controllerManager = processes.start('kube-controller-manager', join(assets, 'kube-controller-manager'), [
        `--kubeconfig=${kcmKubeconfig}`,
        `--authentication-kubeconfig=${kcmKubeconfig}`,
        `--authorization-kubeconfig=${kcmKubeconfig}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${kcmPort}`,
        `--cert-dir=${join(directory, 'kube-controller-manager')}`,
        // Every controller but one that some distributions' builds add and that needs their own cluster services.
        '--controllers=*,-service-ca-certificate-publisher-controller',
        // Each controller acts as its own kube-system service account, as on kubeadm clusters.
        '--use-service-account-credentials=true',
        '--leader-elect=false',
        `--service-account-private-key-file=${await file('sa.key', pki.serviceAccount.privateKey)}`,
        `--root-ca-file=${await file('ca.crt', pki.ca.cert)}`,
        `--cluster-signing-cert-file=${await file('ca.crt', pki.ca.cert)}`,
        `--cluster-signing-key-file=${await file('ca.key', pki.ca.key)}`,
      ]);
      await waitUntilReady(controllerManager, () => httpAnswer(`https://127.0.0.1:${kcmPort}/healthz`, { insecure: true }).then((a) => a.status === 200 && a.body === 'ok'), timeoutMs);
      // Ready for pods: the ServiceAccount admission refuses pods of a namespace whose `default` account the
      // controller manager has not made yet (an early `kubectl run` on a new cluster meets the same).
      await waitUntilReady(controllerManager, () => httpAnswer(`${url}/api/v1/namespaces/default/serviceaccounts/default`, asAdmin).then((a) => a.status === 200), timeoutMs);
    }

    if (options.nodes) nodes = await startSimulatedNodes({ kubeconfig, nodes: options.nodes, ...(options.kubelet && { kubelet: options.kubelet }) });

    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopping ??= cleanUp());
    return {
      url,
      kubeconfig,
      kubeconfigPath: options.kubeconfigPath ?? kubeconfigPath,
      kubeConfigOptions: kubeConfigLoadOptions(kubeconfigOf()),
      kubeConfigOptionsAs: (user) => kubeConfigLoadOptions(kubeconfigOf(impersonated(user))),
      kubeconfigAs: (user) => renderKubeconfig(kubeconfigOf(impersonated(user))),
      caCertificate: pki.ca.cert,
      directory,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (err) {
    await cleanUp();
    throw err;
  }
}

function impersonated(user: string): string {
  if (typeof user !== 'string' || !user) throw new Error(`the user to act as must be a name, not ${JSON.stringify(user)}`);
  return user;
}

async function apiServerFlags(pki: ControlPlanePki, file: (name: string, content: string) => Promise<string>, etcdPort: number, apiPort: number, directory: string): Promise<string[]> {
  return [
    `--etcd-servers=http://127.0.0.1:${etcdPort}`,
    `--secure-port=${apiPort}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--cert-dir=${join(directory, 'kube-apiserver')}`,
    `--tls-cert-file=${await file('apiserver.crt', pki.apiServer.cert)}`,
    `--tls-private-key-file=${await file('apiserver.key', pki.apiServer.key)}`,
    `--client-ca-file=${await file('ca.crt', pki.ca.cert)}`,
    '--authorization-mode=Node,RBAC',
    '--enable-admission-plugins=NamespaceLifecycle,ServiceAccount,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy,ResourceQuota',
    // Loopback is no valid endpoint address for the `kubernetes` Service, and there is no network to reach.
    '--endpoint-reconciler-type=none',
    `--service-cluster-ip-range=${serviceClusterIPRange}`,
    '--service-account-issuer=https://kubernetes.default.svc',
    `--service-account-key-file=${await file('sa.pub', pki.serviceAccount.publicKey)}`,
    `--service-account-signing-key-file=${await file('sa.key', pki.serviceAccount.privateKey)}`,
    // The aggregation layer's front proxy: without it the API server logs errors about its missing client.
    `--requestheader-client-ca-file=${await file('front-proxy-ca.crt', pki.frontProxyCa)}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${await file('front-proxy-client.crt', pki.frontProxyClient.cert)}`,
    `--proxy-client-key-file=${await file('front-proxy-client.key', pki.frontProxyClient.key)}`,
    '--allow-privileged=true',
  ];
}

/** `flags` with `extra` added; an extra flag replaces a flag of the same name. */
function withExtraFlags(flags: string[], extra: readonly string[]): string[] {
  const name = (flag: string): string => flag.split('=')[0]!;
  const replaced = new Set(extra.map(name));
  return [...flags.filter((flag) => !replaced.has(name(flag))), ...extra];
}

/** Polls `check` until it holds; rejects when the process exits first (with its log) or the time is up. */
async function waitUntilReady(process: ManagedProcess, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await Promise.race([check().catch(() => false), process.exited])) return;
    if (Date.now() > deadline) throw new Error(`${process.name} was not ready in ${timeoutMs / 1000} s; the end of its log (${process.logPath}):\n${await process.logTail()}`);
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 100)), process.exited]);
  }
}

interface HttpAnswer {
  status: number;
  body: string;
}

/** One GET, as a client of the given TLS identity; rejects on a connection error. */
function httpAnswer(url: string, tls: { ca?: string; cert?: string; key?: string; insecure?: boolean }): Promise<HttpAnswer> {
  if (url.startsWith('http:')) return fetch(url, { signal: AbortSignal.timeout(2000) }).then(async (res) => ({ status: res.status, body: await res.text() }));
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: !tls.insecure, timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** `count` distinct free ports of 127.0.0.1, held together while they are chosen. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
