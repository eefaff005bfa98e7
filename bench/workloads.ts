// Workload controller benchmark: a Deployment of 100 pods rolls out a template change completely, in a
// sandbox that simulates 3 nodes with every kubelet delay set to zero. Measured from the change to the
// Deployment reporting the rollout complete (every replica updated and available, all pods Ready, as
// `kubectl rollout status` decides it). Run on its own with `node bench/workloads.ts`, or through
// bench/run.ts.

import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { startSandbox, type KubeObject, type LocalClient } from '@podops/sandbox';
import { printTable } from './measure.ts';

export interface WorkloadsBenchResult {
  initialRolloutMs: number;
  rolloutMs: number;
}

const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };
const namespace = 'bench';

/** Resolves once the Deployment reports its current generation fully rolled out. */
function rolledOut(client: LocalClient, name: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let watch: { stop(): void } | undefined;
    const timer = setTimeout(() => {
      watch?.stop();
      reject(new Error(`deployment ${name} did not roll out within ${timeoutMs} ms (are the simulated nodes running pods?)`));
    }, timeoutMs);
    const check = (d: KubeObject): void => {
      const spec = d.spec as { replicas: number };
      const status = (d.status ?? {}) as Record<string, number | undefined>;
      const done =
        (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
        status.updatedReplicas === spec.replicas &&
        status.replicas === spec.replicas &&
        status.availableReplicas === spec.replicas &&
        status.readyReplicas === spec.replicas;
      if (!done) return;
      clearTimeout(timer);
      watch?.stop();
      resolve();
    };
    void client
      .watch(deployments, { namespace, query: { fieldSelector: `metadata.name=${name}` } }, (event) => check(event.object as KubeObject))
      .then((w) => (watch = w), reject);
  });
}

export async function runWorkloadsBench(options: { pods?: number; timeoutMs?: number } = {}): Promise<WorkloadsBenchResult> {
  const pods = options.pods ?? 100;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const sandbox = await startSandbox({ simulation: { nodes: 3, kubelet: { startDelayMs: 0, gracePeriodCapMs: 0, leaseRenewIntervalMs: 0 } } });
  try {
    const client = sandbox.client();
    await client.create({ group: '', version: 'v1', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } });
    let start = performance.now();
    await client.create(
      deployments,
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: pods, selector: { matchLabels: { app: 'web' } }, template: template('nginx:1.27') } },
      { namespace },
    );
    await rolledOut(client, 'web', timeoutMs);
    const initialRolloutMs = performance.now() - start;
    start = performance.now();
    await client.patch(deployments, 'web', 'merge', { spec: { template: template('nginx:1.28') } }, { namespace });
    await rolledOut(client, 'web', timeoutMs);
    const result = { initialRolloutMs, rolloutMs: performance.now() - start };
    printTable(`Deployment rollout, ${pods} pods, 3 simulated nodes, zero kubelet delays`, [
      ['create to rolled out', `${result.initialRolloutMs.toFixed(0)} ms`],
      ['template change to rolled out (RollingUpdate 25%/25%)', `${result.rolloutMs.toFixed(0)} ms`],
    ]);
    return result;
  } finally {
    await sandbox.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runWorkloadsBench();
