// dryRun=All on the writes beyond plain create/update/patch/delete: /status, /scale, server-side
// apply, DELETE of a collection and of a namespace. Each answers what the real write would have
// answered and stores nothing: the object keeps its resourceVersion and no watch event is sent.
// Through raw HTTP (exact bodies), @kubernetes/client-node and kubectl --dry-run=server.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { eventually, podManifest, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;
let core: CoreV1Api;
let apps: AppsV1Api;
const ns = 'dry';
const mergeType = 'application/merge-patch+json';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const deployment = (name: string, replicas = 1) => ({
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

/** Waits until the namespace controller has written what it adds to a new namespace, so the global resourceVersion settles. */
async function settledNamespace(name: string): Promise<void> {
  await core.createNamespace({ body: { metadata: { name } } });
  await eventually(async () => {
    const sa = await h.http('GET', `/api/v1/namespaces/${name}/serviceaccounts/default`);
    const ca = await h.http('GET', `/api/v1/namespaces/${name}/configmaps/kube-root-ca.crt`);
    return sa.status === 200 && ca.status === 200 ? true : undefined;
  });
}

before(async () => {
  h = await startHarness();
  core = h.kc.makeApiClient(CoreV1Api);
  apps = h.kc.makeApiClient(AppsV1Api);
  await settledNamespace(ns);
});
after(() => h.stop());

interface WatchEvent {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of any kind, checked field by field
  object: any;
}

/**
 * The first event a watch from resourceVersion `rv` replays. Called after the dry runs and one real
 * write, it must be that real write: a dry run that leaked into storage or the watch would come first.
 */
async function firstEventSince(path: string, rv: string): Promise<WatchEvent> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 3000);
  const sep = path.includes('?') ? '&' : '?';
  try {
    const res = await fetch(`${h.sandbox.url}${path}${sep}watch=1&resourceVersion=${rv}`, { signal: controller.signal });
    let buffer = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      const nl = buffer.indexOf('\n');
      if (nl >= 0) return JSON.parse(buffer.slice(0, nl)) as WatchEvent;
    }
    assert.fail('the watch ended without an event');
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

describe('dryRun=All through raw HTTP and @kubernetes/client-node', () => {
  test('pods/status PUT and PATCH answer the updated pod at the stored resourceVersion and store nothing', async () => {
    const pod = await core.createNamespacedPod({ namespace: ns, body: podManifest('st', { metadata: { labels: { a: '1' } } }) as V1Pod });
    const rv = pod.metadata?.resourceVersion ?? '';
    const globalRv = h.sandbox.resourceVersion;

    const body = structuredClone(pod);
    body.metadata!.labels = { a: 'dry' };
    body.spec!.containers[0]!.image = 'nginx:9';
    body.status = { ...body.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    const put = await core.replaceNamespacedPodStatus({ name: 'st', namespace: ns, body, dryRun: 'All' });
    // What the real write would have stored: status and labels change, spec does not.
    assert.equal(put.status?.phase, 'Running');
    assert.deepEqual(put.metadata?.labels, { a: 'dry' });
    assert.equal(put.spec?.containers[0]?.image, 'nginx:1.27');
    assert.equal(put.metadata?.resourceVersion, rv);

    const mergePatch = await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/st/status?dryRun=All`, { status: { phase: 'Failed' } }, { 'Content-Type': mergeType });
    assert.equal(mergePatch.status, 200);
    assert.equal(mergePatch.json.status.phase, 'Failed');
    assert.equal(mergePatch.json.metadata.resourceVersion, rv);
    const smp = await h.http(
      'PATCH',
      `/api/v1/namespaces/${ns}/pods/st/status?dryRun=All`,
      { status: { conditions: [{ type: 'example.com/X', status: 'True' }] } },
      { 'Content-Type': 'application/strategic-merge-patch+json' },
    );
    assert.equal(smp.status, 200);
    assert.deepEqual(smp.json.status.conditions, [{ type: 'example.com/X', status: 'True' }]);
    // Validation still runs: a dry run that the real write would fail fails the same way.
    const invalid = await h.http('PATCH', `/api/v1/namespaces/${ns}/pods/st/status?dryRun=All`, { status: { qosClass: 'Guaranteed' } }, { 'Content-Type': mergeType });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.json.message, 'Pod "st" is invalid: status.qosClass: Invalid value: "Guaranteed": field is immutable');

    const stored = await core.readNamespacedPod({ name: 'st', namespace: ns });
    assert.equal(stored.metadata?.resourceVersion, rv);
    assert.equal(stored.status?.phase, 'Pending');
    assert.deepEqual(stored.metadata?.labels, { a: '1' });
    assert.equal(h.sandbox.resourceVersion, globalRv);

    const real = await core.patchNamespacedPodStatus({ name: 'st', namespace: ns, body: { status: { phase: 'Running' } } }, merge);
    const event = await firstEventSince(`/api/v1/namespaces/${ns}/pods?fieldSelector=metadata.name%3Dst`, rv);
    assert.equal(event.type, 'MODIFIED');
    assert.equal(event.object.metadata.resourceVersion, real.metadata?.resourceVersion);
  });

  test('/scale PUT and PATCH answer the new Scale; the deployment keeps its replicas and generation', async () => {
    const dep = await apps.createNamespacedDeployment({ namespace: ns, body: deployment('sc', 2) });
    const rv = dep.metadata?.resourceVersion ?? '';
    const globalRv = h.sandbox.resourceVersion;

    const put = await apps.replaceNamespacedDeploymentScale({ name: 'sc', namespace: ns, body: { metadata: { name: 'sc' }, spec: { replicas: 7 } }, dryRun: 'All' });
    assert.equal(put.kind, 'Scale');
    assert.equal(put.spec?.replicas, 7);
    assert.equal(put.status?.selector, 'app=sc');
    assert.equal(put.metadata?.resourceVersion, rv);
    const patched = await h.http('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/sc/scale?dryRun=All`, { spec: { replicas: 0 } }, { 'Content-Type': mergeType });
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.json.spec, {}, 'replicas 0 is omitted from a Scale, as autoscaling/v1 does');
    assert.equal(patched.json.metadata.resourceVersion, rv);
    const negative = await h.http('PUT', `/apis/apps/v1/namespaces/${ns}/deployments/sc/scale?dryRun=All`, { metadata: { name: 'sc' }, spec: { replicas: -1 } });
    assert.equal(negative.status, 422);
    assert.equal(negative.json.message, 'Scale.autoscaling "sc" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');

    const stored = await apps.readNamespacedDeployment({ name: 'sc', namespace: ns });
    assert.equal(stored.spec?.replicas, 2);
    assert.equal(stored.metadata?.generation, 1);
    assert.equal(stored.metadata?.resourceVersion, rv);
    assert.equal(h.sandbox.resourceVersion, globalRv);

    const real = await apps.patchNamespacedDeploymentScale({ name: 'sc', namespace: ns, body: { spec: { replicas: 3 } } }, merge);
    const event = await firstEventSince(`/apis/apps/v1/namespaces/${ns}/deployments?fieldSelector=metadata.name%3Dsc`, rv);
    assert.equal(event.type, 'MODIFIED');
    assert.equal(event.object.spec.replicas, 3);
    assert.equal(event.object.metadata.resourceVersion, real.metadata?.resourceVersion);
  });

  test('server-side apply: a dry-run create has no resourceVersion, a dry-run update keeps it; conflicts still fail', async () => {
    const apply = (name: string, manager: string, data: Record<string, string>, query = '&dryRun=All') =>
      h.http(
        'PATCH',
        `/api/v1/namespaces/${ns}/configmaps/${name}?fieldManager=${manager}${query}`,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data },
        { 'Content-Type': 'application/apply-patch+yaml' },
      );
    const globalRv = h.sandbox.resourceVersion;
    const created = await apply('ssa-new', 'm1', { a: '1' });
    assert.equal(created.status, 201);
    assert.match(created.json.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.ok(created.json.metadata.creationTimestamp);
    assert.equal(created.json.metadata.resourceVersion, undefined);
    assert.deepEqual(created.json.metadata.managedFields.map((m: { manager: string; operation: string }) => [m.manager, m.operation]), [['m1', 'Apply']]);
    assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/ssa-new`)).status, 404);
    assert.equal(h.sandbox.resourceVersion, globalRv);

    const live = await apply('ssa', 'm1', { a: '1' }, '');
    assert.equal(live.status, 201);
    const rv = live.json.metadata.resourceVersion;
    const changed = await apply('ssa', 'm1', { a: '2', b: '3' });
    assert.equal(changed.status, 200);
    assert.deepEqual(changed.json.data, { a: '2', b: '3' });
    assert.equal(changed.json.metadata.resourceVersion, rv);
    const conflict = await apply('ssa', 'm2', { a: '9' });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.json.message, 'Apply failed with 1 conflict: conflict with "m1": .data.a');
    const forced = await apply('ssa', 'm2', { a: '9' }, '&dryRun=All&force=true');
    assert.equal(forced.status, 200);
    assert.deepEqual(forced.json.metadata.managedFields.map((m: { manager: string }) => m.manager).sort(), ['m2']);

    const stored = await core.readNamespacedConfigMap({ name: 'ssa', namespace: ns });
    assert.deepEqual(stored.data, { a: '1' });
    assert.equal(stored.metadata?.resourceVersion, rv);
    assert.deepEqual(stored.metadata?.managedFields?.map((m) => m.manager), ['m1'], 'the forced dry run moved no ownership');

    const real = await core.patchNamespacedConfigMap({ name: 'ssa', namespace: ns, body: { metadata: { labels: { real: 'yes' } } } }, merge);
    const event = await firstEventSince(`/api/v1/namespaces/${ns}/configmaps?fieldSelector=metadata.name%3Dssa`, rv);
    assert.equal(event.type, 'MODIFIED');
    assert.equal(event.object.metadata.resourceVersion, real.metadata?.resourceVersion);
  });

  test('DELETE of a collection answers the list it would delete, and deletes or marks nothing', async () => {
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'dc-1', labels: { dc: 'y' } } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'dc-2', labels: { dc: 'y' }, finalizers: ['example.com/hold'] } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'dc-other', labels: { dc: 'n' } } } });
    const rv = String(h.sandbox.resourceVersion);
    const res = await h.http('DELETE', `/api/v1/namespaces/${ns}/configmaps?labelSelector=dc%3Dy&dryRun=All`);
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'ConfigMapList');
    assert.equal(res.json.apiVersion, 'v1');
    assert.equal(res.json.metadata.resourceVersion, rv);
    assert.deepEqual(res.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['dc-1', 'dc-2']);
    assert.equal(res.json.items[1].metadata.deletionTimestamp, undefined);

    const viaClient = await core.deleteCollectionNamespacedConfigMap({ namespace: ns, labelSelector: 'dc=y', dryRun: 'All' });
    assert.ok(viaClient, 'client-node accepts the answer');
    const left = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'dc' });
    assert.deepEqual(left.items.map((c) => [c.metadata?.name, c.metadata?.deletionTimestamp]), [
      ['dc-1', undefined],
      ['dc-2', undefined],
      ['dc-other', undefined],
    ]);
    assert.equal(String(h.sandbox.resourceVersion), rv);

    await h.http('DELETE', `/api/v1/namespaces/${ns}/configmaps?labelSelector=dc%3Dy`);
    const event = await firstEventSince(`/api/v1/namespaces/${ns}/configmaps?labelSelector=dc`, rv);
    assert.deepEqual([event.type, event.object.metadata.name], ['DELETED', 'dc-1']);
    await core.patchNamespacedConfigMap({ name: 'dc-2', namespace: ns, body: { metadata: { finalizers: null } } }, merge);
  });

  test('DELETE of a namespace answers it Terminating but leaves it Active, with its content', async () => {
    await settledNamespace('dry-ns');
    await core.createNamespacedConfigMap({ namespace: 'dry-ns', body: { metadata: { name: 'content' } } });
    const before = await core.readNamespace({ name: 'dry-ns' });
    const rv = before.metadata?.resourceVersion ?? '';
    const globalRv = h.sandbox.resourceVersion;

    const res = await h.http('DELETE', '/api/v1/namespaces/dry-ns?dryRun=All');
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'Namespace');
    assert.equal(res.json.status.phase, 'Terminating');
    assert.ok(res.json.metadata.deletionTimestamp);
    assert.deepEqual(res.json.spec.finalizers, ['kubernetes']);
    assert.equal(res.json.metadata.resourceVersion, rv);
    const viaClient = await core.deleteNamespace({ name: 'dry-ns', dryRun: 'All' });
    assert.ok(viaClient);

    // Give a namespace controller that saw a stored deletion time to act on it.
    await new Promise((r) => setTimeout(r, 200));
    const after = await core.readNamespace({ name: 'dry-ns' });
    assert.equal(after.status?.phase, 'Active');
    assert.equal(after.metadata?.deletionTimestamp, undefined);
    assert.equal(after.metadata?.resourceVersion, rv);
    assert.equal((await h.http('GET', '/api/v1/namespaces/dry-ns/configmaps/content')).status, 200);
    assert.equal(h.sandbox.resourceVersion, globalRv);
    const created = await h.http('POST', '/api/v1/namespaces/dry-ns/configmaps', { metadata: { name: 'still-open' } });
    assert.equal(created.status, 201, 'the namespace still accepts new content');

    const real = await core.patchNamespace({ name: 'dry-ns', body: { metadata: { labels: { real: 'yes' } } } }, merge);
    const event = await firstEventSince('/api/v1/namespaces?fieldSelector=metadata.name%3Ddry-ns', rv);
    assert.equal(event.type, 'MODIFIED');
    assert.equal(event.object.metadata.resourceVersion, real.metadata?.resourceVersion);
  });
});

describe('kubectl --dry-run=server', { skip: skipWithoutKubectl }, () => {
  test('patch --subresource=status, scale, apply --server-side and delete namespace store nothing', async () => {
    await core.createNamespacedPod({ namespace: ns, body: podManifest('k-st') as V1Pod });
    await apps.createNamespacedDeployment({ namespace: ns, body: deployment('k-sc', 2) });
    await settledNamespace('k-dry-ns');
    const globalRv = h.sandbox.resourceVersion;

    const status = await h.kubectl(['patch', 'pod', 'k-st', '-n', ns, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running"}}', '--dry-run=server']);
    // kubectl 1.32 prints no dry-run suffix for patch; the stored phase below shows nothing changed.
    assert.equal(status.stdout.trim(), 'pod/k-st patched', status.stderr);
    const scale = await h.kubectl(['scale', 'deployment', 'k-sc', '-n', ns, '--replicas=5', '--dry-run=server']);
    assert.equal(scale.stdout.trim(), 'deployment.apps/k-sc scaled (server dry run)', scale.stderr);
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'k-ssa', namespace: ns }, data: { a: '1' } });
    const apply = await h.kubectl(['apply', '--server-side', '--dry-run=server', '-f', '-'], manifest);
    assert.equal(apply.stdout.trim(), 'configmap/k-ssa serverside-applied (server dry run)', apply.stderr);
    const shown = await h.kubectl(['apply', '--server-side', '--dry-run=server', '-o', 'jsonpath={.data.a}', '-f', '-'], manifest);
    assert.equal(shown.stdout, '1', shown.stderr);
    const ns2 = await h.kubectl(['delete', 'namespace', 'k-dry-ns', '--dry-run=server']);
    assert.equal(ns2.stdout.trim(), 'namespace "k-dry-ns" deleted (server dry run)', ns2.stderr);

    const phase = await h.kubectl(['get', 'pod', 'k-st', '-n', ns, '-o', 'jsonpath={.status.phase}']);
    assert.equal(phase.stdout, 'Pending');
    const replicas = await h.kubectl(['get', 'deployment', 'k-sc', '-n', ns, '-o', 'jsonpath={.spec.replicas}']);
    assert.equal(replicas.stdout, '2');
    assert.match((await h.kubectl(['get', 'cm', 'k-ssa', '-n', ns])).stderr, /Error from server \(NotFound\): configmaps "k-ssa" not found/);
    const nsPhase = await h.kubectl(['get', 'namespace', 'k-dry-ns', '-o', 'jsonpath={.status.phase}']);
    assert.equal(nsPhase.stdout, 'Active');
    assert.equal(h.sandbox.resourceVersion, globalRv);
  });
});
