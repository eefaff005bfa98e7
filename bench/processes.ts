// Benchmark processes: a sandbox API server in its own process, and pinning processes to CPUs so a client
// and its server do not compete for one core.

import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { WriteRecord } from '@podops/sandbox';

export interface ServerProcess {
  url: string;
  /** A kubeconfig for the server (plain HTTP). */
  kubeconfig: string;
  memory(): Promise<NodeJS.MemoryUsage>;
  /** The server process's CPU time so far (user and system, microseconds). */
  cpu(): Promise<NodeJS.CpuUsage>;
  /** When each pod write of the benchmark namespace was stored, by resourceVersion (absolute ms). */
  commits(): Promise<Record<string, number>>;
  /** Pod writes in the benchmark namespace (needs `recordWrites`): all, and those that only flipped Ready. */
  writes(): Promise<{ total: number; readyOnly: number }>;
  /** The write log of a namespace, pods left out (needs `recordWrites`). */
  records(namespace: string): Promise<WriteRecord[]>;
  stop(): Promise<void>;
}

/**
 * Pins a process to one CPU when `taskset` exists and there are two CPUs or more, so that client and
 * server do not keep waking each other up on a shared core. Returns whether it did.
 */
export function pin(pid: number, cpu: number): boolean {
  if (availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-pc', String(cpu), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A sandbox in its own process; `options` are extra SandboxOptions (JSON-serializable). */
export function startServerProcess(options: Record<string, unknown> = {}): Promise<ServerProcess> {
  // Node's defaults, as `podops sandbox` runs: never the flags of the measuring client.
  const child: ChildProcess = fork(fileURLToPath(new URL('./sandbox-server.ts', import.meta.url)), [JSON.stringify(options)], { execPath: process.execPath, execArgv: [], stdio: 'inherit' });
  if (child.pid !== undefined && pin(child.pid, 1)) pin(process.pid, 0);
  const next = <T>(key: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: unknown): void => {
        const value = (message as Record<string, unknown>)[key];
        if (value === undefined) return;
        child.off('message', onMessage);
        resolve(value as T);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`sandbox process exited with ${code}`)));
    });
  return next<{ url: string; kubeconfig: string }>('server').then(({ url, kubeconfig }) => ({
    url,
    kubeconfig,
    memory: () => {
      const answer = next<NodeJS.MemoryUsage>('memory');
      child.send('memory');
      return answer;
    },
    cpu: () => {
      const answer = next<NodeJS.CpuUsage>('cpu');
      child.send('cpu');
      return answer;
    },
    commits: () => {
      const answer = next<Record<string, number>>('commits');
      child.send('commits');
      return answer;
    },
    writes: () => {
      const answer = next<{ total: number; readyOnly: number }>('writes');
      child.send('writes');
      return answer;
    },
    records: (namespace) => {
      const answer = next<WriteRecord[]>('records');
      child.send({ records: namespace });
      return answer;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  }));
}

/** The Node flags of the image's ENTRYPOINT (between `node` and the script): the operator runs as deployed. */
export function deployedNodeFlags(): string[] {
  const dockerfile = readFileSync(fileURLToPath(new URL('../Dockerfile', import.meta.url)), 'utf8');
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
  if (!entrypoint) throw new Error('the Dockerfile has no ENTRYPOINT in exec form');
  const argv = JSON.parse(entrypoint) as string[];
  return argv.slice(1, argv.findIndex((a) => a.endsWith('.js')));
}
