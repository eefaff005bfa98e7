// The operator's memory with 10,000 controlled pods cached: the operator runs as its own process (as in a
// cluster) against a sandbox in another process; it is measured idle first (the baseline, same process),
// then once it has listed, cached and reconciled every pod. Targets: RSS under 80 MiB idle, under 150 MiB with
// 10,000 pods.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { KubeClient, type KubeObject } from '../src/kube/client.ts';
import { CUSTOM_RESOURCE_DEFINITIONS, NAMESPACES, PODS } from '../src/kube/resources.ts';
import { podTransitionRuleCRD } from '../src/api/podtransitionrule.ts';
import { rolloutLifecycleCRD } from '../src/api/rolloutlifecycle.ts';
import { realisticPod } from './lifecycle.ts';
import { printTable } from './measure.ts';
import { deployedNodeFlags, startServerProcess } from './processes.ts';
import { freePort, sleep } from '../test/support/wait.ts';

async function metrics(port: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    values.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return values;
}

/** The newest modification time of a file below `dir`. */
function newestMtime(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

/**
 * The operator as deployed: compiled JavaScript (dist/), built when missing or older than the sources (a stale
 * build would measure old code). Running the .ts sources would load Node's type stripper, whose memory is not
 * the operator's.
 */
function builtOperator(): string {
  const main = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
  const stale = !existsSync(main) || newestMtime(fileURLToPath(new URL('../src', import.meta.url))) > statSync(main).mtimeMs;
  if (stale) execFileSync(process.execPath, [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-p', fileURLToPath(new URL('../tsconfig.build.json', import.meta.url))], { stdio: 'inherit' });
  return main;
}

const mib = (bytes: number | undefined): string => `${((bytes ?? 0) / 1024 / 1024).toFixed(1)} MiB`;

export async function runOperatorMemoryBench(podCount = 10_000): Promise<void> {
  const server = await startServerProcess();
  const dir = await mkdtemp(join(tmpdir(), 'podops-bench-'));
  const kubeconfig = join(dir, 'kubeconfig');
  // As JSON: in a cluster the operator reads its ServiceAccount and loads no YAML parser; a YAML kubeconfig would
  // add that parser's memory to a figure meant to be the deployment's.
  await writeFile(kubeconfig, JSON.stringify(parse(server.kubeconfig)));
  const client = KubeClient.fromKubeconfigText(server.kubeconfig);
  const metricsPort = await freePort();
  const operator = spawn(
    process.execPath,
    [
      ...deployedNodeFlags(),
      builtOperator(),
      'operator', '--kubeconfig', kubeconfig, '--namespace', 'podops-system',
      '--webhook-host', '127.0.0.1', '--webhook-port', '0', '--webhook-hosts', '127.0.0.1',
      '--metrics-bind-address', `127.0.0.1:${metricsPort}`, '--health-probe-bind-address', '0', '--log-level', 'silent',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  try {
    for (const name of ['podops-system', 'mem']) await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    // As installed by podops manifests: the operator waits for every cache, the CRDs' included.
    for (const crd of [podTransitionRuleCRD(), rolloutLifecycleCRD()]) await client.create(CUSTOM_RESOURCE_DEFINITIONS, crd as KubeObject);
    let idle: Map<string, number> | undefined;
    for (let tries = 0; !idle; tries++) {
      await sleep(200);
      idle = await metrics(metricsPort).catch(() => undefined);
      if (tries > 100) throw new Error('the operator did not start');
    }
    await sleep(2000);
    idle = await metrics(metricsPort);

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
      const now = await metrics(metricsPort);
      const reconciles = [...now].filter(([k]) => k.startsWith('controller_runtime_reconcile_total{controller="podopslifecycle-controller"')).reduce((sum, [, v]) => sum + v, 0);
      stable = reconciles === previous && reconciles >= podCount ? stable + 1 : 0;
      previous = reconciles;
    }
    const loaded = await metrics(metricsPort);
    const rss = loaded.get('process_resident_memory_bytes') ?? 0;
    printTable(`Operator memory with ${podCount.toLocaleString('en-US')} controlled pods cached (operator in its own process)`, [
      ['idle (no controlled pods): RSS / heap used', `${mib(idle.get('process_resident_memory_bytes'))} / ${mib(idle.get('nodejs_heap_size_used_bytes'))}   (target RSS < 80 MiB)`],
      [`${podCount.toLocaleString('en-US')} pods cached and reconciled: RSS / heap used`, `${mib(rss)} / ${mib(loaded.get('nodejs_heap_size_used_bytes'))}   (target RSS < 150 MiB)`],
      ['Node flags (the image\'s ENTRYPOINT)', deployedNodeFlags().join(' ') || 'none'],
      ['per cached pod (RSS over idle)', `${(((rss - (idle.get('process_resident_memory_bytes') ?? 0)) / podCount) / 1024).toFixed(1)} KiB`],
    ]);
  } finally {
    const exited = new Promise((resolve) => operator.once('exit', resolve));
    operator.kill('SIGTERM');
    await exited;
    client.close();
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runOperatorMemoryBench();
