// The sandbox of the benchmark, in its own process so that the client's work does not compete
// with the server's: reports its URL, answers memory questions, stops when asked. It also notes when
// each pod write of the benchmark namespace is stored, so delivery latency can be measured from the
// commit rather than from when the client sent the request.

import { startSandbox, type SandboxOptions } from '@podops/sandbox';

/** Absolute milliseconds with sub-millisecond resolution, comparable across processes on one machine. */
const now = (): number => performance.timeOrigin + performance.now();

const committedAt = new Map<string, number>();
/** Extra sandbox options as JSON in argv (e.g. a simulation for end-to-end benchmarks). */
const extra = JSON.parse(process.argv[2] ?? '{}') as SandboxOptions;
const sandbox = await startSandbox({ watchCacheSize: 2000, ...extra });
sandbox.runController({
  name: 'bench-commit-clock',
  start: (ctx) =>
    ctx.subscribe((event) => {
      if (event.resource === 'pods' && event.type === 'MODIFIED' && event.object.metadata.namespace === 'bench') {
        committedAt.set(event.object.metadata.resourceVersion ?? '', now());
      }
    }),
});
process.on('message', (message: unknown) => {
  if (message === 'memory') process.send?.({ memory: process.memoryUsage() });
  if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
  if (message === 'commits') process.send?.({ commits: Object.fromEntries(committedAt) });
  if (message === 'writes') process.send?.({ writes: podWrites() });
  if (message === 'stop') void sandbox.stop().then(() => process.exit(0));
  // The write log of one namespace, pods left out (needs `recordWrites`).
  const records = (message as { records?: string } | undefined)?.records;
  if (records !== undefined) process.send?.({ records: (sandbox.history?.records() ?? []).filter((r) => r.namespace === records && r.resource !== 'pods') });
});
process.send?.({ server: { url: sandbox.url, kubeconfig: sandbox.kubeconfig } });

/** Pod writes in the benchmark namespace so far, and how many of them only changed the Ready condition (the kubelet's). */
function podWrites(): { total: number; readyOnly: number } {
  const records = sandbox.history?.records('pods') ?? [];
  const previous = new Map<string, string | undefined>();
  let total = 0;
  let readyOnly = 0;
  const readyOf = (object: unknown): string | undefined =>
    ((object as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? []).find((c) => c.type === 'Ready')?.status;
  for (const record of records) {
    if (record.namespace !== 'bench' || record.type === 'ADDED') continue;
    total++;
    const ready = readyOf(record.object);
    if (previous.has(record.name) && previous.get(record.name) !== ready) readyOnly++;
    previous.set(record.name, ready);
  }
  return { total, readyOnly };
}
