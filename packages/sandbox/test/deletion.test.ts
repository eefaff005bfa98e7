// Finalizers, graceful pod deletion, propagation policies and garbage collection, and namespace
// deletion, through @kubernetes/client-node, raw HTTP and kubectl.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { eventually, podManifest, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;
let core: CoreV1Api;
const ns = 'del';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

before(async () => {
  h = await startHarness();
  core = h.kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: ns } } });
});
after(() => h.stop());

const exists = async (path: string): Promise<boolean> => (await h.http('GET', path)).status === 200;

describe('finalizers and graceful deletion', () => {
  test('an unscheduled pod with a finalizer is marked, keeps its finalizer, rejects new ones, and goes when it is removed', async () => {
    await core.createNamespacedPod({ namespace: ns, body: podManifest('d1', { metadata: { finalizers: ['example.com/keep'] } }) });
    const marked = await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/d1`);
    assert.equal(marked.status, 200);
    assert.ok(marked.json.metadata.deletionTimestamp);
    assert.equal(marked.json.metadata.deletionGracePeriodSeconds, 0);
    const again = await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/d1`);
    assert.equal(again.json.metadata.resourceVersion, marked.json.metadata.resourceVersion, 'a second DELETE is a no-op');
    const added = await h.http(
      'PATCH',
      `/api/v1/namespaces/${ns}/pods/d1`,
      { metadata: { finalizers: ['example.com/keep', 'example.com/g'] } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    assert.equal(added.status, 422);
    assert.equal(
      added.json.message,
      'Pod "d1" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/g"}',
    );
    const removed = await core.patchNamespacedPod({ name: 'd1', namespace: ns, body: { metadata: { finalizers: null } } }, merge);
    assert.equal(removed.metadata?.resourceVersion, marked.json.metadata.resourceVersion, 'the response carries the pre-removal version');
    assert.equal(await exists(`/api/v1/namespaces/${ns}/pods/d1`), false);
  });

  test('a pod bound to a node waits for the kubelet: grace from the spec, shortened by a later DELETE, gone with grace 0', async () => {
    await core.createNamespacedPod({ namespace: ns, body: podManifest('bound', { spec: { nodeName: 'node-1', terminationGracePeriodSeconds: 30 } }) });
    const first = await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/bound`);
    assert.equal(first.json.metadata.deletionGracePeriodSeconds, 30);
    const start = Date.parse(first.json.metadata.deletionTimestamp) - 30_000;
    const shorter = await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/bound?gracePeriodSeconds=10`);
    assert.equal(shorter.json.metadata.deletionGracePeriodSeconds, 10);
    assert.equal(Date.parse(shorter.json.metadata.deletionTimestamp), start + 10_000);
    const longer = await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/bound?gracePeriodSeconds=20`);
    assert.equal(longer.json.metadata.deletionGracePeriodSeconds, 10, 'a longer grace period is ignored');
    assert.equal(await exists(`/api/v1/namespaces/${ns}/pods/bound`), true);
    const final = await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/bound`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 });
    assert.equal(final.json.metadata.deletionGracePeriodSeconds, 0);
    assert.equal(Date.parse(final.json.metadata.deletionTimestamp), start);
    assert.equal(await exists(`/api/v1/namespaces/${ns}/pods/bound`), false);
  });

  test('pod deletion is two-phase on the watch: MODIFIED with deletionTimestamp, then DELETED one version later', async () => {
    await core.createNamespacedPod({ namespace: ns, body: podManifest('w1') });
    const rv = h.sandbox.resourceVersion;
    const del = await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/w1`);
    const res = await fetch(`${h.sandbox.url}/api/v1/namespaces/${ns}/pods?watch=1&resourceVersion=${rv}&timeoutSeconds=1`);
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((e) => e.type), ['MODIFIED', 'DELETED']);
    assert.equal(Number(lines[1].object.metadata.resourceVersion), Number(lines[0].object.metadata.resourceVersion) + 1);
    assert.equal(del.json.metadata.resourceVersion, lines[1].object.metadata.resourceVersion);
  });

  test('delete preconditions and propagation options are validated as the real server does', async () => {
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'pre' } } });
    const stale = await h.http('DELETE', `/api/v1/namespaces/${ns}/configmaps/pre`, { preconditions: { resourceVersion: '1' } });
    assert.equal(stale.status, 409);
    assert.match(stale.json.message, /^Operation cannot be fulfilled on ConfigMap "pre": the ResourceVersion in the precondition \(1\) does not match the ResourceVersion in record \(\d+\)\. The object might have been modified$/);
    assert.equal(stale.json.details.kind, 'ConfigMap');
    const bogus = await h.http('DELETE', `/api/v1/namespaces/${ns}/configmaps/pre`, { propagationPolicy: 'Bogus' });
    assert.equal(bogus.status, 422);
    assert.equal(
      bogus.json.message,
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
  });

  test('a DELETE left pending by finalizers bumps the generation of objects that have one', async () => {
    const res = await h.http('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      metadata: { name: 'gen', finalizers: ['example.com/hold'] },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    });
    assert.equal(res.json.metadata.generation, 1);
    const pending = await h.http('DELETE', `/apis/apps/v1/namespaces/${ns}/deployments/gen`);
    assert.equal(pending.status, 200);
    assert.equal(pending.json.kind, 'Deployment');
    assert.equal(pending.json.metadata.generation, 2);
    assert.equal(pending.json.metadata.deletionGracePeriodSeconds, 0);
    await h.http('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/gen`, { metadata: { finalizers: null } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(await exists(`/apis/apps/v1/namespaces/${ns}/deployments/gen`), false);
  });

  test('Orphan adds the orphan finalizer; a later Background DELETE removes it again', async () => {
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'hold', finalizers: ['example.com/hold'] } } });
    const orphan = await h.http('DELETE', `/api/v1/namespaces/${ns}/configmaps/hold`, { propagationPolicy: 'Orphan' });
    assert.deepEqual(orphan.json.metadata.finalizers, ['example.com/hold', 'orphan']);
    const background = await h.http('DELETE', `/api/v1/namespaces/${ns}/configmaps/hold`, { propagationPolicy: 'Background' });
    assert.deepEqual(background.json.metadata.finalizers, ['example.com/hold']);
    await core.patchNamespacedConfigMap({ name: 'hold', namespace: ns, body: { metadata: { finalizers: null } } }, merge);
    assert.equal(await exists(`/api/v1/namespaces/${ns}/configmaps/hold`), false);
  });
});

describe('garbage collection', () => {
  const owned = (owner: { metadata?: { name?: string; uid?: string } }, block = true) => ({
    ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', blockOwnerDeletion: block }],
  });

  test('background: dependents of a deleted owner are deleted', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'owner-bg' } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'dep-bg', ...owned(owner) } } });
    await core.createNamespacedPod({ namespace: ns, body: podManifest('dep-bg-pod', { metadata: owned(owner) }) });
    await core.deleteNamespacedConfigMap({ name: 'owner-bg', namespace: ns });
    await eventually(async () => (!(await exists(`/api/v1/namespaces/${ns}/configmaps/dep-bg`)) && !(await exists(`/api/v1/namespaces/${ns}/pods/dep-bg-pod`)) ? true : undefined));
  });

  test('foreground: the owner waits with foregroundDeletion until its blocking dependents are gone', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'owner-fg' } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'dep-fg', finalizers: ['example.com/slow'], ...owned(owner) } } });
    const res = await h.http('DELETE', `/api/v1/namespaces/${ns}/configmaps/owner-fg`, { propagationPolicy: 'Foreground' });
    assert.deepEqual(res.json.metadata.finalizers, ['foregroundDeletion']);
    const dependent = await eventually(async () => {
      const dep = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/dep-fg`);
      return dep.json.metadata.deletionTimestamp ? dep.json : undefined;
    });
    assert.ok(dependent.metadata.deletionTimestamp);
    assert.equal(await exists(`/api/v1/namespaces/${ns}/configmaps/owner-fg`), true, 'the owner waits for its dependent');
    await core.patchNamespacedConfigMap({ name: 'dep-fg', namespace: ns, body: { metadata: { finalizers: null } } }, merge);
    await eventually(async () => ((await exists(`/api/v1/namespaces/${ns}/configmaps/owner-fg`)) ? undefined : true));
  });

  test('orphan: dependents lose the owner reference and stay', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'owner-or' } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'dep-or', ...owned(owner) } } });
    await h.http('DELETE', `/api/v1/namespaces/${ns}/configmaps/owner-or`, { propagationPolicy: 'Orphan' });
    await eventually(async () => ((await exists(`/api/v1/namespaces/${ns}/configmaps/owner-or`)) ? undefined : true));
    const dep = await core.readNamespacedConfigMap({ name: 'dep-or', namespace: ns });
    assert.equal(dep.metadata?.ownerReferences, undefined);
  });

  test('an object whose only owner does not exist is collected', async () => {
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'dangling', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '00000000-0000-0000-0000-000000000001' }] } },
    });
    await eventually(async () => ((await exists(`/api/v1/namespaces/${ns}/configmaps/dangling`)) ? undefined : true));
  });
});

describe('namespaces', () => {
  test('a new namespace is Active with the kubernetes finalizer, its name label, a default ServiceAccount', async () => {
    const created = await core.createNamespace({ body: { metadata: { name: 'fresh' } } });
    assert.equal(created.status?.phase, 'Active');
    assert.deepEqual(created.spec?.finalizers, ['kubernetes']);
    assert.equal(created.metadata?.labels?.['kubernetes.io/metadata.name'], 'fresh');
    await eventually(async () => ((await exists('/api/v1/namespaces/fresh/serviceaccounts/default')) ? true : undefined));
    await eventually(async () => ((await exists('/api/v1/namespaces/fresh/configmaps/kube-root-ca.crt')) ? true : undefined));
  });

  test('deleting a namespace: Terminating, no new content, content deleted, conditions, then gone', async () => {
    await core.createNamespace({ body: { metadata: { name: 'term' } } });
    await core.createNamespacedConfigMap({ namespace: 'term', body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    await core.createNamespacedPod({ namespace: 'term', body: podManifest('p') });
    const res = await h.http('DELETE', '/api/v1/namespaces/term');
    assert.equal(res.status, 200);
    assert.equal(res.json.status.phase, 'Terminating');
    assert.deepEqual(res.json.spec.finalizers, ['kubernetes']);
    const refused = await h.http('POST', '/api/v1/namespaces/term/configmaps', { metadata: { name: 'new' } });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.message, 'configmaps "new" is forbidden: unable to create new content in namespace term because it is being terminated');
    assert.deepEqual(refused.json.details.causes, [{ reason: 'NamespaceTerminating', message: 'namespace term is being terminated', field: 'metadata.namespace' }]);
    const conditions = await eventually(async () => {
      const ns = await h.http('GET', '/api/v1/namespaces/term');
      const remaining = ns.json.status.conditions?.find((c: { type: string }) => c.type === 'NamespaceFinalizersRemaining');
      return remaining?.status === 'True' ? ns.json.status.conditions : undefined;
    });
    assert.equal(
      conditions.find((c: { type: string }) => c.type === 'NamespaceContentRemaining').message,
      'Some resources are remaining: configmaps. has 1 resource instances',
    );
    assert.equal(await exists('/api/v1/namespaces/term/pods/p'), false);
    await core.patchNamespacedConfigMap({ name: 'held', namespace: 'term', body: { metadata: { finalizers: null } } }, merge);
    await eventually(async () => ((await exists('/api/v1/namespaces/term')) ? undefined : true), 5000);
  });

  test('default and kube-system cannot be deleted', async () => {
    const res = await h.http('DELETE', '/api/v1/namespaces/default');
    assert.equal(res.status, 403);
    assert.equal(res.json.message, 'namespaces "default" is forbidden: this namespace may not be deleted');
  });
});

describe('deletion through kubectl', { skip: skipWithoutKubectl }, () => {
  test('kubectl delete waits for finalizers and reports the deletion', async () => {
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'k-fin', finalizers: ['example.com/k'] } } });
    const pending = await h.kubectl(['delete', 'cm', 'k-fin', '-n', ns, '--wait=false']);
    assert.equal(pending.stdout.trim(), 'configmap "k-fin" deleted');
    const shown = await h.kubectl(['get', 'cm', 'k-fin', '-n', ns, '-o', 'jsonpath={.metadata.deletionTimestamp}']);
    assert.ok(shown.stdout.length > 0);
    const waiting = h.kubectl(['wait', '--for=delete', 'cm/k-fin', '-n', ns, '--timeout=5s']);
    await new Promise((r) => setTimeout(r, 300));
    await h.kubectl(['patch', 'cm', 'k-fin', '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    const waited = await waiting;
    assert.equal(waited.code, 0, waited.stderr);
  });

  test('kubectl delete --cascade=orphan and --cascade=foreground', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'k-owner' } } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'k-owner', uid: owner.metadata?.uid ?? '', blockOwnerDeletion: true };
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'k-dep', ownerReferences: [ref] } } });
    const orphan = await h.kubectl(['delete', 'cm', 'k-owner', '-n', ns, '--cascade=orphan']);
    assert.equal(orphan.stdout.trim(), 'configmap "k-owner" deleted', orphan.stderr);
    assert.equal((await core.readNamespacedConfigMap({ name: 'k-dep', namespace: ns })).metadata?.ownerReferences, undefined);
    const owner2 = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'k-owner2' } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'k-dep2', ownerReferences: [{ ...ref, name: 'k-owner2', uid: owner2.metadata?.uid ?? '' }] } } });
    const fg = await h.kubectl(['delete', 'cm', 'k-owner2', '-n', ns, '--cascade=foreground', '--timeout=5s']);
    assert.equal(fg.stdout.trim(), 'configmap "k-owner2" deleted', fg.stderr);
    assert.equal(await exists(`/api/v1/namespaces/${ns}/configmaps/k-dep2`), false);
    assert.equal(await exists(`/api/v1/namespaces/${ns}/configmaps/k-owner2`), false);
  });

  test('kubectl delete --cascade=background: the owner goes, the garbage collector then deletes its dependents', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'k-owner-bg' } } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'k-owner-bg', uid: owner.metadata?.uid ?? '' };
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'k-dep-bg', ownerReferences: [ref] } } });
    await core.createNamespacedPod({ namespace: ns, body: podManifest('k-dep-bg-pod', { metadata: { ownerReferences: [ref] } }) });
    // A second owner keeps this dependent alive: only dependents left with no live owner are collected.
    const other = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'k-other-owner' } } });
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'k-shared', ownerReferences: [ref, { ...ref, name: 'k-other-owner', uid: other.metadata?.uid ?? '' }] } },
    });
    const res = await h.kubectl(['delete', 'cm', 'k-owner-bg', '-n', ns, '--cascade=background']);
    assert.equal(res.stdout.trim(), 'configmap "k-owner-bg" deleted', res.stderr);
    assert.equal(await exists(`/api/v1/namespaces/${ns}/configmaps/k-owner-bg`), false, 'the owner is gone when kubectl returns');
    await eventually(async () =>
      !(await exists(`/api/v1/namespaces/${ns}/configmaps/k-dep-bg`)) && !(await exists(`/api/v1/namespaces/${ns}/pods/k-dep-bg-pod`)) ? true : undefined,
    );
    const shared = await core.readNamespacedConfigMap({ name: 'k-shared', namespace: ns });
    assert.deepEqual(shared.metadata?.ownerReferences?.map((r) => r.name), ['k-other-owner'], 'the reference to the deleted owner is removed');
    const gone = await h.kubectl(['get', 'pod', 'k-dep-bg-pod', '-n', ns]);
    assert.match(gone.stderr, /Error from server \(NotFound\): pods "k-dep-bg-pod" not found/);
  });

  test('kubectl delete namespace cascades', async () => {
    await h.kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kns' } }));
    await h.kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'kns' } }));
    const res = await h.kubectl(['delete', 'namespace', 'kns', '--timeout=10s']);
    assert.equal(res.stdout.trim(), 'namespace "kns" deleted');
    assert.equal(await exists('/api/v1/namespaces/kns'), false);
  });
});
