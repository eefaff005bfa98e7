// The operator's memory with 10,000 controlled pods cached: the operator runs as its own process (as in a
// cluster) against a sandbox in another process; it is measured idle first (the baseline, same process),
// then once it has listed, cached and reconciled every pod. Targets: RSS under 80 MiB idle, under 150 MiB with
// 10,000 pods.

import { fileURLToPath } from 'node:url';
import { KubeClient, type KubeObject } from '../src/kube/client.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, NAMESPACES, PODS } from '../src/kube/resources.ts';
import { podTransitionRuleCRD } from '../src/api/podtransitionrule.ts';
import { rolloutLifecycleCRD } from '../src/api/rolloutlifecycle.ts';
import { realisticPod } from './lifecycle.ts';
import { printTable } from './measure.ts';
import { mib, startOperatorProcess } from './operator-process.ts';
import { deployedNodeFlags, startServerProcess } from './processes.ts';
import { sleep } from '../test/support/wait.ts';

export async function runOperatorMemoryBench(podCount = 10_000): Promise<void> {
  const server = await startServerProcess();
  const client = KubeClient.fromKubeconfigText(server.kubeconfig);
  const operator = await startOperatorProcess(server.kubeconfig, ['--log-level', 'silent']);
  try {
    for (const name of ['podops-system', 'mem']) await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    // As installed by podops manifests: the operator waits for every cache, the CRDs' included.
    for (const crd of [podTransitionRuleCRD(), rolloutLifecycleCRD()]) await client.create(CUSTOM_RESOURCE_DEFINITIONS, crd as KubeObject);
    let idle: Map<string, number> | undefined;
    for (let tries = 0; !idle; tries++) {
      await sleep(200);
      idle = await operator.metrics().catch(() => undefined);
      if (tries > 100) throw new Error('the operator did not start');
    }
    await sleep(2000);
    idle = await operator.metrics();

    // Realistic controlled pods (about 5 KB each as the API stores them).
    const template = realisticPod({});
    const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, generateName: _gn, ownerReferences: _or, ...metadata } = template.metadata;
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < podCount) {
          const i = next++;
          await client.create(PODS, { ...template, status: undefined, metadata: { ...metadata, name: `pod-${i}`, namespace: 'mem' } } as unknown as KubeObject);
        }
      }),
    );
    // Settle: every pod cached and reconciled (the lifecycle controller sets each pod's readiness condition).
    let previous = -1;
    for (let stable = 0; stable < 3; ) {
      await sleep(1000);
      const now = await operator.metrics();
      const reconciles = [...now].filter(([k]) => k.startsWith('controller_runtime_reconcile_total{controller="podopslifecycle-controller"')).reduce((sum, [, v]) => sum + v, 0);
      stable = reconciles === previous && reconciles >= podCount ? stable + 1 : 0;
      previous = reconciles;
    }
    const loaded = await operator.metrics();
    const rss = loaded.get('process_resident_memory_bytes') ?? 0;
    printTable(`Operator memory with ${podCount.toLocaleString('en-US')} controlled pods cached (operator in its own process)`, [
      ['idle (no controlled pods): RSS / heap used', `${mib(idle.get('process_resident_memory_bytes'))} / ${mib(idle.get('nodejs_heap_size_used_bytes'))}   (target RSS < 80 MiB)`],
      [`${podCount.toLocaleString('en-US')} pods cached and reconciled: RSS / heap used`, `${mib(rss)} / ${mib(loaded.get('nodejs_heap_size_used_bytes'))}   (target RSS < 150 MiB)`],
      ['Node flags (the image\'s ENTRYPOINT)', deployedNodeFlags().join(' ') || 'none'],
      ['per cached pod (RSS over idle)', `${(((rss - (idle.get('process_resident_memory_bytes') ?? 0)) / podCount) / 1024).toFixed(1)} KiB`],
    ]);
  } finally {
    await operator.stop();
    client.close();
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runOperatorMemoryBench();
