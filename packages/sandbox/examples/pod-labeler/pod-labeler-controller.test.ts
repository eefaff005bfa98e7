// The pod labeler against a sandbox with one simulated node, which runs Deployments, ReplicaSets and pods as
// a cluster does. The controller acts as its own service account, so the write log tells its writes apart.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api, CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, type V1Deployment, type V1Pod } from '@kubernetes/client-node';
import { startSandbox, type Sandbox } from '@podops/sandbox';
import { deploymentLabel, startPodLabeler, type PodLabeler } from './pod-labeler-controller.ts';

const namespace = 'default';
const controllerUser = 'system:serviceaccount:default:pod-labeler';
let sandbox: Sandbox;
let labeler: PodLabeler;
let apps: AppsV1Api;
let core: CoreV1Api;

before(async () => {
  sandbox = await startSandbox({ simulation: { nodes: 1 }, recordWrites: true });
  const asController = new KubeConfig();
  asController.loadFromOptions(sandbox.kubeConfigOptionsAs(controllerUser));
  labeler = await startPodLabeler(asController, namespace);
  const kc = new KubeConfig();
  kc.loadFromOptions(sandbox.kubeConfigOptions);
  apps = kc.makeApiClient(AppsV1Api);
  core = kc.makeApiClient(CoreV1Api);
});
// The controller first: its informers would otherwise try to reconnect to a stopped server.
after(async () => {
  await labeler?.stop();
  await sandbox?.stop();
});

const web = (replicas: number): V1Deployment => ({
  metadata: { name: 'web' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
  },
});

/** Waits until every pod of `web` carries the label; returns their names. */
async function labelledPods(count: number): Promise<string[]> {
  await sandbox.waitFor<V1Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'web' }, (d) => d.status?.readyReplicas === count);
  const names = (await core.listNamespacedPod({ namespace, labelSelector: 'app=web' })).items.map((pod) => pod.metadata?.name ?? '');
  for (const name of names) {
    await sandbox.waitFor<V1Pod>({ apiVersion: 'v1', kind: 'Pod', namespace, name }, (pod) => pod.metadata?.labels?.[deploymentLabel] === 'web');
  }
  return names.sort();
}

test('labels each pod of a Deployment with one write per pod', async () => {
  await apps.createNamespacedDeployment({ namespace, body: web(2) });
  const pods = await labelledPods(2);
  const writes = sandbox.history?.records({ user: controllerUser }) ?? [];
  assert.deepEqual(writes.map((w) => `${w.verb} ${w.resource} ${w.name}`).sort(), pods.map((name) => `patch pods ${name}`));
});

test('a scale-up labels the new pod only; a pod of no Deployment is left alone', async () => {
  const since = sandbox.resourceVersion;
  await core.createNamespacedPod({ namespace, body: { metadata: { name: 'loner' }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } });
  await apps.patchNamespacedDeploymentScale({ namespace, name: 'web', body: { spec: { replicas: 3 } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
  const pods = await labelledPods(3);
  // The loner's events reached the controller before the new pod's, so by now it has decided on it too.
  const writes = sandbox.history?.records({ user: controllerUser, after: since }) ?? [];
  assert.equal(writes.length, 1);
  assert.ok(pods.includes(writes[0]?.name ?? ''));
  assert.equal((await core.readNamespacedPod({ namespace, name: 'loner' })).metadata?.labels?.[deploymentLabel], undefined);
});
