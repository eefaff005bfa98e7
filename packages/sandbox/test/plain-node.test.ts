// The sandbox without node:test: a plain Node program uses the API and exits by itself once it stopped the
// sandbox (no timer, socket or watch is left open), also after a start that failed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const program = fileURLToPath(new URL('./fixtures/plain-node-program.ts', import.meta.url));
// The sources, as this test runs them (the condition comes in argv here, or through NODE_OPTIONS).
const conditions = process.execArgv.filter((arg) => arg.startsWith('--conditions'));

test('a plain Node program uses the sandbox and exits by itself', async () => {
  const { code, signal, stdout, stderr } = await new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
    // The timeout only turns a program that never exits into a failure.
    const child = execFile(process.execPath, [...conditions, program], { timeout: 120_000 }, (_err, stdout, stderr) => resolve({ code: child.exitCode, signal: child.signalCode, stdout, stderr }));
  });
  assert.equal(signal, null, `the program did not exit by itself:\n${stdout}\n${stderr}`);
  assert.equal(code, 0, stderr);
  assert.equal(stdout, 'informer saw plain\nwrites: 1\na start on a taken port failed\na start that cannot write its kubeconfig failed\n');
});
