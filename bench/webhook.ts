// Admission webhook throughput and latency: the mutating webhook over HTTPS keep-alive on loopback, the
// server in its own process on one core with the image's Node flags (as in a cluster). Reviews are pod UPDATEs of a realistic 5 KB pod
// with two lifecycles (object and oldObject, as the API server sends them).
// Targets (issue 5): >= 5,000 reviews/s on one core; p99 <= 5 ms at 1,000 reviews/s. The throughput is also
// given against a baseline measured in the same run: a bare HTTPS server in the same process that only parses
// each review and allows it, so a slower machine and a slower podops can be told apart.

import { type ChildProcess, fork } from 'node:child_process';
import { Agent, request } from 'node:https';
import { fileURLToPath } from 'node:url';
import { scenarios } from './lifecycle.ts';
import { printTable } from './measure.ts';
import { deployedNodeFlags, pin } from './processes.ts';
import { reviewBody } from '../test/support/admission-review.ts';

interface Server {
  address: string;
  baseline: string;
  ca: string;
  child: ChildProcess;
}

function startServer(): Promise<Server> {
  const child = fork(fileURLToPath(new URL('./webhook-server.ts', import.meta.url)), [], { execPath: process.execPath, stdio: 'inherit', execArgv: deployedNodeFlags() });
  if (child.pid !== undefined) {
    pin(child.pid, 1);
    pin(process.pid, 0);
  }
  return new Promise((resolve, reject) => {
    child.once('message', (m: unknown) => resolve({ ...(m as { address: string; baseline: string; ca: string }), child }));
    child.once('exit', (code) => reject(new Error(`webhook server exited with ${code}`)));
  });
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

export async function runWebhookBench(): Promise<void> {
  const server = await startServer();
  const agent = new Agent({ keepAlive: true, maxSockets: 64, ca: server.ca });
  const [, input] = scenarios()[2]!;
  const body = reviewBody({
    uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
    name: input.pod.metadata.name,
    namespace: input.pod.metadata.namespace,
    operation: 'UPDATE',
    userInfo: { username: 'system:serviceaccount:podops-system:podops', groups: ['system:authenticated'] },
    object: input.pod,
    oldObject: input.oldPod,
    dryRun: false,
    options: { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' },
  });
  const review = (address = server.address): Promise<number> =>
    new Promise((resolve, reject) => {
      const start = performance.now();
      const [host, port] = address.split(':');
      const req = request({ host, port: Number(port), path: '/mutating-generic?timeout=5s', method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        res.on('data', () => {});
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - start) : reject(new Error(`HTTP ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  try {
    // Warm up the JIT and the connections.
    for (let i = 0; i < 3000; i++) await review();
    for (let i = 0; i < 3000; i++) await review(server.baseline);

    // Throughput: a closed loop with as many requests in flight as an API server would send.
    const concurrency = 32;
    const serverCpuMicros = (): Promise<number> =>
      new Promise((resolve) => {
        const answer = (m: unknown): void => {
          if (typeof m !== 'object' || m === null || !('cpuMicros' in m)) return;
          server.child.off('message', answer);
          resolve(Number(m.cpuMicros));
        };
        server.child.on('message', answer);
        server.child.send('cpu');
      });
    /** Reviews per second of wall time, and the server's CPU time per review in microseconds. */
    const throughputOf = async (address: string): Promise<{ perSecond: number; cpuMicros: number }> => {
      const durationMs = 3000;
      let done = 0;
      const cpuBefore = await serverCpuMicros();
      const start = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() - start < durationMs) {
            await review(address);
            done++;
          }
        }),
      );
      const perSecond = (done * 1000) / (performance.now() - start);
      return { perSecond, cpuMicros: ((await serverCpuMicros()) - cpuBefore) / done };
    };
    const baseline = await throughputOf(server.baseline);
    const throughput = await throughputOf(server.address);
    const rows: [string, string][] = [
      ['review body', `${Buffer.byteLength(body)} bytes (pod UPDATE, object + oldObject, 2 lifecycles)`],
      [`baseline: a bare HTTPS server parsing and allowing each review`, `${Math.round(baseline.perSecond).toLocaleString('en-US')} reviews/s, ${Math.round(baseline.cpuMicros)} µs CPU each`],
      [
        `throughput (${concurrency} in flight, server on one core)`,
        `${Math.round(throughput.perSecond).toLocaleString('en-US')} reviews/s   ${(throughput.perSecond / baseline.perSecond).toFixed(2)}x baseline   (target >= 5,000)`,
      ],
      ['server CPU per review (steadier than wall time on a busy machine)', `${Math.round(throughput.cpuMicros)} µs   ${(throughput.cpuMicros / baseline.cpuMicros).toFixed(2)}x baseline`],
    ];

    // Latency at fixed rates: an open loop, requests paced evenly whatever the answers do.
    for (const rate of [1000, 3000]) {
      const latencies: number[] = [];
      const total = rate * 3;
      const pending: Promise<void>[] = [];
      const begin = performance.now();
      for (let sent = 0; sent < total; ) {
        const due = Math.min(total, Math.floor(((performance.now() - begin) / 1000) * rate) + 1);
        for (; sent < due; sent++) pending.push(review().then((ms) => void latencies.push(ms)));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await Promise.all(pending);
      const sorted = latencies.sort((a, b) => a - b);
      rows.push([`latency at ${rate.toLocaleString('en-US')} reviews/s`, `p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms${rate === 1000 ? '   (target p99 <= 5 ms)' : ''}`]);
    }
    rows.push(['Node flags (the image\'s ENTRYPOINT)', deployedNodeFlags().join(' ') || 'none']);
    printTable('Admission webhook (mutating-generic, HTTPS keep-alive, loopback)', rows);
  } finally {
    agent.destroy();
    server.child.send('stop');
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runWebhookBench();
