// `podops dashboard` as a user runs it: prints where it serves, serves the page with the kubeconfig given, stops on
// Ctrl-C; a port that is taken or malformed is said so with exit code 2.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { startSandbox, type Sandbox } from '@podops/sandbox';
import { runCli } from '../support/cli.ts';
import { hostileRequests, sendRaw, targetOf } from '../support/hostile-http.ts';
import { until } from '../support/wait.ts';

const mainScript = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

describe('podops dashboard', () => {
  let sandbox: Sandbox;
  let kubeconfig: string;
  before(async () => {
    sandbox = await startSandbox();
    kubeconfig = join(await mkdtemp(join(tmpdir(), 'podops-dashboard-')), 'kubeconfig');
    await writeFile(kubeconfig, sandbox.kubeconfig);
  });
  after(() => sandbox.stop());

  test('prints its URL and scope, serves the page, and stops on SIGINT', async () => {
    const child = spawn(process.execPath, [mainScript, 'dashboard', '--kubeconfig', kubeconfig, '-n', 'shop', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    try {
      const line = await until(() => stdout, (out) => out.includes('Ctrl-C'), 'the URL on stdout');
      const url = /^podops dashboard: (http:\/\/127\.0\.0\.1:\d+\/) \(namespace shop of (\S+)\); Ctrl-C stops it\.\n$/.exec(line);
      assert.ok(url, line);
      assert.equal(url[2], sandbox.url);
      assert.equal((await fetch(url[1]!)).status, 200);
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 0);
  });

  test('malformed requests and a promise rejection nobody handled: no 5xx, the server lives and serves on', async () => {
    // What a bug elsewhere in the process would do: a rejection no code awaits, half a second in.
    const rejectLater = `data:text/javascript,setTimeout(() => Promise.reject(new Error('nobody awaited this')), 500)`;
    const child = spawn(process.execPath, ['--import', rejectLater, mainScript, 'dashboard', '--kubeconfig', kubeconfig, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const alive = (): boolean => child.exitCode === null && child.signalCode === null;
    try {
      const line = await until(() => stdout, (out) => out.includes('Ctrl-C'), 'the URL on stdout');
      const url = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(line)![1]!;
      for (const [what, bytes] of hostileRequests('/')) {
        const answer = await sendRaw(targetOf(new URL(url).host), bytes);
        assert.ok(answer.status === undefined || answer.status < 500, `${what}: answered ${answer.status}`);
        assert.ok(alive(), `the dashboard survived ${what}`);
      }
      await until(() => stderr, (err) => err.includes('unhandled promise rejection'), 'the rejection to be logged');
      assert.match(stderr, /"msg":"unhandled promise rejection","err":\{"message":"nobody awaited this"/);
      assert.ok(alive(), 'the process kept running');
      assert.equal((await fetch(url)).status, 200);
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 0);
  });

  test('a port in use, or no port at all, is a usage error naming the flag', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const busy = await runCli(['dashboard', '--kubeconfig', kubeconfig, '--port', String(port)]);
      assert.deepEqual([busy.code, busy.stderr], [2, `podops dashboard: port ${port} on 127.0.0.1 is in use: choose another with --port\n`]);
    } finally {
      taken.close();
    }
    const malformed = await runCli(['dashboard', '--kubeconfig', kubeconfig, '--port', '70000']);
    assert.deepEqual([malformed.code, malformed.stderr], [2, 'podops dashboard: --port must be a port number, got "70000"\n']);
  });
});
