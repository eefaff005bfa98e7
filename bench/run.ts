// `npm run bench [-- NAME...]`: runs the benchmarks and prints their figures. Goals are printed next to
// the figures (and ratios against baselines measured in the same run), never asserted.

const suites: Record<string, () => Promise<unknown>> = {
  lifecycle: async () => (await import('./lifecycle.ts')).runLifecycleBench(),
  transition: async () => (await import('./transition.ts')).runTransitionBench(),
  webhook: async () => (await import('./webhook.ts')).runWebhookBench(),
  sandbox: async () => (await import('./sandbox.ts')).runSandboxBenchmark(),
  operator: async () => (await import('./operator.ts')).runOperatorMemoryBench(),
  workloads: async () => (await import('./workloads.ts')).runWorkloadsBench(),
  nodes: async () => (await import('./nodes.ts')).runNodesBench(),
  lifecycles: async () => (await import('./lifecycles.ts')).runLifecyclesBench(),
};

const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!(name in suites)) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(suites).join(', ')}`);
    process.exit(2);
  }
}
console.log(`podops benchmarks on Node ${process.version}, ${new Date().toISOString()}`);
for (const [name, run] of Object.entries(suites)) {
  if (wanted.length === 0 || wanted.includes(name)) await run();
}
