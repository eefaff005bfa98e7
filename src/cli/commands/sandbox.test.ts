import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import YAML from 'yaml';
import { UsageError, type CommandIO } from '../command.ts';
import { sandboxCommand } from './sandbox.ts';
import { kubectlPath, skipWithoutKubectl } from '../../../test/support/kubectl.ts';
import { freePort } from '../../../test/support/wait.ts';

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
  await assert.rejects(sandboxCommand.run(['--nope'], io), (err: unknown) => err instanceof UsageError && err.message === 'unknown option "--nope"' && err.seeHelp);
  await assert.rejects(sandboxCommand.run(['extra'], io), UsageError);
});

test('podops sandbox --port N --kubeconfig PATH: client-node and kubectl load the written kubeconfig; Ctrl-C stops it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'podops-sandbox-cli-'));
  const kubeconfigPath = join(dir, 'sandbox.kubeconfig');
  const port = await freePort();
  const controller = new AbortController();
  const { io, output } = fakeIO(controller.signal);
  const running = sandboxCommand.run(['--port', String(port), '--kubeconfig', kubeconfigPath], io);
  try {
    while (!output().includes('Press Ctrl-C')) await new Promise((r) => setTimeout(r, 10));
    assert.match(output(), new RegExp(`listening on http://127\\.0\\.0\\.1:${port} \\(3 simulated nodes\\)`));

    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    assert.equal(kc.getCurrentCluster()?.server, `http://127.0.0.1:${port}`);
    const namespaces = await kc.makeApiClient(CoreV1Api).listNamespace();
    const names = namespaces.items.map((n) => n.metadata?.name);
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);

    await t.test('kubectl --kubeconfig PATH get namespaces', { skip: skipWithoutKubectl }, async () => {
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          kubectlPath ?? 'kubectl',
          ['--kubeconfig', kubeconfigPath, `--cache-dir=${join(dir, 'kube-cache')}`, 'get', 'namespaces'],
          { timeout: 30_000 },
          (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
        );
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^NAME\s+STATUS\s+AGE\n/);
      assert.match(result.stdout, /^default\s+Active\s+\d+s$/m);
      assert.match(result.stdout, /^kube-system\s+Active\s+\d+s$/m);
    });
  } finally {
    controller.abort();
  }
  assert.equal(await running, 0);
  assert.match(output(), /sandbox stopped\n$/);
  // Stopped cleanly: the port is free again.
  await assert.rejects(fetch(`http://127.0.0.1:${port}/version`));
  const again = createServer();
  await new Promise<void>((done, fail) => again.once('error', fail).listen(port, '127.0.0.1', done));
  await new Promise<void>((done) => again.close(() => done()));
  await rm(dir, { recursive: true, force: true });
});
