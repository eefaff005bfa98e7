// `podops up` as a user runs it: a child process that prints where everything is and what to try, brings the
// demo pods into service behind the example load balancer, and stops cleanly on Ctrl-C (SIGINT).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import type { Pod } from '../../src/api/kube.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { RL_WORKLOAD_LABEL, type RolloutLifecycle } from '../../src/api/rolloutlifecycle.ts';
import { DEPLOYMENTS, PODS, ROLLOUTLIFECYCLES } from '../../src/kube/resources.ts';
import type { Workload } from '../../src/rollout/workload.ts';
import { isServiceAvailable } from '../e2e/harness.ts';
import { until } from '../support/wait.ts';
import { freePort } from '../support/wait.ts';

const mainScript = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

describe('podops up', () => {
  let stopChild: (() => void) | undefined;
  after(() => stopChild?.());

  test('prints the kubeconfig and what to try, serves the demo pods, and stops on SIGINT', async () => {
    const port = await freePort();
    const kubeconfig = join(await mkdtemp(join(tmpdir(), 'podops-up-')), 'kubeconfig');
    const child = spawn(process.execPath, [mainScript, 'up', '--port', String(port), '--kubeconfig', kubeconfig, '--start-delay', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stopChild = () => child.kill('SIGKILL');
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

    await until(() => stdout, (out) => out.includes('Ctrl-C stops everything.'), `the tour on stdout (stderr: ${stderr})`, 30_000);
    assert.match(stdout, new RegExp(`^ {2}API server {3}https?://127\\.0\\.0\\.1:${port}$`, 'm'), 'the API server on the port asked for');
    assert.match(stdout, /^ {2}webhooks {5}https:\/\/127\.0\.0\.1:\d+$/m);
    assert.ok(stdout.includes(`  kubeconfig   ${kubeconfig}\n`), 'the kubeconfig path');
    // The dashboard, on 3100 unless another process has it.
    const dashboard = /^ {2}dashboard {4}(http:\/\/127\.0\.0\.1:(\d+)\/)$/m.exec(stdout);
    assert.ok(dashboard, `the dashboard's URL: ${stdout}`);
    assert.ok(stdout.includes(`  export KUBECONFIG=${kubeconfig}\n`));
    for (const line of [
      /^ {2}kubectl get pods -n demo -w +# /m,
      /^ {2}podops status -n demo +# /m,
      /^ {2}kubectl delete pod -n demo <pod> +# GraceDelete/m,
      /^ {2}podops begin <pod> -n demo --id upgrade --type update +# /m,
      /^ {2}podops finish <pod> -n demo --id upgrade --type update +# /m,
      /^ {2}kubectl set image deployment\/web -n demo web=nginx:1\.28 +# /m,
      /^ {2}podops rollout status deployment\/web -n demo +# /m,
      /^ {2}podops rollout undo deployment\/web -n demo +# /m,
      /^ {2}kubectl scale deployment\/web -n demo --replicas=1 +# /m,
    ]) {
      assert.match(stdout, line);
    }

    // The kubeconfig it wrote reaches the cluster it runs.
    const client = KubeClient.fromKubeconfigText(await readFile(kubeconfig, 'utf8'));
    try {
      const pods = await until(
        async () => (await client.list<Pod>(PODS, { namespace: 'demo' })).items,
        (items) => items.length === 3 && items.every(isServiceAvailable),
        'the 3 demo pods to become service-available',
        30_000,
      );
      // The dashboard shows them, with the kubeconfig up wrote.
      for (const pod of pods) {
        const url = `${dashboard[1]}api/pod?namespace=demo&name=${pod.metadata.name}`;
        const report = await until(async () => (await fetch(url)).json() as Promise<{ text: string }>, (r) => typeof r.text === 'string', `${url} answered`);
        assert.match(report.text, new RegExp(`^Pod demo/${pod.metadata.name}\n {2}phase: ServiceAvailable`));
      }
      // The demo Deployment has rollout hooks: its RolloutLifecycle, reconciled (the Deployment labelled for it).
      const rl = await until(() => client.get<RolloutLifecycle>(ROLLOUTLIFECYCLES, 'demo', 'web'), (r) => r.status?.target === 'Deployment/web', 'the demo RolloutLifecycle reconciled');
      assert.deepEqual(
        rl.spec?.hooks?.map((h) => [h.name, h.trigger?.progressAvailableParams?.progressPoint]),
        [
          ['migrate', 0],
          ['smoke', '50%'],
          ['notify', '100%'],
        ],
      );
      assert.equal((await client.get<Workload>(DEPLOYMENTS, 'demo', 'web')).metadata.labels?.[RL_WORKLOAD_LABEL], 'web');
      // Each is behind the example load balancer, which says so on stdout.
      for (const pod of pods) {
        await until(() => stdout, (out) => new RegExp(`load balancer {2}traffic on: {2}${pod.metadata.name} behind demo/web\\n`).test(out), `traffic on for ${pod.metadata.name}`);
      }
    } finally {
      client.close();
    }

    assert.equal(await accepts(port), true);
    child.kill('SIGINT');
    const deadline = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const exit = await exited.finally(() => clearTimeout(deadline));
    assert.deepEqual(exit, { code: 0, signal: null }, 'exits by itself, promptly and with success (a SIGKILL after 10 s shows here)');
    assert.ok(stdout.endsWith('podops stopped.\n'), `stdout ends with the goodbye: ${stdout.slice(-200)}`);
    assert.equal(await accepts(port), false, 'the API server it started is gone');
    assert.equal(await accepts(Number(dashboard[2])), false, 'and so is the dashboard');
    assert.equal(stderr, '', 'no warnings or errors at the default log level');
  });

  test('a --dashboard-port in use: a usage error naming the flag, and the sandbox and operator stop with it', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port: dashboardPort } = taken.address() as AddressInfo;
    try {
      const port = await freePort();
      const kubeconfig = join(await mkdtemp(join(tmpdir(), 'podops-up-')), 'kubeconfig');
      const child = spawn(process.execPath, [mainScript, 'up', '--port', String(port), '--kubeconfig', kubeconfig, '--no-demo', '--dashboard-port', String(dashboardPort)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      stopChild = () => child.kill('SIGKILL');
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      const deadline = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const exit = await exited.finally(() => clearTimeout(deadline));
      assert.deepEqual(exit, { code: 2, signal: null }, `exits by itself with 2 (a SIGKILL after 30 s shows here); stderr: ${stderr}`);
      assert.equal(stderr, `podops up: port ${dashboardPort} on 127.0.0.1 is in use: choose another with --dashboard-port\n`);
      assert.equal(await accepts(port), false, 'the API server it started is gone');
    } finally {
      taken.close();
    }
  });
});
