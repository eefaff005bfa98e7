// Simulated nodes benchmark: 1,000 pods created directly (no workload controller) become Ready on 10
// simulated nodes with every kubelet delay set to zero; measured from the first create to the last pod
// reported Ready, as seen through a watch. The Endpoints controllers run too, with a Service selecting
// every pod. Run on its own with `node bench/nodes.ts`, or through bench/run.ts.

import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { startSandbox, type KubeObject } from '@podops/sandbox';
import { printTable } from './measure.ts';

export interface NodesBenchResult {
  createMs: number;
  allReadyMs: number;
}

const pods = { group: '', version: 'v1', resource: 'pods' };
const namespace = 'bench';

const isReady = (pod: KubeObject): boolean =>
  Array.isArray((pod.status as { conditions?: unknown } | undefined)?.conditions) &&
  ((pod.status as { conditions: { type: string; status: string }[] }).conditions.some((c) => c.type === 'Ready' && c.status === 'True'));

export async function runNodesBench(options: { pods?: number; nodes?: number; timeoutMs?: number } = {}): Promise<NodesBenchResult> {
  const count = options.pods ?? 1000;
  const nodes = options.nodes ?? 10;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const sandbox = await startSandbox({ simulation: { nodes, kubelet: { startDelayMs: 0, gracePeriodCapMs: 0, leaseRenewIntervalMs: 0 } } });
  try {
    const client = sandbox.client();
    await client.create({ group: '', version: 'v1', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    await client.create(
      { group: '', version: 'v1', resource: 'services' },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } },
      { namespace },
    );
    const ready = new Set<string>();
    let resolveAll: () => void = () => {};
    const allReady = new Promise<void>((resolve) => (resolveAll = resolve));
    const watch = await client.watch(pods, { namespace }, (event) => {
      const pod = event.object as KubeObject;
      if (event.type !== 'DELETED' && isReady(pod)) ready.add(pod.metadata.name ?? '');
      if (ready.size === count) resolveAll();
    });
    const timer = setTimeout(() => resolveAll(), timeoutMs);
    const start = performance.now();
    for (let i = 0; i < count; i++) {
      await client.create(
        pods,
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: `web-${i}`, labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
        { namespace },
      );
    }
    const createMs = performance.now() - start;
    await allReady;
    const allReadyMs = performance.now() - start;
    clearTimeout(timer);
    watch.stop();
    if (ready.size !== count) throw new Error(`only ${ready.size} of ${count} pods became Ready within ${timeoutMs} ms`);
    const result = { createMs, allReadyMs };
    printTable(`${count} pods to Ready, ${nodes} simulated nodes, zero kubelet delays`, [
      ['creating the pods (in process)', `${result.createMs.toFixed(0)} ms`],
      ['first create to all Ready (watch)', `${result.allReadyMs.toFixed(0)} ms`],
    ]);
    return result;
  } finally {
    await sandbox.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runNodesBench();
