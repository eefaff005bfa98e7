// `npm run bench [-- NAME...]`: runs the benchmarks and prints their figures. Goals are printed next to
// the figures (and ratios against baselines measured in the same run), never asserted. Each suite runs in
// a fresh process, so one suite's heap and timers do not weigh on the next one's figures.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const suites = ['lifecycle', 'transition', 'webhook', 'sandbox', 'operator', 'workloads', 'nodes', 'lifecycles', 'rollout', 'dashboard', 'scale'];
/** Run only when named: minutes long. */
const onRequest = new Set(['scale']);

// Names choose suites; flags (`--pods 100,300`) go to each chosen suite.
const firstFlag = process.argv.slice(2).findIndex((arg) => arg.startsWith('--'));
const wanted = firstFlag < 0 ? process.argv.slice(2) : process.argv.slice(2, 2 + firstFlag);
const flags = firstFlag < 0 ? [] : process.argv.slice(2 + firstFlag);
for (const name of wanted) {
  if (!suites.includes(name)) {
    console.error(`unknown benchmark "${name}"; known: ${suites.join(', ')}`);
    process.exit(2);
  }
}
console.log(`podops benchmarks on Node ${process.version}, ${new Date().toISOString()}`);
let failed = 0;
for (const name of suites) {
  if (wanted.length > 0 ? !wanted.includes(name) : onRequest.has(name)) continue;
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const code = await new Promise<number | null>((resolve) => spawn(process.execPath, [file, ...flags], { stdio: 'inherit' }).once('exit', resolve));
  if (code !== 0) {
    console.error(`benchmark "${name}" failed (exit ${code})`);
    failed++;
  }
}
process.exitCode = failed ? 1 : 0;
