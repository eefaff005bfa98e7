// The real control plane (startControlPlane), with the binaries of KUBEBUILDER_ASSETS: it serves the admin of its
// kubeconfig as a member of system:masters, impersonation included, runs kube-controller-manager's controllers
// under their own service accounts, and the sandbox's simulated nodes as its clients run the pods of its
// Deployments and Jobs; and it leaves no process or directory behind: not after stop(), not after a start that
// failed, and not after the process that started it exited or was killed without stopping it.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { AppsV1Api, AuthenticationV1Api, BatchV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { controlPlaneUnavailable, startControlPlane, type ControlPlane } from '../src/index.ts';

const unavailable = await controlPlaneUnavailable({ controllerManager: true });
const skip = unavailable ? `${unavailable}; then the real control plane's tests run` : false;
const conditions = process.execArgv.filter((arg) => arg.startsWith('--conditions'));

/** The processes whose command line names `directory` (every process of a control plane does). */
async function processesOf(directory: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(directory) && !cmdline.includes('guardian')) found.push(`${pid} ${cmdline.replaceAll('\0', ' ').slice(0, 80)}`);
  }
  return found;
}

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `${what} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const client = <T extends CoreV1Api | AppsV1Api | BatchV1Api | AuthenticationV1Api>(options: ControlPlane['kubeConfigOptions'], api: new (...args: never[]) => T): T => {
  const kc = new KubeConfig();
  kc.loadFromOptions(options);
  return kc.makeApiClient(api as never) as T;
};

describe('startControlPlane', { skip }, () => {
  describe('a real control plane', () => {
    let plane: ControlPlane;
    before(async () => {
      plane = await startControlPlane({ controllerManager: true, nodes: 2, kubelet: { startDelayMs: 50, gracePeriodCapMs: 200 } });
    });
    after(() => plane?.stop());

    test('its kubeconfig is the admin in system:masters, who may act as anyone', async () => {
      const review = await client(plane.kubeConfigOptions, AuthenticationV1Api).createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
      assert.equal(review.status?.userInfo?.username, 'admin');
      assert.ok(review.status?.userInfo?.groups?.includes('system:masters'));
      const as = await client(plane.kubeConfigOptionsAs('jane'), AuthenticationV1Api).createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
      assert.equal(as.status?.userInfo?.username, 'jane');
      await assert.rejects(client(plane.kubeConfigOptionsAs('jane'), CoreV1Api).listNamespace(), /403|forbidden/i, 'jane has no role');
    });

    test("kube-controller-manager runs: a new namespace gets its default service account from the controller's own account", async () => {
      const core = client(plane.kubeConfigOptions, CoreV1Api);
      await core.createNamespace({ body: { metadata: { name: 'fresh' } } });
      await eventually(async () => (await core.listNamespacedServiceAccount({ namespace: 'fresh' })).items.some((a) => a.metadata?.name === 'default'), 'the default service account');
    });

    test('a Deployment of 3 pods becomes available on the simulated nodes, and its pods are gone once it is deleted', async () => {
      const apps = client(plane.kubeConfigOptions, AppsV1Api);
      const core = client(plane.kubeConfigOptions, CoreV1Api);
      const labels = { app: 'web' };
      await apps.createNamespacedDeployment({
        namespace: 'default',
        body: { metadata: { name: 'web' }, spec: { replicas: 3, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } } },
      });
      await eventually(async () => (await apps.readNamespacedDeployment({ namespace: 'default', name: 'web' })).status?.availableReplicas === 3, 'the Deployment available');
      const pods = (await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' })).items;
      assert.deepEqual(pods.map((p) => p.status?.phase), ['Running', 'Running', 'Running']);
      assert.deepEqual(new Set(pods.map((p) => p.spec?.nodeName)), new Set(['node-1', 'node-2']), 'spread over both nodes');
      await apps.deleteNamespacedDeployment({ namespace: 'default', name: 'web' });
      await eventually(async () => (await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' })).items.length === 0, 'the pods gone');
    });

    test("a Job's pods run their command: exit 0 completes it, exit 3 fails it", async () => {
      const batch = client(plane.kubeConfigOptions, BatchV1Api);
      const job = (name: string, script: string) => ({
        metadata: { name },
        spec: { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'run', image: 'busybox:1.36', command: ['sh', '-c', script] }] } } },
      });
      await batch.createNamespacedJob({ namespace: 'default', body: job('passes', 'echo done; exit 0') });
      await batch.createNamespacedJob({ namespace: 'default', body: job('fails', 'exit 3') });
      const condition = async (name: string) => (await batch.readNamespacedJob({ namespace: 'default', name })).status?.conditions?.find((c) => c.status === 'True' && (c.type === 'Complete' || c.type === 'Failed'))?.type;
      await eventually(async () => (await condition('passes')) === 'Complete', 'passes Complete');
      await eventually(async () => (await condition('fails')) === 'Failed', 'fails Failed');
    });
  });

  describe('a control plane leaves nothing behind', () => {
    test('stop() ends every process and removes its directory', async () => {
      const plane = await startControlPlane();
      assert.equal((await processesOf(plane.directory)).length, 2, 'etcd and kube-apiserver run');
      await plane.stop();
      assert.deepEqual(await processesOf(plane.directory), []);
      assert.equal(existsSync(plane.directory), false);
    });

    test('a start that fails rejects with the end of the failing process log, and stops what it had started', async () => {
      const before = new Set(await readdir('/tmp'));
      await assert.rejects(startControlPlane({ apiServerFlags: ['--no-such-flag=1'] }), /kube-apiserver exited \(code 1\); the end of its log .*\n[^]*unknown flag: --no-such-flag/);
      const left = (await readdir('/tmp')).filter((name) => name.startsWith('podops-control-plane-') && !before.has(name));
      assert.deepEqual(left, [], 'no directory of it is left');
    });

    for (const end of ['exit', 'kill'] as const) {
      test(`a process that ${end === 'exit' ? 'exits' : 'is killed with SIGKILL'} without stopping its control plane takes it along`, async () => {
        const program = fileURLToPath(new URL('./fixtures/abandoned-control-plane.ts', import.meta.url));
        const directory = await new Promise<string>((resolve) => execFile(process.execPath, [...conditions, program, end], { timeout: 120_000 }, (_err, stdout) => resolve(stdout.trim())));
        assert.match(directory, /podops-control-plane-/);
        const deadline = Date.now() + 10_000;
        while ((await processesOf(directory)).length || existsSync(directory)) {
          assert.ok(Date.now() < deadline, `left behind: ${(await processesOf(directory)).join('; ')}${existsSync(directory) ? `; ${directory}` : ''}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      });
    }
  });
});
