// End-to-end set-up: the local stack (sandbox with simulated nodes and controllers, the operator over HTTP,
// the example load balancer) with zero simulation delays and the sandbox's write log on.

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '../../src/api/kube.ts';
import { CONTROL_LABEL, SERVICE_AVAILABLE_LABEL, isOperationPermissionKey, parseIdLabelKey } from '../../src/api/protocol.ts';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '../../src/cli/local-stack.ts';
import { type KubeObject } from '../../src/kube/client.ts';
import { NAMESPACES, PODS, SERVICES } from '../../src/kube/resources.ts';

export interface Cluster extends LocalStack {
  kubeconfigPath: string;
  stop(): Promise<void>;
}

export async function startCluster(options: Partial<LocalStackOptions> = {}): Promise<Cluster> {
  const kubeconfigPath = join(await mkdtemp(join(tmpdir(), 'podops-e2e-')), 'kubeconfig');
  const abort = new AbortController();
  const stack = await startLocalStack(
    { port: 0, kubeconfigPath, demo: false, startDelayMs: 0, gracePeriodCapMs: 0, recordWrites: true, log: () => {}, ...options },
    abort.signal,
  );
  return {
    ...stack,
    kubeconfigPath,
    stop: async () => {
      abort.abort();
      await stack.done;
    },
  };
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
