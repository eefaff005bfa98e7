// Dashboard benchmark: 2,000 controlled pods in a sandbox, the dashboard watching them, its page in Chromium. Measures
// the page's first render (navigation to the rows drawn) and, at 100 label changes a second, the time from the API
// server accepting a change to the page's DOM showing it (a MutationObserver in the page stamps each row's new
// phase). Changes go to the pods in view: a virtualised list draws no others. Then, without a browser, what
// 500 streams of which 250 never read cost the server while the pods change. Run on its own with
// `node bench/dashboard.ts`, or through bench/run.ts; the page part needs /usr/bin/chromium.

import { spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startSandbox, type KubeObject } from '@podops/sandbox';
import { CONTROL_LABEL, idLabelKey } from '../src/api/protocol.ts';
import { MAX_STREAMS, startDashboard } from '../src/dashboard/server.ts';
import { KubeClient } from '../src/kube/client.ts';
import { PODS } from '../src/kube/resources.ts';
import type { Update } from '../src/dashboard/views.ts';
import { chromiumMissing, launchChromium } from '../test/support/chromium.ts';
import { openStream } from '../test/support/sse.ts';
import { printTable } from './measure.ts';

const PODS_COUNT = 2000;
const RATE_PER_SECOND = 100;
const DURATION_MS = 10_000;
/** The pods changed in turn: the first rows in view, each changed every 250 ms. */
const CHANGED = 25;

/** What the in-page probe sees; typed here because the bench is compiled without the DOM's types. */
interface ProbedPage {
  document: {
    querySelector(selector: string): unknown;
    querySelectorAll(selector: string): ArrayLike<{ dataset: Record<string, string | undefined>; querySelector(selector: string): { dataset: Record<string, string | undefined> } | null }>;
  };
  MutationObserver: new (callback: () => void) => { observe(target: unknown, options: Record<string, boolean>): void };
  performance: { timeOrigin: number; now(): number };
  seen: [key: string, phase: string, at: number][];
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function run(): Promise<void> {
  const missing = chromiumMissing();
  if (missing) {
    console.log(`\ndashboard: skipped, ${missing}`);
    return;
  }
  const sandbox = await startSandbox();
  const abort = new AbortController();
  const client = KubeClient.fromKubeconfigText(sandbox.kubeconfig);
  const browser = await launchChromium();
  try {
    const local = sandbox.client();
    await local.create({ group: '', version: 'v1', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
    const names = Array.from({ length: PODS_COUNT }, (_, i) => `web-${String(i).padStart(4, '0')}`);
    for (const name of names) {
      const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { [CONTROL_LABEL]: 'true' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
      await local.create({ group: '', version: 'v1', resource: 'pods' }, pod, { namespace: 'bench' });
    }
    const dashboard = await startDashboard({ client, namespace: 'bench', port: 0 }, abort.signal);
    const page = await browser.context.newPage();
    const navigated = performance.now();
    await page.goto(dashboard.url);
    await page.waitForSelector(`.shown:text("${PODS_COUNT} of ${PODS_COUNT} pods")`);
    await page.waitForSelector('.pod');
    const firstRenderMs = performance.now() - navigated;

    await page.evaluate(() => {
      const w = globalThis as unknown as ProbedPage;
      w.seen = [];
      const last = new Map<string, string>();
      const scan = (): void => {
        const at = w.performance.timeOrigin + w.performance.now();
        for (const row of Array.from(w.document.querySelectorAll('.pod'))) {
          const key = row.dataset.key ?? '';
          const phase = row.querySelector('.phase')?.dataset.phase ?? '';
          if (last.get(key) !== phase) w.seen.push([key, phase, at]);
          last.set(key, phase);
        }
      };
      new w.MutationObserver(scan).observe(w.document.querySelector('.list'), { subtree: true, childList: true, attributes: true, characterData: true });
      scan();
    });

    // The stream as a browser gets it, read in this process: the server's share of the latency.
    const stream = await openStream(`${dashboard.url}api/stream`);
    const streamed: { key: string; phase: string; at: number }[] = [];
    let read = 0;
    const reader = setInterval(() => {
      for (; read < stream.events.length; read++) {
        const update = JSON.parse(stream.events[read]!.data) as Update;
        for (const row of update.upsert ?? []) streamed.push({ key: row.key, phase: row.phase, at: Date.now() });
      }
    }, 1);

    // Change k begins a lifecycle on its pod (PreCheck) when the pod has none, and removes it otherwise (Completing).
    const writes: { key: string; phase: string; at: number }[] = [];
    const pending: Promise<void>[] = [];
    const begun = new Set<string>();
    const start = performance.now();
    for (let k = 0; k < (RATE_PER_SECOND * DURATION_MS) / 1000; k++) {
      const wait = start + (k * 1000) / RATE_PER_SECOND - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const name = names[k % CHANGED]!;
      const on = !begun.has(name);
      if (on) begun.add(name);
      else begun.delete(name);
      const stamp = `${BigInt(Date.now()) * 1_000_000n}`;
      const labels = on
        ? { [idLabelKey('operating', 'bench')]: stamp, [idLabelKey('operation-type', 'bench')]: 'update', [idLabelKey('pre-check', 'bench')]: stamp }
        : { [idLabelKey('operating', 'bench')]: null, [idLabelKey('operation-type', 'bench')]: null, [idLabelKey('pre-check', 'bench')]: null };
      pending.push(client.patch(PODS, 'bench', name, 'merge', { metadata: { labels } }).then(() => void writes.push({ key: `bench/${name}`, phase: on ? 'PreCheck' : 'Completing', at: Date.now() })));
    }
    await Promise.all(pending);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const seen = (await page.evaluate(() => (globalThis as unknown as ProbedPage).seen)).map(([key, phase, at]) => ({ key, phase, at }));
    clearInterval(reader);
    stream.close();

    /** For each write, how long until `observed` first shows it; and how many it never showed (overtaken). */
    const delays = (observed: { key: string; phase: string; at: number }[]): { sorted: number[]; missed: number } => {
      const sorted: number[] = [];
      for (const write of writes) {
        const shown = observed.find(({ key, phase, at }) => key === write.key && phase === write.phase && at >= write.at - 50);
        if (shown) sorted.push(Math.max(0, shown.at - write.at));
      }
      return { sorted: sorted.sort((a, b) => a - b), missed: writes.length - sorted.length };
    };
    const toStream = delays(streamed);
    const { sorted: latencies, missed } = delays(seen);
    printTable(`dashboard: ${PODS_COUNT} controlled pods, ${RATE_PER_SECOND} label changes/s for ${DURATION_MS / 1000} s, page in Chromium`, [
      ['first render (navigation to rows drawn)', `${firstRenderMs.toFixed(0)} ms (target < 1000 ms)`],
      ['change in the API server to the stream, p50 / p99', `${percentile(toStream.sorted, 50).toFixed(0)} / ${percentile(toStream.sorted, 99).toFixed(0)} ms`],
      ['change in the API server to the DOM, p50', `${percentile(latencies, 50).toFixed(0)} ms`],
      ['change in the API server to the DOM, p99', `${percentile(latencies, 99).toFixed(0)} ms (target < 500 ms)`],
      ['changes shown / not seen (overtaken)', `${latencies.length} / ${missed}`],
      ['machine load (1-minute average, cores)', `${loadavg()[0]!.toFixed(1)} (${availableParallelism()})`],
    ]);
  } finally {
    await browser.close();
    abort.abort();
    client.close();
    await sandbox.stop();
  }
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** 500 connections to the stream of $DASHBOARD, every other one never reading a byte. */
const streamClients = `
  import { connect } from 'node:net';
  const { hostname, port } = new URL(process.env.DASHBOARD);
  for (let i = 0; i < 500; i++) {
    const socket = connect(Number(port), hostname);
    socket.write('GET /api/stream HTTP/1.1\\r\\nHost: ' + hostname + ':' + port + '\\r\\n\\r\\n');
    if (i % 2 === 0) socket.pause();
    else socket.resume();
    socket.on('error', () => {});
  }
`;

/**
 * 500 streams, 250 of them never reading, while podops' events come (each is an update on every stream): the
 * streams the server keeps and its memory. Before the cap every stream stayed and each kept what it had not read.
 */
async function runStalledStreams(): Promise<void> {
  const sandbox = await startSandbox();
  const abort = new AbortController();
  const client = KubeClient.fromKubeconfigText(sandbox.kubeconfig);
  try {
    const local = sandbox.client();
    await local.create({ group: '', version: 'v1', resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
    const names = Array.from({ length: 200 }, (_, i) => `web-${String(i).padStart(4, '0')}`);
    for (const name of names) {
      const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { [CONTROL_LABEL]: 'true' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
      await local.create({ group: '', version: 'v1', resource: 'pods' }, pod, { namespace: 'bench' });
    }
    const dashboard = await startDashboard({ client, namespace: 'bench', port: 0 }, abort.signal);
    while (!dashboard.hub.snapshot().synced) await new Promise((r) => setTimeout(r, 20));
    // podops' events, one every 50 ms, each with a message of 2 KiB: every update carries the list of the 100 most
    // recent (up to 200 KiB), as while a rollout or a drain goes on.
    const change = async (round: number): Promise<void> => {
      for (let i = 0; i < 200; i++) {
        const at = new Date().toISOString();
        const event = { apiVersion: 'v1', kind: 'Event', metadata: { name: `e-${round}-${i}` }, involvedObject: { kind: 'Pod', name: names[0], namespace: 'bench' }, reason: 'Bench', message: 'x'.repeat(2048), source: { component: 'podops' }, firstTimestamp: at, lastTimestamp: at, type: 'Normal' };
        await local.create({ group: '', version: 'v1', resource: 'events' }, event, { namespace: 'bench' });
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 500));
    };
    // The same changes without streams first: what the server grows by anyway (the sandbox is in this process).
    const start = process.memoryUsage();
    await change(0);
    const before = process.memoryUsage();
    // The clients in a process of their own, so that this one's memory is the server's.
    const clients = spawn(process.execPath, ['--input-type=module', '-e', streamClients], { stdio: ['pipe', 'inherit', 'inherit'], env: { ...process.env, DASHBOARD: dashboard.url } });
    await new Promise((r) => setTimeout(r, 1000));
    await change(1);
    const during = process.memoryUsage();
    const held = dashboard.hub.subscribers;
    clients.kill();
    await new Promise((r) => setTimeout(r, 1000));
    const after = process.memoryUsage();
    printTable('dashboard: 500 streams, 250 of them never reading, during 200 updates of up to 200 KiB (podops events)', [
      ['streams the server keeps', `${held} (cap ${MAX_STREAMS})`],
      ['rss: start / after changes without streams / with the streams / after they closed', `${mib(start.rss)} / ${mib(before.rss)} / ${mib(during.rss)} / ${mib(after.rss)} (target: the streams add < 50 MiB)`],
      ['heap used + buffers, before / with the streams', `${mib(before.heapUsed + before.arrayBuffers)} / ${mib(during.heapUsed + during.arrayBuffers)}`],
    ]);
  } finally {
    abort.abort();
    client.close();
    await sandbox.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await run();
  await runStalledStreams();
}
