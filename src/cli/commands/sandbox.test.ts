import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import YAML from 'yaml';
import { UsageError, type CommandIO } from '../command.ts';
import { sandboxCommand } from './sandbox.ts';

function fakeIO(signal: AbortSignal): { io: CommandIO; output: () => string } {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return {
    io: { stdout, stderr: new PassThrough(), stdin: new PassThrough(), env: {}, now: () => Date.now(), signal },
    output: () => text,
  };
}

test('podops sandbox serves until the signal, writes the kubeconfig and prints the export hint', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'podops-sandbox-cli-'));
  const kubeconfigPath = join(dir, 'nested', 'kubeconfig');
  const controller = new AbortController();
  const { io, output } = fakeIO(controller.signal);
  const running = sandboxCommand.run(['--kubeconfig', kubeconfigPath], io);
  while (!output().includes('Press Ctrl-C')) await new Promise((r) => setTimeout(r, 10));
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1];
  assert.ok(url, output());
  assert.match(output(), new RegExp(`export KUBECONFIG=${kubeconfigPath}`));
  const config = YAML.parse(await readFile(kubeconfigPath, 'utf8')) as { clusters: { cluster: { server: string } }[] };
  assert.equal(config.clusters[0]?.cluster.server, url);
  const version = (await (await fetch(`${url}/version`)).json()) as { minor: string };
  assert.equal(version.minor, '32');
  controller.abort();
  assert.equal(await running, 0);
  assert.match(output(), /sandbox stopped\n$/);
  await assert.rejects(fetch(`${url}/version`));
  await rm(dir, { recursive: true, force: true });
});

test('podops sandbox rejects bad flags with a UsageError', async () => {
  const { io } = fakeIO(new AbortController().signal);
  await assert.rejects(sandboxCommand.run(['--port', 'abc'], io), (err: unknown) => err instanceof UsageError && /--port must be a number/.test(err.message));
  await assert.rejects(sandboxCommand.run(['--port', '70000'], io), UsageError);
  await assert.rejects(sandboxCommand.run(['--nope'], io), (err: unknown) => err instanceof UsageError && /Unknown option '--nope'/.test(err.message));
  await assert.rejects(sandboxCommand.run(['extra'], io), UsageError);
});
