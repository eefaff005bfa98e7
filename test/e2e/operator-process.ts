// The operator as a separate process (`podops operator`), so tests can SIGKILL it and run two replicas.

import { type ChildProcess, spawn } from 'node:child_process';
import { after, before } from 'node:test';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { registerWebhooks } from '../../src/cli/local-stack.ts';
import type { Backend } from '../support/backends.ts';
import { freePort } from '../support/wait.ts';
import { startCluster, startClusterOn, type Cluster, type ClusterOptions, type SandboxCluster } from './harness.ts';

const mainScript = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export interface OperatorProcess {
  readonly webhookPort: number;
  readonly metricsPort: number;
  /** The health-probe server's port (/healthz, /readyz). */
  readonly healthPort: number;
  child: ChildProcess;
  /** Resolves once the webhook server accepts TLS connections. */
  ready(): Promise<void>;
  kill(): Promise<void>;
  /** SIGTERM and wait (graceful: the lease is released); resolves with how the process ended. */
  stop(): Promise<ProcessExit>;
  /** The value of a metric series on its /metrics, e.g. `leader_election_master_status{name="podops-leader"}`. */
  metric(series: string): Promise<number | undefined>;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Leader-election timings as the operator's flags take them (e.g. `1500ms`, `15s`). */
export interface LeaseTimings {
  leaseDuration: string;
  renewDeadline: string;
  retryPeriod: string;
}

/**
 * Short enough that a takeover after SIGKILL takes a few seconds; long enough that a leader on a loaded machine
 * (test files side by side) renews in time, for one that misses its renew deadline loses the lease and exits.
 */
const FAST_LEASE: LeaseTimings = { leaseDuration: '5s', renewDeadline: '4s', retryPeriod: '250ms' };

export async function startOperatorProcess(
  kubeconfigPath: string,
  options: { webhookPort?: number; leaderElect?: boolean | LeaseTimings; extraArgs?: string[] } = {},
): Promise<OperatorProcess> {
  const webhookPort = options.webhookPort ?? (await freePort());
  const metricsPort = await freePort();
  const healthPort = await freePort();
  const args = [
    mainScript,
    'operator',
    '--kubeconfig', kubeconfigPath,
    '--namespace', 'podops-system',
    '--webhook-host', '127.0.0.1',
    '--webhook-port', String(webhookPort),
    '--webhook-hosts', '127.0.0.1,localhost',
    '--metrics-bind-address', `127.0.0.1:${metricsPort}`,
    '--health-probe-bind-address', `127.0.0.1:${healthPort}`,
    '--feature-gates', 'GraceDeleteWebhook=true',
    '--log-level', 'error',
    ...leaderElectArgs(options.leaderElect),
    ...(options.extraArgs ?? []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<ProcessExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    webhookPort,
    metricsPort,
    healthPort,
    child,
    async ready() {
      // A Node process loading podops from its sources: seconds on an idle machine, many on a loaded one.
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the operator exited (${child.exitCode ?? child.signalCode}) before its webhook server came up on port ${webhookPort}`);
        const up = await new Promise<boolean>((resolve) => {
          const socket = connect({ host: '127.0.0.1', port: webhookPort, rejectUnauthorized: false }, () => {
            socket.end();
            resolve(true);
          });
          socket.on('error', () => resolve(false));
        });
        if (up) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the operator's webhook server did not come up on port ${webhookPort}`);
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
    async metric(series) {
      try {
        const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        const line = text.split('\n').find((l) => l.startsWith(`${series} `));
        return line === undefined ? undefined : Number(line.slice(series.length + 1));
      } catch {
        return undefined;
      }
    },
  };
}

function leaderElectArgs(leaderElect: boolean | LeaseTimings | undefined): string[] {
  if (!leaderElect) return [];
  const timings = leaderElect === true ? FAST_LEASE : leaderElect;
  return [
    '--leader-elect',
    '--leader-elect-lease-duration', timings.leaseDuration,
    '--leader-elect-renew-deadline', timings.renewDeadline,
    '--leader-elect-retry-period', timings.retryPeriod,
  ];
}

/** A cluster whose webhooks `podops operator` serves as a child process, acting as podops' ServiceAccount. */
export interface ClusterWithOperatorProcess<C extends Cluster = Cluster> {
  readonly cluster: C;
  readonly operator: OperatorProcess;
  /** Starts the operator again on the same webhook port (after a kill) and waits until it serves. */
  relaunch(): Promise<void>;
}

/**
 * Registers `before`/`after` hooks of the enclosing suite that start and stop a {@link ClusterWithOperatorProcess}
 * on `backend`, or on the sandbox.
 */
export function clusterWithOperatorProcess(options?: ClusterOptions): ClusterWithOperatorProcess<SandboxCluster>;
export function clusterWithOperatorProcess(options: ClusterOptions, backend: Backend): ClusterWithOperatorProcess;
export function clusterWithOperatorProcess(options: ClusterOptions = {}, backend?: Backend): ClusterWithOperatorProcess {
  let cluster: Cluster | undefined;
  let operator: OperatorProcess | undefined;
  const relaunch = async (port?: number): Promise<void> => {
    operator = await startOperatorProcess(cluster!.operatorKubeconfigPath, { webhookPort: port });
    await operator.ready();
  };
  before(async () => {
    cluster = await (backend ? startClusterOn(backend, { operator: 'external', ...options }) : startCluster({ operator: 'external', ...options }));
    await relaunch();
    await registerWebhooks(cluster.client, `127.0.0.1:${operator!.webhookPort}`);
  });
  after(async () => {
    await operator?.kill();
    await cluster?.stop();
  });
  return {
    get cluster() {
      return cluster!;
    },
    get operator() {
      return operator!;
    },
    relaunch: () => relaunch(operator!.webhookPort),
  };
}
