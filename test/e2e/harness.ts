// End-to-end set-up: podops installed and running on an API server with zero simulation delays, on a backend of
// test/support/backends.ts (the sandbox, or a real control plane), as a user installs it: the CRDs, the
// ServiceAccount with its RBAC and admission policy from `podops manifests`, the webhooks by URL with their CA; the
// operator runs in this process as that ServiceAccount (impersonated), beside the example load balancer; and the
// history of what happened there, from watches (test/support/watch-history.ts).

import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sandbox } from '@podops/sandbox';
import YAML from 'yaml';
import type { Pod } from '../../src/api/kube.ts';
import { CONTROL_LABEL, SERVICE_AVAILABLE_LABEL, isOperationPermissionKey, parseIdLabelKey } from '../../src/api/protocol.ts';
import { createIfAbsent, OPERATOR_NAMESPACE, startPodopsOn, type LocalStackOptions, type PodopsStack } from '../../src/cli/local-stack.ts';
import { KubeClient, unlessNotFound, type KubeObject } from '../../src/kube/client.ts';
import { MUTATING_WEBHOOK_CONFIGURATIONS, NAMESPACES, PODS, SERVICES, VALIDATING_WEBHOOK_CONFIGURATIONS } from '../../src/kube/resources.ts';
import { DEFAULT_MANIFEST_OPTIONS, manifests } from '../../src/operator/manifests.ts';
import { WEBHOOK_NAMES } from '../../src/operator/webhook-configuration.ts';
import { resourceTypeOf } from '../support/kube-apiserver.ts';
import { sandboxBackend, type ApiServer, type Backend } from '../support/backends.ts';
import { startHistory, type ClusterHistory } from '../support/watch-history.ts';

export interface Cluster extends PodopsStack {
  /** The backend's name, as the test titles have it. */
  readonly backend: string;
  kubeconfigPath: string;
  /** A kubeconfig acting as podops' ServiceAccount, for an operator of the test's own (`podops operator --kubeconfig`). */
  operatorKubeconfigPath: string;
  /** Every change of the pods, workloads, Jobs, namespaces and podops' resources since the start. */
  history: ClusterHistory;
  stop(): Promise<void>;
}

/** A cluster on the sandbox, whose own API (its write log, request counts) a test may read. */
export interface SandboxCluster extends Cluster {
  sandbox: Sandbox;
}

export type ClusterOptions = Partial<Omit<LocalStackOptions, 'port' | 'kubeconfigPath' | 'recordWrites'>>;

async function launch<Server extends ApiServer>(backend: Backend<Server>, options: ClusterOptions): Promise<{ cluster: Cluster; server: Server }> {
  const dir = await mkdtemp(join(tmpdir(), 'podops-e2e-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const operatorKubeconfigPath = join(dir, 'operator.kubeconfig');
  const server = await backend.start({
    nodes: options.nodes ?? 3,
    startDelayMs: options.startDelayMs ?? 0,
    gracePeriodCapMs: options.gracePeriodCapMs ?? 0,
    kubeconfigPath,
    ...(options.admissionControlConfigFile !== undefined && { admissionControlConfigFile: options.admissionControlConfigFile }),
  });
  const abort = new AbortController();
  let stack: PodopsStack | undefined;
  let history: ClusterHistory;
  try {
    await installOperatorAccess(server.kubeconfig);
    const operatorKubeconfig = actingAs(server.kubeconfig, OPERATOR_USER);
    await writeFile(operatorKubeconfigPath, operatorKubeconfig, { mode: 0o600 });
    stack = await startPodopsOn(server.kubeconfig, { demo: false, log: () => {}, operatorKubeconfig, ...options }, abort.signal);
    history = await startHistory(stack.client);
  } catch (err) {
    abort.abort();
    await stack?.done;
    await server.stop();
    throw err;
  }
  const started = stack;
  const cluster: Cluster = {
    ...started,
    backend: backend.name,
    kubeconfigPath,
    operatorKubeconfigPath,
    history,
    stop: async () => {
      history.stop();
      // Uninstalled as a user would, while the operator still serves: a cluster after this one on the same API
      // server registers webhooks of its own, and nothing should call a server that is gone. (A test that took
      // its API server away already has nothing to uninstall.)
      await uninstallWebhooks(started.client).catch(() => {});
      if (backend.shared) await deleteTestNamespaces(started.client).catch(() => {});
      abort.abort();
      await started.done;
      await server.stop();
    },
  };
  return { cluster, server };
}

/** podops' ServiceAccount, as `podops manifests` names it. */
const OPERATOR_USER = `system:serviceaccount:${OPERATOR_NAMESPACE}:podops`;
/** What an install gives podops' ServiceAccount: its RBAC and the admission policy that limits it. */
const OPERATOR_ACCESS = new Set(['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);

/** Installs what `podops manifests` gives podops' ServiceAccount, as a user's `kubectl apply` would. */
async function installOperatorAccess(kubeconfig: string): Promise<void> {
  const admin = KubeClient.fromKubeconfigText(kubeconfig);
  try {
    for (const object of manifests({ ...DEFAULT_MANIFEST_OPTIONS, namespace: OPERATOR_NAMESPACE }).filter((o) => OPERATOR_ACCESS.has(o.kind as string))) {
      await createIfAbsent(admin, resourceTypeOf(object), object as KubeObject);
    }
  } finally {
    admin.close();
  }
}

/** `kubeconfig` with its user acting as `user` (impersonation, which the admin may). */
function actingAs(kubeconfig: string, user: string): string {
  const config = YAML.parse(kubeconfig) as { users: { user: Record<string, unknown> }[] };
  for (const entry of config.users) entry.user.as = user;
  return YAML.stringify(config);
}

async function uninstallWebhooks(client: KubeClient): Promise<void> {
  await unlessNotFound(client.delete(MUTATING_WEBHOOK_CONFIGURATIONS, undefined, WEBHOOK_NAMES.mutatingConfiguration));
  await unlessNotFound(client.delete(VALIDATING_WEBHOOK_CONFIGURATIONS, undefined, WEBHOOK_NAMES.validatingConfiguration));
}

/** The API server's own namespaces, and podops', which a cluster after this one on the same server installs into. */
const KEPT_NAMESPACES = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease', OPERATOR_NAMESPACE]);

/**
 * Deletes the namespaces the tests made, and their pods at once (no grace, no finalizers: nothing is tested
 * here). Left terminating, their pods would sit on the next cluster's nodes of the same names, where a drain
 * would wait for them; the rest of each namespace goes in the background, and no later cluster of a file reuses
 * a namespace's name.
 */
async function deleteTestNamespaces(client: KubeClient): Promise<void> {
  const namespaces = (await client.list<{ metadata: { name?: string } }>(NAMESPACES)).items.map((n) => n.metadata.name!).filter((name) => !KEPT_NAMESPACES.has(name));
  for (const name of namespaces) await unlessNotFound(client.delete(NAMESPACES, undefined, name));
  // A terminating namespace takes no new pods: what is listed now is all there will be.
  const pods = (await Promise.all(namespaces.map(async (namespace) => (await client.list<Pod>(PODS, { namespace })).items))).flat();
  for (const pod of pods) {
    const { namespace, name, finalizers } = pod.metadata;
    if (finalizers?.length) await unlessNotFound(client.patch(PODS, namespace, name!, 'merge', { metadata: { finalizers: null } }));
    await unlessNotFound(client.delete(PODS, namespace, name!, { gracePeriodSeconds: 0 }));
  }
}

/** podops on the sandbox. */
export async function startCluster(options: ClusterOptions = {}): Promise<SandboxCluster> {
  const { cluster, server } = await launch(sandboxBackend, options);
  return { ...cluster, sandbox: server.sandbox };
}

/** podops on `backend`. */
export async function startClusterOn(backend: Backend, options: ClusterOptions = {}): Promise<Cluster> {
  return (await launch(backend, options)).cluster;
}

/** A namespace with a controlled Service `web` selecting `app: web`. */
export async function serviceNamespace(cluster: Cluster, namespace: string): Promise<void> {
  await cluster.client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await cluster.client.create(SERVICES, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace, labels: { [CONTROL_LABEL]: 'true' } },
    spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
  });
}

export const controlledPod = (namespace: string, name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels: { app: 'web', [CONTROL_LABEL]: 'true' } },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
});

export interface DeploymentOptions {
  replicas?: number;
  image?: string;
  /** Labelled kusionstack.io/control=true (default), or not. */
  controlled?: boolean;
  strategy?: Record<string, unknown>;
  /** More labels on the pods, besides app=<name>. */
  labels?: Record<string, string>;
}

/** A Deployment of pods labelled app=<name>, with one container named after it. */
export const deploymentManifest = (namespace: string, name: string, options: DeploymentOptions = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace },
  spec: {
    replicas: options.replicas ?? 3,
    ...(options.strategy && { strategy: options.strategy }),
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name, ...options.labels, ...(options.controlled !== false && { [CONTROL_LABEL]: 'true' }) } },
      spec: { containers: [{ name, image: options.image ?? 'nginx:1.27' }] },
    },
  },
});

/** Per-ID lifecycle labels and operation permissions on a pod. */
export const lifecycleLabels = (pod: Pod): string[] =>
  Object.keys(pod.metadata.labels ?? {}).filter((k) => isOperationPermissionKey(k) || parseIdLabelKey(k) !== undefined);

export const isServiceAvailable = (pod: Pod): boolean => pod.metadata.labels?.[SERVICE_AVAILABLE_LABEL] !== undefined && lifecycleLabels(pod).length === 0;

export const getPod = (cluster: Cluster, namespace: string, name: string): Promise<Pod> => cluster.client.get<Pod>(PODS, namespace, name);
