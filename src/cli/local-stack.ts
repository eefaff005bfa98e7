// The whole of podops on a laptop, in one process: the sandbox (API server plus simulated nodes and
// controllers), the operator talking to it over HTTP exactly as to a real cluster, the example cooperation
// controller (a simulated load balancer) and operation controller, and a demo Deployment of controlled pods
// behind a controlled Service. `startPodopsOn` is the part after the sandbox: it installs podops on any API
// server of a kubeconfig and runs it there (the tests run it on a real control plane too).

import type { Registry } from 'prom-client';
import { podTransitionRuleCRD } from '../api/podtransitionrule.ts';
import { rolloutLifecycleCRD } from '../api/rolloutlifecycle.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE } from '../api/protocol.ts';
import { isAlreadyExists, KubeClient, type KubeObject } from '../kube/client.ts';
import { silentLogger, type Logger } from '../kube/log.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, DEPLOYMENTS, MUTATING_WEBHOOK_CONFIGURATIONS, NAMESPACES, PODTRANSITIONRULES, ROLLOUTLIFECYCLES, SECRETS, SERVICES, VALIDATING_WEBHOOK_CONFIGURATIONS } from '../kube/resources.ts';
import { startOperator } from '../operator/operator.ts';
import { urlClientConfig, webhookConfigurations } from '../operator/webhook-configuration.ts';
import { sandboxNotInstalled } from './command.ts';
import type { Sandbox } from '@podops/sandbox';
import { startLoadBalancerController } from '../../examples/load-balancer/load-balancer-controller.ts';
import type { SimulatedLoadBalancer } from '../../examples/load-balancer/load-balancer.ts';
import { startRestartController } from '../../examples/operation/restart-controller.ts';

export interface LocalStackOptions {
  /** Sandbox port; 0 picks a free one. */
  port: number;
  kubeconfigPath: string;
  demo: boolean;
  /** The simulated kubelet's container start delay (a short one makes the lifecycles visible). */
  startDelayMs: number;
  /** Cap of the simulated containers' termination grace period. Default 2 s. */
  gracePeriodCapMs?: number;
  /** `sleep S` in a simulated container lasts S × this (the demo's hooks sleep; tests shorten them). Default 1. */
  sleepScale?: number;
  /** Simulated nodes. Default 3. */
  nodes?: number;
  /** Keep the sandbox's write log (for tests that check invariants over everything that happened). */
  recordWrites?: boolean;
  /** An AdmissionConfiguration file for the sandbox (client certificates it presents to webhooks). */
  admissionControlConfigFile?: string;
  /** Run the operator in this process (default), or leave it to the caller (e.g. as a separate process). */
  operator?: 'in-process' | 'external';
  /** The in-process operator's --eviction-abandoned-after, in milliseconds (default 60 s). */
  evictionAbandonedAfterMs?: number;
  /** Where the example load balancer reports traffic changes. */
  log: (line: string) => void;
  logger?: Logger;
}

/** podops installed and running on an API server: its client, the operator and the example controllers. */
export interface PodopsStack {
  client: KubeClient;
  /** The in-process operator's webhook server, when it runs in-process. */
  webhookAddress: string | undefined;
  /** The in-process operator's metrics (what its /metrics serves), when it runs in-process. */
  operatorMetrics: Registry | undefined;
  loadBalancer: SimulatedLoadBalancer;
  /** Resolves once everything stopped (after the signal aborted). */
  done: Promise<void>;
}

export interface LocalStack extends PodopsStack {
  sandbox: Sandbox;
}

/** What `startPodopsOn` takes of the local stack's options, and the operator's own kubeconfig. */
export type PodopsStackOptions = Pick<LocalStackOptions, 'demo' | 'operator' | 'evictionAbandonedAfterMs' | 'log' | 'logger'> & {
  /** The kubeconfig the in-process operator runs with (e.g. as its ServiceAccount); default the installer's. */
  operatorKubeconfig?: string;
};

export const OPERATOR_NAMESPACE = 'podops-system';
export const CERT_SECRET = 'podops-webhook-certs';
export const DEMO_NAMESPACE = 'demo';

export async function createIfAbsent(client: KubeClient, type: Parameters<KubeClient['create']>[0], object: KubeObject): Promise<void> {
  try {
    await client.create(type, object);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

async function until(check: () => Promise<boolean>, what: string, signal: AbortSignal, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (signal.aborted) throw new Error(`stopped while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts everything; resolves once the webhooks are registered and the demo is created. */
export async function startLocalStack(options: LocalStackOptions, signal: AbortSignal): Promise<LocalStack> {
  const { startSandbox } = await import('@podops/sandbox').catch(sandboxNotInstalled);
  const sandbox = await startSandbox({
    port: options.port,
    kubeconfigPath: options.kubeconfigPath,
    ...(options.recordWrites && { recordWrites: true }),
    ...(options.admissionControlConfigFile !== undefined && { admissionControlConfigFile: options.admissionControlConfigFile }),
    simulation: { nodes: options.nodes ?? 3, kubelet: { startDelayMs: options.startDelayMs, gracePeriodCapMs: options.gracePeriodCapMs ?? 2000, sleepScale: options.sleepScale ?? 1 } },
  });
  let stack: PodopsStack;
  try {
    stack = await startPodopsOn(sandbox.kubeconfig, options, signal);
  } catch (err) {
    await sandbox.stop();
    throw err;
  }
  return { ...stack, sandbox, done: stack.done.then(() => sandbox.stop()) };
}

/**
 * Installs podops on the API server of `kubeconfig` (its CRDs, its namespace, its webhooks by URL with their CA)
 * and runs the operator and the example controllers against it, until `signal` aborts.
 */
export async function startPodopsOn(kubeconfig: string, options: PodopsStackOptions, signal: AbortSignal): Promise<PodopsStack> {
  const logger = options.logger ?? silentLogger();
  const client = KubeClient.fromKubeconfigText(kubeconfig);

  for (const crd of [podTransitionRuleCRD(), rolloutLifecycleCRD()]) await createIfAbsent(client, CUSTOM_RESOURCE_DEFINITIONS, crd as KubeObject);
  await until(() => client.list(PODTRANSITIONRULES, { namespace: 'default', limit: 1 }).then(() => true), 'the PodTransitionRule CRD', signal);
  await createIfAbsent(client, NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: OPERATOR_NAMESPACE } });

  let operatorDone: Promise<void> = Promise.resolve();
  let webhookAddress: string | undefined;
  let operatorMetrics: Registry | undefined;
  const operatorClient = options.operatorKubeconfig === undefined ? client : KubeClient.fromKubeconfigText(options.operatorKubeconfig);
  if (options.operator !== 'external') {
    const operator = startOperator(
      {
        client: operatorClient,
        namespace: OPERATOR_NAMESPACE,
        featureGates: { GraceDeleteWebhook: true, GracefulEviction: true },
        leaderElect: false,
        webhook: { host: '127.0.0.1', port: 0, hosts: LOCAL_WEBHOOK_HOSTS, secretName: CERT_SECRET },
        metricsAddress: '127.0.0.1:0',
        probeAddress: '127.0.0.1:0',
        ...(options.evictionAbandonedAfterMs !== undefined && { evictionAbandonedAfterMs: options.evictionAbandonedAfterMs }),
        logger,
      },
      signal,
    );
    operatorDone = operator.done;
    operatorMetrics = operator.registry;
    webhookAddress = await operator.webhookAddress;
    await registerWebhooks(client, webhookAddress);
  }

  // The example controllers are other actors, as in a cluster: each writes under its own name.
  const lbClient = KubeClient.fromKubeconfigText(kubeconfig, { fieldManager: 'example-load-balancer', userAgent: 'example-load-balancer' });
  const restartClient = KubeClient.fromKubeconfigText(kubeconfig, { fieldManager: 'example-restart', userAgent: 'example-restart' });
  const lb = startLoadBalancerController(lbClient, signal, { logger, log: options.log });
  const restarts = startRestartController(restartClient, signal, logger);
  if (options.demo) await createDemo(client);
  const done = Promise.all([operatorDone, lb.done, restarts]).then(() => {
    for (const each of new Set([client, operatorClient, lbClient, restartClient])) each.close();
  });
  return { client, webhookAddress, operatorMetrics, loadBalancer: lb.lb, done };
}

/** The certificate names of a webhook server on this machine. */
export const LOCAL_WEBHOOK_HOSTS = ['127.0.0.1', 'localhost'];

/**
 * Registers podops' webhook configurations for a server on this machine. The server already serves the
 * certificate of the Secret by then, so the configurations carry its CA from the start: no failing window.
 */
export async function registerWebhooks(client: KubeClient, webhookAddress: string): Promise<void> {
  const secret = await client.get<{ data: Record<string, string> }>(SECRETS, OPERATOR_NAMESPACE, CERT_SECRET);
  for (const config of webhookConfigurations(urlClientConfig(`https://${webhookAddress}`), secret.data['ca.crt'])) {
    const type = config.kind === 'MutatingWebhookConfiguration' ? MUTATING_WEBHOOK_CONFIGURATIONS : VALIDATING_WEBHOOK_CONFIGURATIONS;
    await createIfAbsent(client, type, config as KubeObject);
  }
}

/** A controlled Service and a Deployment of three controlled pods behind it, with rollout hooks. */
async function createDemo(client: KubeClient): Promise<void> {
  const labels = { app: 'web' };
  await createIfAbsent(client, NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: DEMO_NAMESPACE } });
  await createIfAbsent(client, SERVICES, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: DEMO_NAMESPACE, labels: { [CONTROL_LABEL]: CONTROL_LABEL_VALUE } },
    spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
  });
  await createIfAbsent(client, DEPLOYMENTS, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: DEMO_NAMESPACE },
    spec: {
      replicas: 3,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels: { ...labels, [CONTROL_LABEL]: CONTROL_LABEL_VALUE } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 8080 }] }] },
      },
    },
  });
  // Rollout hooks for the demo Deployment: a migration before any new pod, a smoke test at half, a notification.
  const hookJob = (script: string) => ({ backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'hook', image: 'busybox:1.36', command: ['sh', '-c', script] }] } } });
  const hook = (name: string, progressPoint: number | string, script: string) => ({ name, trigger: { progressAvailableParams: { progressPoint } }, jobSpec: hookJob(script) });
  await createIfAbsent(client, ROLLOUTLIFECYCLES, {
    apiVersion: 'apps.kusionstack.io/v1alpha1',
    kind: 'RolloutLifecycle',
    metadata: { name: 'web', namespace: DEMO_NAMESPACE },
    spec: {
      targetRef: { kind: 'Deployment', name: 'web' },
      hooks: [
        // A Deployment's point 0 comes before its new ReplicaSet exists: K8S_ROLLOUT_TO_OBJECT is empty then.
        hook('migrate', 0, 'echo "migrating the schema for the $K8S_ROLLOUT_TYPE from $K8S_ROLLOUT_FROM_OBJECT to ${K8S_ROLLOUT_TO_OBJECT:-a new ReplicaSet, made after this hook}"; sleep 3'),
        hook('smoke', '50%', 'echo "smoke test of $K8S_ROLLOUT_TO_OBJECT passed"; sleep 3'),
        hook('notify', '100%', 'echo "rollout from $K8S_ROLLOUT_FROM_OBJECT done"'),
      ],
    },
  });
}
