// The sandbox of the benchmark, in its own process so that the client's work does not compete
// with the server's: reports its URL, answers memory questions, stops when asked.

import { startSandbox } from '../src/sandbox/index.ts';

const sandbox = await startSandbox({ watchCacheSize: 2000 });
process.on('message', (message: unknown) => {
  if (message === 'memory') process.send?.({ memory: process.memoryUsage() });
  if (message === 'stop') void sandbox.stop().then(() => process.exit(0));
});
process.send?.({ url: sandbox.url });
