// Sandbox API server benchmark: how long an in-process sandbox takes to start, then, on 10,000 pods, the
// create rate over HTTP keep-alive from one client, the latency of a full list, the delivery latency of
// watch events to 20 watchers at 1,000 writes/s, and the process's memory. Targets: >= 3,000 creates/s,
// list < 300 ms, p99 < 10 ms.
// The sandbox runs in a child process (bench/sandbox-server.ts); its memory is the one reported.
// Run on its own with `node bench/sandbox.ts`, or through bench/run.ts.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { startServerProcess } from './processes.ts';

export interface SandboxBenchOptions {
  pods?: number;
  watchers?: number;
  writesPerSecond?: number;
  watchSeconds?: number;
  /** Requests in flight at once on the one client's keep-alive connections. */
  concurrency?: number;
  /** Pods created and patched (in another namespace, deleted again) before measuring. */
  warmUp?: number;
  log?: (line: string) => void;
}

export interface SandboxBenchResult {
  createsPerSecond: number;
  listMs: number;
  /** From the server storing a write to a watcher receiving it. */
  watchP50Ms: number;
  watchP99Ms: number;
  /** From the client sending a write to a watcher receiving it (includes request handling and queueing). */
  endToEndP50Ms: number;
  endToEndP99Ms: number;
  rssMiB: number;
  heapUsedMiB: number;
}

interface Response {
  status: number;
  body: string;
}

function send(agent: Agent, base: URL, method: string, path: string, body?: string, contentType = 'application/json'): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: base.hostname, port: base.port, method, path, headers: body ? { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Absolute milliseconds with sub-millisecond resolution, comparable with the sandbox process's commit clock. */
const now = (): number => performance.timeOrigin + performance.now();
const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
const mib = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

export async function runSandboxBenchmark(options: SandboxBenchOptions = {}): Promise<SandboxBenchResult> {
  const pods = options.pods ?? 10_000;
  const watchers = options.watchers ?? 20;
  const writesPerSecond = options.writesPerSecond ?? 1000;
  const watchSeconds = options.watchSeconds ?? 3;
  const concurrency = options.concurrency ?? 16;
  const warmUp = options.warmUp ?? 2000;
  const log = options.log ?? ((line: string) => console.log(line));
  const server = await startServerProcess();
  const base = new URL(server.url);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const ns = 'bench';
  try {
    await send(agent, base, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: ns } }));

    // 1. Create rate, after a warm-up in another namespace (steady state, not the JIT's first minutes).
    const podBody = (i: number): string =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `pod-${i}`, labels: { app: 'bench', shard: String(i % 10) } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
      });
    const createAll = async (namespace: string, count: number): Promise<number> => {
      let next = 0;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < count) {
            const i = next++;
            const res = await send(agent, base, 'POST', `/api/v1/namespaces/${namespace}/pods`, podBody(i));
            if (res.status !== 201) throw new Error(`create pod-${i}: ${res.status} ${res.body}`);
          }
        }),
      );
      return performance.now() - start;
    };
    await send(agent, base, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'warm-up' } }));
    await createAll('warm-up', warmUp);
    for (let i = 0; i < warmUp; i++) {
      const patch = JSON.stringify({ metadata: { annotations: { 'bench/sent': String(performance.now()) } } });
      await send(agent, base, 'PATCH', `/api/v1/namespaces/warm-up/pods/pod-${i}`, patch, 'application/merge-patch+json');
    }
    await send(agent, base, 'DELETE', '/api/v1/namespaces/warm-up');
    while ((await send(agent, base, 'GET', '/api/v1/namespaces/warm-up')).status !== 404) await new Promise((r) => setTimeout(r, 50));
    const createsPerSecond = Math.round(pods / ((await createAll(ns, pods)) / 1000));

    // 2. Full list (median of 5).
    const listTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      const res = await send(agent, base, 'GET', `/api/v1/namespaces/${ns}/pods`);
      listTimes.push(performance.now() - start);
      if (res.status !== 200 || (JSON.parse(res.body) as { items: unknown[] }).items.length !== pods) throw new Error('list failed');
    }
    const listMs = Math.round(percentile(listTimes.sort((a, b) => a - b), 50));

    // 3. Watch latency: 20 watchers, writes at a steady rate stamping the send time. End to end runs from
    // the client sending the write; delivery runs from the server storing it (its commit clock).
    const rv = (JSON.parse((await send(agent, base, 'GET', `/api/v1/namespaces/${ns}/pods?limit=1`)).body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const watch = await watchPods(base, `/api/v1/namespaces/${ns}/pods?watch=1&resourceVersion=${rv}`, watchers);
    const total = writesPerSecond * watchSeconds;
    // Writes are paced evenly (about one per millisecond), not in bursts.
    const tickMs = 1;
    const perTick = Math.max(1, Math.round((writesPerSecond * tickMs) / 1000));
    let written = 0;
    const inflight: Promise<Response>[] = [];
    const watchStart = performance.now();
    while (written < total) {
      const due = Math.min(total, Math.floor(((performance.now() - watchStart) / 1000) * writesPerSecond) + perTick);
      for (; written < due; written++) {
        const patch = JSON.stringify({ metadata: { annotations: { 'bench/sent': String(now()) } } });
        inflight.push(send(agent, base, 'PATCH', `/api/v1/namespaces/${ns}/pods/pod-${written % pods}`, patch, 'application/merge-patch+json'));
      }
      await new Promise((r) => setTimeout(r, tickMs));
    }
    await Promise.all(inflight);
    const expected = total * watchers;
    const deadline = performance.now() + 5000;
    while (watch.receipts.length < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    watch.stop();
    const sorted = watch.receipts.map((r) => r.receivedAt - r.sentAt).sort((a, b) => a - b);
    const endToEndP50Ms = Math.round(percentile(sorted, 50) * 100) / 100;
    const endToEndP99Ms = Math.round(percentile(sorted, 99) * 100) / 100;
    const committed = await server.commits();
    const delivery = watch.receipts
      .flatMap((r) => {
        const stored = committed[r.rv];
        return stored === undefined ? [] : [r.receivedAt - stored];
      })
      .sort((a, b) => a - b);
    const watchP50Ms = Math.round(percentile(delivery, 50) * 100) / 100;
    const watchP99Ms = Math.round(percentile(delivery, 99) * 100) / 100;

    // 4. Memory of the sandbox process with the pods stored.
    const memory = await server.memory();
    const result: SandboxBenchResult = { createsPerSecond, listMs, watchP50Ms, watchP99Ms, endToEndP50Ms, endToEndP99Ms, rssMiB: mib(memory.rss), heapUsedMiB: mib(memory.heapUsed) };
    log(`sandbox: ${pods} pods, ${watchers} watchers, ${writesPerSecond} writes/s for ${watchSeconds} s`);
    log(`  create rate (HTTP keep-alive, 1 client, ${concurrency} in flight, after ${warmUp} warm-up creates and patches): ${createsPerSecond} pods/s   (target >= 3000)`);
    log(`  full list of ${pods} pods: ${listMs} ms   (target < 300)`);
    log(`  watch delivery (stored -> received): p50 ${watchP50Ms} ms, p99 ${watchP99Ms} ms over ${delivery.length}/${expected} deliveries   (target p99 < 10)`);
    log(`  write -> watchers end to end (sent -> received): p50 ${endToEndP50Ms} ms, p99 ${endToEndP99Ms} ms`);
    log(`  memory: rss ${result.rssMiB} MiB, heap used ${result.heapUsedMiB} MiB`);
    return result;
  } finally {
    agent.destroy();
    await server.stop();
  }
}

interface Receipt {
  rv: string;
  sentAt: number;
  receivedAt: number;
}

/**
 * Opens `count` watches and notes when each event line of the benchmark arrives. Lines are scanned as
 * bytes: decoding 20 streams into strings would make this client's garbage collector, not the server,
 * the largest part of the measured latency.
 */
async function watchPods(base: URL, path: string, count: number): Promise<{ receipts: Receipt[]; stop(): void }> {
  const receipts: Receipt[] = [];
  const rvKey = Buffer.from('"resourceVersion":"');
  const sentKey = Buffer.from('"bench/sent":"');
  const field = (line: Buffer, key: Buffer): string | undefined => {
    const at = line.indexOf(key);
    if (at < 0) return undefined;
    const from = at + key.length;
    return line.toString('latin1', from, line.indexOf(0x22, from));
  };
  const stops = await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<() => void>((resolve, reject) => {
        const req = request({ host: base.hostname, port: base.port, path }, (res) => {
          let rest: Buffer | undefined;
          res.on('data', (chunk: Buffer) => {
            const receivedAt = now();
            let data = rest ? Buffer.concat([rest, chunk]) : chunk;
            for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a)) {
              const line = data.subarray(0, nl);
              data = data.subarray(nl + 1);
              const sent = field(line, sentKey);
              const rv = field(line, rvKey);
              if (sent !== undefined && rv !== undefined) receipts.push({ rv, sentAt: Number(sent), receivedAt });
            }
            rest = data.length ? Buffer.from(data) : undefined;
          });
          resolve(() => req.destroy());
        });
        req.on('error', reject);
        req.end();
      }),
    ),
  );
  return { receipts, stop: () => stops.forEach((stop) => stop()) };
}

/**
 * WATCHERS watches of WATCH_URL, the first STALLED of them never reading until told to 'resume'; answers
 * 'opened' once they are, and 'resume' and 'closed' with how many stalled ones the server has ended.
 */
const watchClients = `
  import { connect } from 'node:net';
  const url = new URL(process.env.WATCH_URL);
  const stalled = [];
  let closed = 0;
  for (let i = 0; i < Number(process.env.WATCHERS); i++) {
    const socket = connect(Number(url.port), url.hostname);
    socket.write('GET ' + url.pathname + url.search + ' HTTP/1.1\\r\\nHost: ' + url.host + '\\r\\n\\r\\n');
    socket.on('error', () => {});
    if (i < Number(process.env.STALLED)) {
      socket.pause();
      socket.once('close', () => closed++);
      stalled.push(socket);
    } else socket.resume();
  }
  process.on('message', (question) => {
    if (question === 'resume') for (const socket of stalled) socket.resume();
    process.send(question === 'opened' ? 0 : closed);
  });
`;

/**
 * Watchers that stop reading: `watchers` watches of one namespace's pods, `stalled` of them never reading
 * their stream, while `writes` pod patches go through. kube-apiserver closes a watcher that falls behind its
 * buffer (the client watches again from where it was); the sandbox must too, so that neither the writes nor
 * the memory pay for the clients that stopped reading. Figures: the writes' time with no watcher and with
 * them, how many stalled watches the server closed, and the server's memory before, during and after.
 */
export async function runSlowWatchersBenchmark(options: { watchers?: number; stalled?: number; writes?: number; log?: (line: string) => void } = {}): Promise<void> {
  const watchers = options.watchers ?? 500;
  const stalled = options.stalled ?? 250;
  const writes = options.writes ?? 2000;
  const log = options.log ?? ((line: string) => console.log(line));
  const server = await startServerProcess();
  const base = new URL(server.url);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const ns = 'slow';
  const pods = 100;
  const open: ChildProcess[] = [];
  try {
    await send(agent, base, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: ns } }));
    for (let i = 0; i < pods; i++) {
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `pod-${i}`, labels: { app: 'slow' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } };
      await send(agent, base, 'POST', `/api/v1/namespaces/${ns}/pods`, JSON.stringify(pod));
    }
    // Patches with an annotation of 1 KiB, 16 in flight.
    const patchAll = async (): Promise<number> => {
      let next = 0;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < writes) {
            const i = next++;
            const patch = JSON.stringify({ metadata: { annotations: { 'bench/filler': 'x'.repeat(1024), 'bench/i': String(i) } } });
            const res = await send(agent, base, 'PATCH', `/api/v1/namespaces/${ns}/pods/pod-${i % pods}`, patch, 'application/merge-patch+json');
            if (res.status !== 200) throw new Error(`patch pod-${i % pods}: ${res.status} ${res.body}`);
          }
        }),
      );
      return performance.now() - start;
    };
    const aloneMs = await patchAll();
    const before = await server.memory();
    // The watches in a process of their own (raw connections: a stalled one sends its request and never reads a
    // byte), so that reading 250 streams does not slow this process's writes.
    const clients = spawn(process.execPath, ['--input-type=module', '-e', watchClients], {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, WATCH_URL: `${server.url}/api/v1/namespaces/${ns}/pods?watch=1&allowWatchBookmarks=true`, WATCHERS: String(watchers), STALLED: String(stalled) },
    });
    open.push(clients);
    const ask = (question: string): Promise<number> =>
      new Promise((resolve) => {
        clients.once('message', (answer) => resolve(Number(answer)));
        clients.send(question);
      });
    await ask('opened');
    await new Promise((r) => setTimeout(r, 500));
    const withWatchersMs = await patchAll();
    const during = await server.memory();
    // A stalled watch the server closed ends once its client has read what was sent before the end (megabytes
    // each, in the sockets' buffers): read until no more end.
    let closedDuringWrites = await ask('resume');
    for (let last = -1, deadline = performance.now() + 60_000; last !== closedDuringWrites && performance.now() < deadline; ) {
      last = closedDuringWrites;
      await new Promise((r) => setTimeout(r, 3000));
      closedDuringWrites = await ask('closed');
    }
    clients.kill();
    await new Promise((r) => setTimeout(r, 1000));
    const after = await server.memory();
    log(`sandbox with watchers that stop reading: ${watchers} watches of ${pods} pods, ${stalled} of them never reading, ${writes} patches of ~1 KiB`);
    log(`  writes: ${Math.round(aloneMs)} ms with no watcher, ${Math.round(withWatchersMs)} ms with the watchers   (target: within 3x)`);
    log(`  stalled watches the server closed: ${closedDuringWrites}/${stalled}`);
    log(`  server rss: ${mib(before.rss)} MiB before the watches, ${mib(during.rss)} MiB after the writes, ${mib(after.rss)} MiB once they closed; heap used ${mib(before.heapUsed)} / ${mib(during.heapUsed)} / ${mib(after.heapUsed)} MiB; external ${mib(before.external)} / ${mib(during.external)} / ${mib(after.external)} MiB   (target: rss grows < 200 MiB)`);
  } finally {
    for (const child of open) child.kill();
    agent.destroy();
    await server.stop();
  }
}

/**
 * The start of an in-process sandbox (bench/sandbox-start.ts in a fresh process, Node's default flags): on
 * the TypeScript sources, as this repository's tests load it, and on the build, as an installed package is.
 */
async function logSandboxStart(log: (line: string) => void = console.log): Promise<void> {
  const program = fileURLToPath(new URL('./sandbox-start.ts', import.meta.url));
  const others = (process.env.NODE_OPTIONS ?? '').replace('--conditions=podops-source', '').trim();
  for (const [what, nodeOptions] of [['sources', `${others} --conditions=podops-source`], ['build', others]]) {
    const output = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [program], { env: { ...process.env, NODE_OPTIONS: nodeOptions } }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    const { importMs, withoutNodes, withNodes } = JSON.parse(output) as { importMs: number; withoutNodes: { firstMs: number; medianMs: number }; withNodes: { firstMs: number; medianMs: number } };
    log(`sandbox start (${what}): import ${importMs} ms once; startSandbox() without nodes first ${withoutNodes.firstMs} ms, then median ${withoutNodes.medianMs} ms; with 3 simulated nodes first ${withNodes.firstMs} ms, median ${withNodes.medianMs} ms   (target: well under 1 s)`);
  }
}

/**
 * Node flags of this measuring client (never of the sandbox, which runs with Node's defaults). With
 * Node's default young generation the client, busy with 20 watch streams, ran full collections several
 * times a second (5 to 15 ms pauses, measured with --trace-gc) that showed up as delivery latency; with a
 * smaller one it only scavenges, for 1 to 3 ms.
 */
const clientFlags = ['--max-semi-space-size=8'];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (clientFlags.every((flag) => process.execArgv.includes(flag))) {
    await logSandboxStart();
    await runSandboxBenchmark();
    await runSlowWatchersBenchmark();
  }
  else {
    const child = spawn(process.execPath, [...process.execArgv, ...clientFlags, ...process.argv.slice(1)], { stdio: 'inherit' });
    process.exitCode = (await new Promise<number | null>((resolve) => child.once('exit', resolve))) ?? 1;
  }
}
