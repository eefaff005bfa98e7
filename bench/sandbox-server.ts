// The sandbox of the benchmark, in its own process so that the client's work does not compete
// with the server's: reports its URL, answers memory questions, stops when asked. It also notes when
// each pod write of the benchmark namespace is stored, so delivery latency can be measured from the
// commit rather than from when the client sent the request.

import { startSandbox } from '../src/sandbox/index.ts';

/** Absolute milliseconds with sub-millisecond resolution, comparable across processes on one machine. */
const now = (): number => performance.timeOrigin + performance.now();

const committedAt = new Map<string, number>();
const sandbox = await startSandbox({ watchCacheSize: 2000 });
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
  if (message === 'commits') process.send?.({ commits: Object.fromEntries(committedAt) });
  if (message === 'stop') void sandbox.stop().then(() => process.exit(0));
});
process.send?.({ server: { url: sandbox.url, kubeconfig: sandbox.kubeconfig } });
