// The clusters the scale benchmark runs on: a fresh sandbox in its own process, or a real control plane
// (kube-apiserver, kube-controller-manager and etcd from KUBEBUILDER_ASSETS, with simulated nodes), also fresh
// for each run. Either way the benchmark reads the API server's own request counter, so every client counts.

import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { KubeClient } from '../src/kube/client.ts';
import { parseExposition, scrape } from './operator-process.ts';
import { pin, startServerProcess } from './processes.ts';

export interface ScaleCluster {
  /** What serves the API, as printed: `sandbox` or `kube-apiserver v1.32.13`. */
  readonly backend: string;
  readonly kubeconfig: string;
  /** The API server's /metrics. */
  apiMetrics(): Promise<Map<string, number>>;
  /** CPU seconds the cluster's processes (API server, workload controllers, etcd, nodes) have used so far. */
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
}

/** Room for the surge and for pods held while their replacements start. */
const MAX_PODS_PER_NODE = 250;
export const nodesFor = (pods: number): number => Math.ceil((pods * 1.6) / MAX_PODS_PER_NODE) + 1;

export async function startSandboxCluster(pods: number): Promise<ScaleCluster> {
  const server = await startServerProcess({ watchCacheSize: 20_000, simulation: { nodes: nodesFor(pods), kubelet: { maxPods: MAX_PODS_PER_NODE } } });
  return {
    backend: 'sandbox',
    kubeconfig: server.kubeconfig,
    apiMetrics: () => scrape(`${server.url}/metrics`),
    cpuSeconds: async () => {
      const cpu = await server.cpu();
      return (cpu.user + cpu.system) / 1e6;
    },
    stop: () => server.stop(),
  };
}

/** Clock ticks per second of /proc's CPU times. */
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** User and system CPU seconds of the processes whose command line mentions `marker`, from /proc. */
function cpuSecondsOf(marker: string): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) continue;
      // The fields after the command's name (which may hold spaces) in parentheses; utime and stime are the 14th and 15th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks / TICKS;
}

/**
 * A real control plane with kube-controller-manager and simulated nodes, started in a process of its own
 * (bench/control-plane-process.ts) so that the nodes' work is the cluster's, not the benchmark's.
 */
export async function startRealCluster(pods: number, assets: string): Promise<ScaleCluster> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./control-plane-process.ts', import.meta.url)), [JSON.stringify({ assets, nodes: nodesFor(pods), maxPods: MAX_PODS_PER_NODE })], {
    stdio: 'inherit',
  });
  if (child.pid !== undefined) pin(child.pid, 1);
  const started = await new Promise<{ kubeconfig: string; directory: string }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { kubeconfig: string; directory: string }));
    child.once('exit', (code) => reject(new Error(`the control plane's process exited with ${code} before it was ready`)));
  });
  const client = KubeClient.fromKubeconfigText(started.kubeconfig);
  const version = await client.request<{ gitVersion: string }>({ method: 'GET', path: '/version' });
  return {
    backend: `kube-apiserver ${version.gitVersion}`,
    kubeconfig: started.kubeconfig,
    apiMetrics: async () => parseExposition(await client.requestText({ method: 'GET', path: '/metrics', accept: 'text/plain' })),
    cpuSeconds: async () => cpuSecondsOf(started.directory) + cpuSecondsOf('control-plane-process.ts'),
    stop: () =>
      new Promise<void>((resolve) => {
        client.close();
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
}

/**
 * A cluster the user gives (`--kubeconfig`): its nodes run the pods, and its API server must reach this machine's
 * loopback address for the operator's webhooks (a control plane on this machine). Its CPU is not known here.
 */
export async function givenCluster(kubeconfigPath: string): Promise<ScaleCluster> {
  const kubeconfig = await readFile(kubeconfigPath, 'utf8');
  const client = KubeClient.fromKubeconfigText(kubeconfig);
  const version = await client.request<{ gitVersion: string }>({ method: 'GET', path: '/version' });
  return {
    backend: `kube-apiserver ${version.gitVersion} (${kubeconfigPath})`,
    kubeconfig,
    apiMetrics: async () => parseExposition(await client.requestText({ method: 'GET', path: '/metrics', accept: 'text/plain' })),
    cpuSeconds: async () => Number.NaN,
    stop: async () => client.close(),
  };
}
