// What a controlled rollout costs, against Kubernetes alone, as the workload grows: a Deployment of N pods
// (maxSurge 25%, maxUnavailable 25%) rolls out a new image, once with plain pods and once with controlled pods
// (`kusionstack.io/control: "true"`, GraceDelete on, a PodTransitionRule whose availability budget is the
// Deployment's maxUnavailable). Measured from the template change to the Deployment reporting every replica
// updated and available: the wall time, every request the API server answered meanwhile (its own counter,
// `apiserver_request_total`, so every client counts: the workload controllers, the kubelets, podops), podops'
// own requests by verb and resource (its `podops_api_requests_total`), its CPU seconds and memory, and the p99
// of the pod webhook that runs GraceDelete and the surge bound. Each run has a fresh cluster and, when controlled,
// a fresh `podops operator` (its own process, as deployed). The cluster is a sandbox (its own process, simulated
// nodes with the kubelet's default delays: a second to start a pod, termination grace capped at two), or with
// KUBEBUILDER_ASSETS (or `--backend real`) a real kube-apiserver, kube-controller-manager and etcd with the same
// simulated nodes as their client, or with `--kubeconfig` a cluster of the user's whose API server reaches this
// machine's loopback address (the webhooks are called there). Goals are printed beside the figures, never asserted.
//
//   npm run bench -- scale [--pods 10,100,300,1000] [--backend sandbox|real] [--kubeconfig FILE] [--save DIR]
//
// --save keeps the API server's and the operator's metrics at the end of each run (DIR/<backend>-<pods>-<mode>-*.prom).

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { podTransitionRuleCRD } from '../src/api/podtransitionrule.ts';
import { rolloutLifecycleCRD } from '../src/api/rolloutlifecycle.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE } from '../src/api/protocol.ts';
import { createIfAbsent, registerWebhooks } from '../src/cli/local-stack.ts';
import { isNotFound, KubeClient, type CompletedRequest, type KubeObject } from '../src/kube/client.ts';
import { resourceOfPath, verbOf } from '../src/kube/client-metrics.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, DEPLOYMENTS, MUTATING_WEBHOOK_CONFIGURATIONS, NAMESPACES, PODTRANSITIONRULES, VALIDATING_WEBHOOK_CONFIGURATIONS } from '../src/kube/resources.ts';
import { urlClientConfig, webhookConfigurations } from '../src/operator/webhook-configuration.ts';
import { printTable } from './measure.ts';
import { labelOf, mib, startOperatorProcess, type BenchOperator } from './operator-process.ts';
import { pin } from './processes.ts';
import { givenCluster, startRealCluster, startSandboxCluster, type ScaleCluster } from './scale-clusters.ts';
import { sleep, until } from '../test/support/wait.ts';

const NAMESPACE = 'scale';
const POD_WEBHOOK = '/validating-generic';
/** kube-apiserver's verb label of a Kubernetes verb, where they differ. */
const API_SERVER_VERBS: Record<string, string> = { create: 'POST', update: 'PUT' };

interface Deployment {
  metadata: { generation?: number };
  spec: { replicas: number };
  status?: { observedGeneration?: number; replicas?: number; updatedReplicas?: number; availableReplicas?: number; readyReplicas?: number };
}

const rolledOut = (d: Deployment): boolean =>
  (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
  d.status?.updatedReplicas === d.spec.replicas &&
  d.status?.replicas === d.spec.replicas &&
  d.status?.availableReplicas === d.spec.replicas;

/** Requests by `VERB resource[/subresource]`. */
type Requests = Map<string, number>;

/** By verb and resource; with `byCode`, the answers other than 2xx apart (`PATCH pods 409`). */
const requestsOf = (metrics: Map<string, number>, name: string, verbLabel: string, byCode = false): Requests => {
  const requests: Requests = new Map();
  for (const [series, value] of metrics) {
    // Non-resource requests (/metrics, /readyz) are the benchmark's and the probes', not the workload's.
    if (!series.startsWith(`${name}{`) || !labelOf(series, 'resource')) continue;
    const sub = labelOf(series, 'subresource');
    const code = labelOf(series, 'code') ?? '';
    const key = `${labelOf(series, verbLabel)?.toUpperCase()} ${labelOf(series, 'resource')}${sub ? `/${sub}` : ''}${byCode && !code.startsWith('2') ? ` ${code}` : ''}`;
    requests.set(key, (requests.get(key) ?? 0) + value);
  }
  return requests;
};

const minus = (after: Requests, before: Requests): Requests => new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as [string, number]).filter(([, v]) => v > 0));
const total = (requests: Requests): number => [...requests.values()].reduce((a, b) => a + b, 0);

/** histogram_quantile over the buckets of the series `name{…}` whose labels include every one of `where`. */
function quantile(metrics: Map<string, number>, name: string, where: Record<string, string[]>, q: number): number | undefined {
  const buckets = new Map<number, number>();
  for (const [series, value] of metrics) {
    if (!series.startsWith(`${name}_bucket{`) || !Object.entries(where).every(([label, values]) => values.includes(labelOf(series, label) ?? ''))) continue;
    const le = labelOf(series, 'le') ?? '+Inf';
    const bound = le === '+Inf' ? Infinity : Number(le);
    buckets.set(bound, (buckets.get(bound) ?? 0) + value);
  }
  const sorted = [...buckets].sort(([a], [b]) => a - b);
  const count = sorted.at(-1)?.[1] ?? 0;
  if (count === 0) return undefined;
  const rank = q * count;
  let lower = 0;
  let below = 0;
  for (const [bound, cumulative] of sorted) {
    if (cumulative >= rank) return bound === Infinity ? lower : lower + (bound - lower) * ((rank - below) / Math.max(1, cumulative - below));
    lower = bound;
    below = cumulative;
  }
  return lower;
}

/** Per controller: how long keys waited in its queue (p99) and how long reconciles took (p99), and how many. */
function controllerWaits(metrics: Map<string, number>): string {
  const names = new Set([...metrics.keys()].filter((k) => k.startsWith('controller_runtime_reconcile_total{')).map((k) => labelOf(k, 'controller') ?? ''));
  const ms = (seconds: number | undefined): string => (seconds === undefined ? '-' : `${(seconds * 1000).toFixed(0)} ms`);
  return [...names]
    .sort()
    .map((name) => {
      const reconciles = [...metrics].filter(([k]) => k.startsWith('controller_runtime_reconcile_total{') && labelOf(k, 'controller') === name).reduce((sum, [, v]) => sum + v, 0);
      const waited = quantile(metrics, 'workqueue_queue_duration_seconds', { name: [name] }, 0.99);
      const worked = quantile(metrics, 'controller_runtime_reconcile_time_seconds', { controller: [name] }, 0.99);
      return `${name.replace(/-controller$/, '')} ${reconciles} (wait ${ms(waited)}, work ${ms(worked)})`;
    })
    .join(', ');
}

interface Run {
  pods: number;
  ms: number;
  /** What served the API. */
  backend: string;
  /** The cluster's CPU seconds during the rollout: the API server, the workload controllers, the kubelets (NaN when unknown). */
  serverCpuSeconds: number;
  /** Every request the API server answered during the rollout, the benchmark's own left out. */
  cluster: Requests;
  podops?: { requests: Requests; cpuSeconds: number; rss: number; webhookP99Ms: number | undefined; controllers: string };
}

async function waitRolledOut(client: KubeClient, timeoutMs: number): Promise<void> {
  await until(() => client.get<Deployment>(DEPLOYMENTS, NAMESPACE, 'web'), rolledOut, `Deployment ${NAMESPACE}/web rolled out`, timeoutMs, 100);
}

/** Kubernetes alone; controlled pods with GraceDelete; and the same with a PodTransitionRule budget as the Deployment's maxUnavailable. */
type Mode = 'plain' | 'controlled' | 'budget';

/** Where each run's cluster comes from: a fresh one per run (sandbox or real plane), or one the user gives. */
type Backend = { kind: 'sandbox' } | { kind: 'real'; assets: string } | { kind: 'given'; kubeconfig: string };

async function clusterFor(backend: Backend, pods: number): Promise<ScaleCluster> {
  if (backend.kind === 'sandbox') return startSandboxCluster(pods);
  if (backend.kind === 'real') return startRealCluster(pods, backend.assets);
  return givenCluster(backend.kubeconfig);
}

/** On a cluster the user gave: what a run leaves (its namespace, and webhooks that name an operator now stopped). */
async function cleanUp(client: KubeClient): Promise<void> {
  for (const config of webhookConfigurations(urlClientConfig('https://127.0.0.1'))) {
    const type = config.kind === 'MutatingWebhookConfiguration' ? MUTATING_WEBHOOK_CONFIGURATIONS : VALIDATING_WEBHOOK_CONFIGURATIONS;
    await client.delete(type, undefined, (config as { metadata: { name: string } }).metadata.name).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
  await client.delete(NAMESPACES, undefined, NAMESPACE).catch((err: unknown) => {
    if (!isNotFound(err)) throw err;
  });
  await until(() => client.get(NAMESPACES, undefined, NAMESPACE).then(() => false, (err: unknown) => isNotFound(err)), Boolean, `namespace ${NAMESPACE} gone`, 600_000, 500);
}

/** Prometheus text of a scrape, for `--save`. */
const exposition = (metrics: Map<string, number>): string => [...metrics].map(([series, value]) => `${series} ${value}`).join('\n') + '\n';

async function run(pods: number, mode: Mode, backend: Backend, saveDir?: string): Promise<Run> {
  const controlled = mode !== 'plain';
  const cluster = await clusterFor(backend, pods);
  // The benchmark's own requests (setup and polling) are counted, to be left out of the API server's count.
  const own: CompletedRequest[] = [];
  const client = KubeClient.fromKubeconfigText(cluster.kubeconfig, { onRequest: (request) => own.push(request) });
  let operator: BenchOperator | undefined;
  try {
    if (backend.kind === 'given') await cleanUp(client);
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    const labels = { app: 'web', ...(controlled && { [CONTROL_LABEL]: CONTROL_LABEL_VALUE }) };
    if (controlled) {
      await createIfAbsent(client, NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'podops-system' } });
      for (const crd of [podTransitionRuleCRD(), rolloutLifecycleCRD()]) await createIfAbsent(client, CUSTOM_RESOURCE_DEFINITIONS, crd as KubeObject);
      operator = await startOperatorProcess(cluster.kubeconfig, ['--feature-gates', 'GraceDeleteWebhook=true']);
      if (operator.pid) pin(operator.pid, 0);
      await until(() => client.list(PODTRANSITIONRULES, { namespace: NAMESPACE }).then(() => true, () => false), Boolean, 'PodTransitionRules served', 30_000, 100);
      await until(() => operator!.metrics().then(() => true, () => false), Boolean, 'the operator up', 30_000, 100);
      await until(() => registerWebhooks(client, `127.0.0.1:${operator!.webhookPort}`).then(() => true, () => false), Boolean, "the operator's webhooks registered", 30_000, 200);
      if (mode === 'budget') await client.create(PODTRANSITIONRULES, {
        apiVersion: 'apps.kusionstack.io/v1alpha1',
        kind: 'PodTransitionRule',
        metadata: { name: 'budget', namespace: NAMESPACE },
        spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'max-unavailable', availablePolicy: { maxUnavailableValue: '25%' } }] },
      });
    }
    const template = (image: string) => ({ metadata: { labels }, spec: { containers: [{ name: 'web', image }] } });
    await client.create(DEPLOYMENTS, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NAMESPACE },
      spec: {
        replicas: pods,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        template: template('nginx:1.27'),
      },
    });
    await waitRolledOut(client, 600_000);
    // Let the last writes of the first rollout (statuses, lifecycles of new pods) settle.
    await sleep(2000);
    const clusterBefore = requestsOf(await cluster.apiMetrics(), 'apiserver_request_total', 'verb', true);
    const operatorBefore = await operator?.metrics();
    const ownBefore = own.length;
    const cpuBefore = await cluster.cpuSeconds();
    const started = performance.now();
    await client.patch(DEPLOYMENTS, NAMESPACE, 'web', 'merge', { spec: { template: template('nginx:1.28') } });
    await waitRolledOut(client, 1_800_000);
    const ms = performance.now() - started;
    const cpuAfter = await cluster.cpuSeconds();
    const operatorAfter = await operator?.metrics();
    const apiAfter = await cluster.apiMetrics();
    const clusterAfter = requestsOf(apiAfter, 'apiserver_request_total', 'verb', true);
    if (saveDir) {
      await mkdir(saveDir, { recursive: true });
      await writeFile(join(saveDir, `${backend.kind}-${pods}-${mode}-apiserver.prom`), exposition(apiAfter));
      if (operatorAfter) await writeFile(join(saveDir, `${backend.kind}-${pods}-${mode}-podops.prom`), exposition(operatorAfter));
    }
    const ownRequests: Requests = new Map();
    for (const request of own.slice(ownBefore)) {
      const target = resourceOfPath(request.path);
      const verb = verbOf(request.method, target?.named ?? false, request.watch);
      const key = `${API_SERVER_VERBS[verb] ?? verb.toUpperCase()} ${target?.resource}${target?.subresource ? `/${target.subresource}` : ''}`;
      ownRequests.set(key, (ownRequests.get(key) ?? 0) + 1);
    }
    const result: Run = { pods, ms, backend: cluster.backend, serverCpuSeconds: cpuAfter - cpuBefore, cluster: minus(minus(clusterAfter, clusterBefore), ownRequests) };
    if (operatorBefore && operatorAfter) {
      const webhook = { webhook: [POD_WEBHOOK], kind: ['Pod'], operation: ['CREATE', 'DELETE'] };
      const p99 = quantile(operatorAfter, 'podops_admission_review_duration_seconds', webhook, 0.99);
      result.podops = {
        requests: minus(requestsOf(operatorAfter, 'podops_api_requests_total', 'verb', true), requestsOf(operatorBefore, 'podops_api_requests_total', 'verb', true)),
        cpuSeconds: (operatorAfter.get('process_cpu_seconds_total') ?? 0) - (operatorBefore.get('process_cpu_seconds_total') ?? 0),
        rss: operatorAfter.get('process_resident_memory_bytes') ?? 0,
        webhookP99Ms: p99 === undefined ? undefined : p99 * 1000,
        controllers: controllerWaits(operatorAfter),
      };
    }
    return result;
  } finally {
    await operator?.stop();
    if (backend.kind === 'given') await cleanUp(client);
    client.close();
    await cluster.stop();
  }
}

const perPod = (requests: number, pods: number): string => (requests / pods).toFixed(1);
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;

/** The biggest entries of a request breakdown, per replaced pod. */
function breakdown(requests: Requests, pods: number, top = 8): string {
  return [...requests]
    .sort(([, a], [, b]) => b - a)
    .slice(0, top)
    .map(([key, n]) => `${key} ${perPod(n, pods)}`)
    .join(', ');
}

export async function runScaleBench(argv: string[] = []): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { pods: { type: 'string', default: '10,100,300,1000' }, kubeconfig: { type: 'string' }, backend: { type: 'string' }, save: { type: 'string' } },
    strict: true,
  });
  const sizes = values.pods.split(',').map((n) => Number(n.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--pods takes a comma-separated list of pod counts, got "${values.pods}"`);
  const assets = process.env.KUBEBUILDER_ASSETS;
  const kind = values.kubeconfig !== undefined ? 'given' : (values.backend ?? (assets ? 'real' : 'sandbox'));
  if (kind === 'real' && !assets) throw new Error('--backend real needs KUBEBUILDER_ASSETS: a directory holding etcd, kube-apiserver and kube-controller-manager');
  if (!['sandbox', 'real', 'given'].includes(kind) || (kind === 'given' && values.backend !== undefined && values.backend !== 'given'))
    throw new Error(`--backend takes sandbox or real (or give --kubeconfig alone), got "${values.backend}"`);
  const backend: Backend = kind === 'given' ? { kind, kubeconfig: values.kubeconfig! } : kind === 'real' ? { kind, assets: assets! } : { kind: 'sandbox' };
  const where = backend.kind === 'sandbox' ? 'sandbox' : backend.kind === 'real' ? `a real control plane from ${backend.assets}, simulated nodes` : `the cluster of ${backend.kubeconfig}`;
  console.log(`\nControlled rollouts at scale (${where}; ${sizes.join(', ')} pods; maxSurge 25%, maxUnavailable 25%; controlled: GraceDelete and a 25% budget rule)`);
  const controlledRuns: Run[] = [];
  for (const pods of sizes) {
    const plain = await run(pods, 'plain', backend, values.save);
    const alone = await run(pods, 'controlled', backend, values.save);
    const controlled = await run(pods, 'budget', backend, values.save);
    controlledRuns.push(controlled);
    const plainTotal = total(plain.cluster);
    const controlledTotal = total(controlled.cluster);
    const podops = controlled.podops;
    const lists = podops ? [...podops.requests].filter(([key]) => key.startsWith('LIST ')).reduce((sum, [, n]) => sum + n, 0) : 0;
    printTable(`N = ${pods}`, [
      ['wall time: plain / controlled', `${(plain.ms / 1000).toFixed(1)} s / ${(controlled.ms / 1000).toFixed(1)} s = ${ratio(controlled.ms, plain.ms)}   (goal <= 2x)`],
      ['  controlled without the budget rule', `${(alone.ms / 1000).toFixed(1)} s = ${ratio(alone.ms, plain.ms)}, ${perPod(total(alone.cluster), pods)} requests per pod`],
      [
        `${plain.backend} CPU: plain / without the rule / controlled`,
        [plain, alone, controlled].map((r) => (Number.isNaN(r.serverCpuSeconds) ? '-' : `${r.serverCpuSeconds.toFixed(1)} s (${((100 * r.serverCpuSeconds * 1000) / r.ms).toFixed(0)}% of a core)`)).join(' / '),
      ],
      ['API requests per replaced pod: plain / controlled', `${perPod(plainTotal, pods)} / ${perPod(controlledTotal, pods)} = ${ratio(controlledTotal, plainTotal)}   (goal <= 2x)`],
      ['  plain, by verb and resource (per pod)', breakdown(plain.cluster, pods)],
      ['  controlled, by verb and resource (per pod)', breakdown(controlled.cluster, pods)],
      ['podops requests per replaced pod', podops ? `${perPod(total(podops.requests), pods)}: ${breakdown(podops.requests, pods, 10)}` : '-'],
      ['podops LISTs during the rollout', `${lists}   (goal: not growing with N)`],
      ['podops CPU during the rollout / RSS after', podops ? `${podops.cpuSeconds.toFixed(2)} s / ${mib(podops.rss)}` : '-'],
      ['podops reconciles (p99 queue wait, p99 work)', podops?.controllers ?? '-'],
      ['pod webhook p99 (GraceDelete, surge bound)', podops?.webhookP99Ms === undefined ? '-' : `${podops.webhookP99Ms.toFixed(1)} ms`],
    ]);
  }
  if (controlledRuns.length > 1) {
    const first = controlledRuns.find((r) => r.pods >= 100) ?? controlledRuns[0]!;
    const last = controlledRuns.at(-1)!;
    const smallest = controlledRuns[0]!;
    const per = (r: Run): number => total(r.cluster) / r.pods;
    printTable('Flatness', [
      [`controlled requests per pod, N=${last.pods} over N=${first.pods}`, `${ratio(per(last), per(first))}   (goal within 1.10x)`],
      [
        `pod webhook p99, N=${last.pods} over N=${smallest.pods}`,
        last.podops?.webhookP99Ms && smallest.podops?.webhookP99Ms ? `${ratio(last.podops.webhookP99Ms, smallest.podops.webhookP99Ms)}   (goal <= 2x)` : '-',
      ],
    ]);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runScaleBench(process.argv.slice(2));
