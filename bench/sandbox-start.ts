// How long a test waits for an in-process sandbox: the import of @podops/sandbox (once per process), the
// first start, and the median of ten more, without nodes and with three simulated nodes (each start is
// followed by its stop, not timed). Run in a process of its own by bench/sandbox.ts, which prints the figures;
// this prints them as one JSON line.

import { performance } from 'node:perf_hooks';

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const round = (ms: number): number => Math.round(ms * 10) / 10;

const importStarted = performance.now();
const { startSandbox } = await import('@podops/sandbox');
const importMs = performance.now() - importStarted;

async function starts(options: Parameters<typeof startSandbox>[0]): Promise<{ firstMs: number; medianMs: number }> {
  const times: number[] = [];
  for (let i = 0; i < 11; i++) {
    const started = performance.now();
    const sandbox = await startSandbox(options);
    times.push(performance.now() - started);
    await sandbox.stop();
  }
  return { firstMs: round(times[0] ?? 0), medianMs: round(median(times.slice(1))) };
}

const withoutNodes = await starts({});
const withNodes = await starts({ simulation: { nodes: 3 } });
console.log(JSON.stringify({ importMs: round(importMs), withoutNodes, withNodes }));
