// Small helpers for benchmarks: time a synchronous operation over many iterations and report a rate.

export interface Rate {
  opsPerSecond: number;
  nsPerOp: number;
}

/** Runs `fn` repeatedly for about `durationMs` after a warm-up, and returns its rate. */
export function measureRate(fn: () => unknown, durationMs = 1000): Rate {
  const warmupEnd = performance.now() + Math.min(300, durationMs / 3);
  while (performance.now() < warmupEnd) fn();
  let iterations = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(durationMs) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < 1000; i++) fn();
    iterations += 1000;
    now = process.hrtime.bigint();
  }
  const elapsedNs = Number(now - start);
  return { opsPerSecond: (iterations * 1e9) / elapsedNs, nsPerOp: elapsedNs / iterations };
}

export const formatRate = (r: Rate): string =>
  `${Math.round(r.opsPerSecond).toLocaleString('en-US')}/s (${(r.nsPerOp / 1000).toFixed(2)} µs/op)`;

export function printTable(title: string, rows: [string, string][]): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log(`\n${title}`);
  for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`);
}
