// The operator as the benchmarks that measure its own cost run it: `podops operator` as deployed (compiled
// JavaScript, the image's Node flags) in a process of its own, so its CPU time and memory are its own, and its
// /metrics read as Prometheus would.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { deployedNodeFlags } from './processes.ts';
import { freePort } from '../test/support/wait.ts';

/** Prometheus text as series (`name{labels}`) to values. */
export function parseExposition(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    values.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return values;
}

export async function scrape(url: string): Promise<Map<string, number>> {
  return parseExposition(await (await fetch(url)).text());
}

/** The value of one label in a series name (`name{a="x",b="y"}`). */
export const labelOf = (series: string, label: string): string | undefined => new RegExp(`[{,]${label}="((?:[^"\\\\]|\\\\.)*)"`).exec(series)?.[1];

/** The newest modification time of a file below `dir`. */
function newestMtime(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((newest, entry) => Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

/**
 * The operator as deployed: compiled JavaScript (dist/), built by the package's own build (`npm run build`, which
 * starts from an empty dist/) when missing or older than the sources: a stale build would measure old code.
 * Running the .ts sources would load Node's type stripper, whose memory is not the operator's.
 */
function builtOperator(): string {
  const main = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
  const stale = !existsSync(main) || newestMtime(fileURLToPath(new URL('../src', import.meta.url))) > statSync(main).mtimeMs;
  if (stale) execFileSync('npm', ['run', '-s', 'build'], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: 'inherit' });
  return main;
}

export const mib = (bytes: number | undefined): string => `${((bytes ?? 0) / 1024 / 1024).toFixed(1)} MiB`;

export interface BenchOperator {
  pid: number;
  webhookPort: number;
  metrics(): Promise<Map<string, number>>;
  stop(): Promise<void>;
}

/** Starts `podops operator` against the cluster of `kubeconfigText` (no leader election, quiet); `args` are extra flags. */
export async function startOperatorProcess(kubeconfigText: string, args: string[] = []): Promise<BenchOperator> {
  const dir = await mkdtemp(join(tmpdir(), 'podops-bench-'));
  const kubeconfig = join(dir, 'kubeconfig');
  // As JSON: in a cluster the operator reads its ServiceAccount and loads no YAML parser; a YAML kubeconfig would
  // add that parser's memory to a figure meant to be the deployment's.
  await writeFile(kubeconfig, JSON.stringify(parse(kubeconfigText)));
  const [metricsPort, webhookPort] = [await freePort(), await freePort()];
  const child = spawn(
    process.execPath,
    [
      ...deployedNodeFlags(),
      builtOperator(),
      'operator', '--kubeconfig', kubeconfig, '--namespace', 'podops-system',
      '--webhook-host', '127.0.0.1', '--webhook-port', String(webhookPort), '--webhook-hosts', '127.0.0.1',
      '--metrics-bind-address', `127.0.0.1:${metricsPort}`, '--health-probe-bind-address', '0', '--log-level', 'error',
      ...args,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid ?? 0,
    webhookPort,
    metrics: () => scrape(`http://127.0.0.1:${metricsPort}/metrics`),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
