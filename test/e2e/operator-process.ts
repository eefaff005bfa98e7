// The operator as a separate process (`podops operator`), so tests can SIGKILL it and run two replicas.

import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';

export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

const mainScript = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export interface OperatorProcess {
  readonly webhookPort: number;
  readonly metricsPort: number;
  child: ChildProcess;
  /** Resolves once the webhook server accepts TLS connections. */
  ready(): Promise<void>;
  kill(): Promise<void>;
  /** SIGTERM and wait (graceful: the lease is released). */
  stop(): Promise<void>;
  /** The value of a metric series on its /metrics, e.g. `leader_election_master_status{name="podops-leader"}`. */
  metric(series: string): Promise<number | undefined>;
}

export async function startOperatorProcess(kubeconfigPath: string, options: { webhookPort?: number; leaderElect?: boolean } = {}): Promise<OperatorProcess> {
  const webhookPort = options.webhookPort ?? (await freePort());
  const metricsPort = await freePort();
  const args = [
    mainScript,
    'operator',
    '--kubeconfig', kubeconfigPath,
    '--namespace', 'podops-system',
    '--webhook-host', '127.0.0.1',
    '--webhook-port', String(webhookPort),
    '--webhook-hosts', '127.0.0.1,localhost',
    '--metrics-bind-address', `127.0.0.1:${metricsPort}`,
    '--health-probe-bind-address', '0',
    '--feature-gates', 'GraceDeleteWebhook=true',
    '--log-level', 'error',
    ...(options.leaderElect ? ['--leader-elect', '--leader-elect-lease-duration', '1500ms', '--leader-elect-renew-deadline', '1s', '--leader-elect-retry-period', '200ms'] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    webhookPort,
    metricsPort,
    child,
    async ready() {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
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
    async stop() {
      child.kill('SIGTERM');
      await exited;
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
