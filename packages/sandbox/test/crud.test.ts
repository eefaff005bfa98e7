// CRUD, optimistic concurrency, validation errors, dryRun and Status error bodies, through
// @kubernetes/client-node, raw HTTP and kubectl.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException, AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { podManifest, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;
let core: CoreV1Api;
let apps: AppsV1Api;
const ns = 'crud';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

before(async () => {
  h = await startHarness();
  core = h.kc.makeApiClient(CoreV1Api);
  apps = h.kc.makeApiClient(AppsV1Api);
  await core.createNamespace({ body: { metadata: { name: ns } } });
});
after(() => h.stop());

async function apiError(promise: Promise<unknown>): Promise<{ code: number; body: Record<string, unknown> }> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ApiException, `expected ApiException, got ${String(err)}`);
    return { code: err.code, body: JSON.parse(String(err.body)) as Record<string, unknown> };
  }
  assert.fail('expected the request to fail');
}

describe('CRUD through @kubernetes/client-node', () => {
  test('create fills uid, creationTimestamp, resourceVersion and defaults; get and list return it', async () => {
    const created = await core.createNamespacedPod({ namespace: ns, body: podManifest('c1') as V1Pod });
    assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.ok(created.metadata?.creationTimestamp);
    assert.match(created.metadata?.resourceVersion ?? '', /^\d+$/);
    assert.equal(created.metadata?.generation, undefined, 'pods have no generation');
    assert.equal(created.status?.phase, 'Pending');
    assert.equal(created.status?.qosClass, 'BestEffort');
    assert.equal(created.spec?.restartPolicy, 'Always');
    const read = await core.readNamespacedPod({ name: 'c1', namespace: ns });
    assert.equal(read.metadata?.uid, created.metadata?.uid);
    const list = await core.listNamespacedPod({ namespace: ns });
    assert.deepEqual(list.items.map((p) => p.metadata?.name), ['c1']);
    assert.match(list.metadata?.resourceVersion ?? '', /^\d+$/);
  });

  test('resourceVersion is global and monotonic across resources', async () => {
    const a = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'rv-a' } } });
    const b = await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: 'rv-b' } } });
    assert.ok(Number(b.metadata?.resourceVersion) > Number(a.metadata?.resourceVersion));
  });

  test('generateName produces a 5-character suffix', async () => {
    const created = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { generateName: 'gen-' } } });
    assert.match(created.metadata?.name ?? '', /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  test('a stale update is 409 Conflict with the real message; an update without resourceVersion is unconditional', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'cc' }, data: { a: '1' } } });
    await core.replaceNamespacedConfigMap({ name: 'cc', namespace: ns, body: { ...cm, data: { a: '2' } } });
    const err = await apiError(core.replaceNamespacedConfigMap({ name: 'cc', namespace: ns, body: { ...cm, data: { a: '3' } } }));
    assert.equal(err.code, 409);
    assert.equal(err.body.reason, 'Conflict');
    assert.equal(
      err.body.message,
      'Operation cannot be fulfilled on configmaps "cc": the object has been modified; please apply your changes to the latest version and try again',
    );
    assert.deepEqual(err.body.details, { name: 'cc', kind: 'configmaps' });
    const unconditional = await core.replaceNamespacedConfigMap({
      name: 'cc',
      namespace: ns,
      body: { metadata: { name: 'cc' }, data: { a: '4' } },
    });
    assert.equal(unconditional.data?.a, '4');
  });

  test('a no-op update keeps the resourceVersion', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'noop' }, data: { a: '1' } } });
    const again = await core.replaceNamespacedConfigMap({ name: 'noop', namespace: ns, body: cm });
    assert.equal(again.metadata?.resourceVersion, cm.metadata?.resourceVersion);
    const patched = await core.patchNamespacedConfigMap(
      { name: 'noop', namespace: ns, body: { data: { a: '1' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.equal(patched.metadata?.resourceVersion, cm.metadata?.resourceVersion);
  });

  test('deployments get generation 1 and bump it on spec and annotation changes, not on labels', async () => {
    const dep = await apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'web', generation: 50 },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      },
    });
    assert.equal(dep.metadata?.generation, 1);
    assert.equal(dep.spec?.strategy?.type, 'RollingUpdate');
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const labelled = await apps.patchNamespacedDeployment({ name: 'web', namespace: ns, body: { metadata: { labels: { x: '1' } } } }, merge);
    assert.equal(labelled.metadata?.generation, 1);
    const annotated = await apps.patchNamespacedDeployment({ name: 'web', namespace: ns, body: { metadata: { annotations: { n: '1' } } } }, merge);
    assert.equal(annotated.metadata?.generation, 2);
    const scaled = await apps.patchNamespacedDeployment({ name: 'web', namespace: ns, body: { spec: { replicas: 3 } } }, merge);
    assert.equal(scaled.metadata?.generation, 3);
    const status = await apps.patchNamespacedDeploymentStatus({ name: 'web', namespace: ns, body: { status: { observedGeneration: 3 } } }, merge);
    assert.equal(status.metadata?.generation, 3);
    const scale = await apps.replaceNamespacedDeploymentScale({ name: 'web', namespace: ns, body: { metadata: { name: 'web' }, spec: { replicas: 5 } } });
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.spec?.replicas, 5);
    assert.equal(scale.status?.selector, 'app=web');
    assert.equal((await apps.readNamespacedDeployment({ name: 'web', namespace: ns })).metadata?.generation, 4);
  });

  test('replicasets/scale: the Scale view, PUT with a resourceVersion precondition, selector printed as LabelSelectorAsSelector does', async () => {
    const rs = await apps.createNamespacedReplicaSet({
      namespace: ns,
      body: {
        metadata: { name: 'rs-scale' },
        spec: {
          replicas: 2,
          // Requirements print sorted by key across matchLabels and matchExpressions, set values sorted too.
          selector: {
            matchLabels: { tier: 'b', app: 'x' },
            matchExpressions: [
              { key: 'zone', operator: 'In', values: ['z2', 'z1'] },
              { key: 'env', operator: 'Exists' },
              { key: 'b', operator: 'DoesNotExist' },
            ],
          },
          template: { metadata: { labels: { app: 'x', tier: 'b', zone: 'z1', env: 'e' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      },
    });
    const path = `/apis/apps/v1/namespaces/${ns}/replicasets/rs-scale/scale`;
    const got = await h.http('GET', path);
    assert.deepEqual(got.json, {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: 'rs-scale',
        namespace: ns,
        uid: rs.metadata?.uid,
        resourceVersion: rs.metadata?.resourceVersion,
        creationTimestamp: got.json.metadata.creationTimestamp,
      },
      spec: { replicas: 2 },
      status: { replicas: 0, selector: 'app=x,!b,env,tier=b,zone in (z1,z2)' },
    });
    const viaClient = await apps.readNamespacedReplicaSetScale({ name: 'rs-scale', namespace: ns });
    assert.equal(viaClient.status?.selector, 'app=x,!b,env,tier=b,zone in (z1,z2)');

    const put = await apps.replaceNamespacedReplicaSetScale({
      name: 'rs-scale',
      namespace: ns,
      body: { metadata: { name: 'rs-scale', resourceVersion: viaClient.metadata?.resourceVersion }, spec: { replicas: 4 } },
    });
    assert.equal(put.spec?.replicas, 4);
    assert.ok(Number(put.metadata?.resourceVersion) > Number(rs.metadata?.resourceVersion));
    const stored = await apps.readNamespacedReplicaSet({ name: 'rs-scale', namespace: ns });
    assert.equal(stored.spec?.replicas, 4);
    assert.equal(stored.metadata?.generation, 2);
    assert.equal(stored.metadata?.resourceVersion, put.metadata?.resourceVersion);

    const stale = await apiError(
      apps.replaceNamespacedReplicaSetScale({
        name: 'rs-scale',
        namespace: ns,
        body: { metadata: { name: 'rs-scale', resourceVersion: rs.metadata?.resourceVersion }, spec: { replicas: 5 } },
      }),
    );
    assert.equal(stale.code, 409);
    assert.equal(
      stale.body.message,
      'Operation cannot be fulfilled on replicasets.apps "rs-scale": the object has been modified; please apply your changes to the latest version and try again',
    );
    const negative = await h.http('PUT', path, { metadata: { name: 'rs-scale' }, spec: { replicas: -1 } });
    assert.equal(negative.status, 422);
    assert.equal(negative.json.message, 'Scale.autoscaling "rs-scale" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    const missing = await h.http('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/nope/scale`);
    assert.equal(missing.status, 404);
    assert.equal(missing.json.message, 'replicasets.apps "nope" not found');
  });

  test('statefulsets/scale: merge and JSON patches of spec.replicas bump generation; zero replicas is an empty Scale spec', async () => {
    await apps.createNamespacedStatefulSet({
      namespace: ns,
      body: {
        metadata: { name: 'sts-scale' },
        spec: {
          replicas: 1,
          serviceName: 'sts-scale',
          selector: { matchLabels: { app: 'db' } },
          template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      },
    });
    const patched = await apps.patchNamespacedStatefulSetScale({ name: 'sts-scale', namespace: ns, body: { spec: { replicas: 3 } } }, merge);
    assert.equal(patched.kind, 'Scale');
    assert.equal(patched.spec?.replicas, 3);
    assert.equal(patched.status?.selector, 'app=db');
    assert.equal(patched.status?.replicas, 0, 'no controller runs, so nothing is observed');
    let sts = await apps.readNamespacedStatefulSet({ name: 'sts-scale', namespace: ns });
    assert.equal(sts.spec?.replicas, 3);
    assert.equal(sts.metadata?.generation, 2);

    const path = `/apis/apps/v1/namespaces/${ns}/statefulsets/sts-scale/scale`;
    const zero = await h.http('PATCH', path, [{ op: 'replace', path: '/spec/replicas', value: 0 }], { 'Content-Type': 'application/json-patch+json' });
    assert.equal(zero.status, 200);
    // autoscaling/v1 omits a zero spec.replicas.
    assert.deepEqual(zero.json.spec, {});
    sts = await apps.readNamespacedStatefulSet({ name: 'sts-scale', namespace: ns });
    assert.equal(sts.spec?.replicas, 0);
    assert.equal(sts.metadata?.generation, 3);
    const noop = await h.http('PATCH', path, { spec: { replicas: 0 } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(noop.json.metadata.resourceVersion, zero.json.metadata.resourceVersion, 'an unchanged replica count is a no-op');
  });

  test('deleting a configmap answers a Success Status with the uid; deleting a pod answers the pod', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'del-cm' } } });
    const res = await h.http('DELETE', `/api/v1/namespaces/${ns}/configmaps/del-cm`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'del-cm', kind: 'configmaps', uid: cm.metadata?.uid },
      code: 200,
    });
    await core.createNamespacedPod({ namespace: ns, body: podManifest('del-pod') as V1Pod });
    const pod = await h.http('DELETE', `/api/v1/namespaces/${ns}/pods/del-pod`);
    assert.equal(pod.json.kind, 'Pod');
    assert.equal(pod.json.metadata.deletionGracePeriodSeconds, 0);
    assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}/pods/del-pod`)).status, 404);
  });
});

describe('events', () => {
  test('events.k8s.io/v1 and core/v1 are two views of the same events', async () => {
    const created = await h.http('POST', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
      metadata: { name: 'e1' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/controller',
      reportingInstance: 'i-1',
      action: 'Reconcile',
      reason: 'Done',
      type: 'Normal',
      regarding: { kind: 'Pod', name: 'p', namespace: ns },
      note: 'hello',
    });
    assert.equal(created.status, 201);
    assert.equal(created.json.apiVersion, 'events.k8s.io/v1');
    assert.equal(created.json.note, 'hello');
    const core = await h.http('GET', `/api/v1/namespaces/${ns}/events/e1`);
    assert.equal(core.json.message, 'hello');
    assert.equal(core.json.reportingComponent, 'example.com/controller');
    assert.deepEqual(core.json.involvedObject, { kind: 'Pod', name: 'p', namespace: ns });
    const invalid = await h.http('POST', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
      metadata: { name: 'e2' },
      reportingController: 'example.com/c',
      reportingInstance: 'i',
      action: 'A',
      reason: 'R',
      type: 'Normal',
      regarding: { kind: 'Pod', name: 'p', namespace: ns },
    });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.json.message, 'Event "e2" is invalid: eventTime: Required value');
  });
});

describe('events written without a reporting instance', () => {
  test('core/v1 shows reportingInstance "" (no omitempty); events.k8s.io/v1 leaves the key out', async () => {
    // What the sandbox's controllers write: a core Event with a source but no reporting instance.
    const created = await h.http('POST', `/api/v1/namespaces/${ns}/events`, {
      metadata: { name: 'scaled' },
      involvedObject: { kind: 'Deployment', name: 'd', namespace: ns },
      reason: 'ScalingReplicaSet',
      message: 'Scaled up replica set d-1 from 0 to 1',
      source: { component: 'deployment-controller' },
      reportingComponent: 'deployment-controller',
      type: 'Normal',
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.reportingInstance, '');
    const view = await h.http('GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events/scaled`);
    assert.equal('reportingInstance' in view.json, false);
    assert.equal(view.json.reportingController, 'deployment-controller');
    const listed = await h.http('GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events?fieldSelector=metadata.name%3Dscaled`);
    assert.equal('reportingInstance' in listed.json.items[0], false);
  });
});

describe('Status error bodies', () => {
  test('404 NotFound names the resource (and group for non-core)', async () => {
    const res = await h.http('GET', `/api/v1/namespaces/${ns}/pods/nope`);
    assert.equal(res.status, 404);
    assert.deepEqual(res.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pods "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', kind: 'pods' },
      code: 404,
    });
    const dep = await h.http('GET', `/apis/apps/v1/namespaces/${ns}/deployments/nope`);
    assert.equal(dep.json.message, 'deployments.apps "nope" not found');
    assert.deepEqual(dep.json.details, { name: 'nope', group: 'apps', kind: 'deployments' });
  });

  test('409 AlreadyExists', async () => {
    await h.http('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'dup' } });
    const res = await h.http('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'dup' } });
    assert.equal(res.status, 409);
    assert.equal(res.json.reason, 'AlreadyExists');
    assert.equal(res.json.message, 'configmaps "dup" already exists');
  });

  test('422 Invalid lists every cause, with the Kind in details', async () => {
    const res = await h.http('POST', `/api/v1/namespaces/${ns}/pods`, {
      metadata: { name: 'bad', labels: { 'bad key!': 'x' }, finalizers: ['nodomain'] },
      spec: { containers: [] },
    });
    assert.equal(res.status, 422);
    assert.equal(res.json.reason, 'Invalid');
    assert.deepEqual(
      res.json.details.causes.map((c: { field: string }) => c.field),
      ['metadata.labels', 'metadata.finalizers[0]', 'spec.containers'],
    );
    assert.match(res.json.message, /^Pod "bad" is invalid: \[metadata\.labels: Invalid value: "bad key!": name part must consist of/);
    assert.equal(res.json.details.kind, 'Pod');
  });

  test('request-level errors are 400 BadRequest with the real messages', async () => {
    const wrongNs = await h.http('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'x', namespace: 'other' } });
    assert.equal(wrongNs.status, 400);
    assert.equal(wrongNs.json.message, 'the namespace of the provided object does not match the namespace sent on the request');
    const wrongName = await h.http('PUT', `/api/v1/namespaces/${ns}/configmaps/x1`, { metadata: { name: 'x2' } });
    assert.equal(wrongName.json.message, 'the name of the object (x2) does not match the name on the URL (x1)');
    const wrongKind = await h.http('POST', `/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } });
    assert.equal(wrongKind.json.message, 'Service in version "v1" cannot be handled as a Pod: converting (v1.Service) to (core.Pod): unknown conversion');
    const missingNs = await h.http('POST', '/api/v1/namespaces/nons/configmaps', { metadata: { name: 'x' } });
    assert.equal(missingNs.status, 404);
    assert.equal(missingNs.json.message, 'namespaces "nons" not found');
    const badRv = await h.http('PUT', `/api/v1/namespaces/${ns}/configmaps/dup`, { metadata: { name: 'dup', resourceVersion: 'abc' } });
    assert.equal(badRv.status, 500);
    assert.equal(badRv.json.message, 'strconv.ParseUint: parsing "abc": invalid syntax');
    assert.equal(badRv.json.reason, undefined);
  });

  test('unknown fields: a Warning by default, 400 with fieldValidation=Strict', async () => {
    const body = { metadata: { name: 'uf' }, spec: { containers: [{ name: 'c', image: 'nginx', bogusField: 1 }] } };
    const warned = await h.http('POST', `/api/v1/namespaces/${ns}/pods`, body);
    assert.equal(warned.status, 201);
    assert.equal(warned.headers.get('warning'), '299 - "unknown field \\"spec.containers[0].bogusField\\""');
    assert.equal(warned.json.spec.containers[0].bogusField, undefined);
    const strict = await h.http('POST', `/api/v1/namespaces/${ns}/pods?fieldValidation=Strict`, { ...body, metadata: { name: 'uf2' } });
    assert.equal(strict.status, 400);
    assert.equal(strict.json.message, 'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].bogusField"');
    // Every problem in the order the decoder meets it in the body, repeated keys among them (kube-apiserver v1.32).
    const text = (name: string): string =>
      `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"${name}","name":"${name}","namespace":"${ns}"},"spec":{"containers":[{"name":"c","image":"x","bogusField":2,"image":"y"}],"zz":1,"5":1,"bogus":1},"aa":1}`;
    const ordered = await h.http('POST', `/api/v1/namespaces/${ns}/pods?fieldValidation=Strict`, text('uf3'));
    assert.equal(
      ordered.json.message,
      'Pod in version "v1" cannot be handled as a Pod: strict decoding error: duplicate field "metadata.name", unknown field "spec.containers[0].bogusField", duplicate field "spec.containers[0].image", unknown field "spec.zz", unknown field "spec.5", unknown field "spec.bogus", unknown field "aa"',
    );
    const warnings = await h.http('POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, text('uf4'));
    assert.equal(
      warnings.headers.get('warning'),
      ['duplicate field "metadata.name"', 'unknown field "spec.containers[0].bogusField"', 'duplicate field "spec.containers[0].image"', 'unknown field "spec.zz"', 'unknown field "spec.5"', 'unknown field "spec.bogus"', 'unknown field "aa"']
        .map((w) => `299 - ${JSON.stringify(w)}`)
        .join(', '),
    );
    // A patch's problems come in the order of its merged object's encoding (keys sorted).
    await h.http('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'uf-patch' } });
    const patched = await h.http('PATCH', `/api/v1/namespaces/${ns}/configmaps/uf-patch?fieldValidation=Strict`, '{"zz":1,"metadata":{"qq":1},"aa":1}', { 'Content-Type': 'application/merge-patch+json' });
    assert.match(patched.json.message, /strict decoding error: unknown field "aa", unknown field "metadata\.qq", unknown field "zz"$/);
    const invalid = await h.http('POST', `/api/v1/namespaces/${ns}/pods?fieldValidation=Bogus`, body);
    assert.equal(invalid.status, 422);
    assert.equal(
      invalid.json.message,
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"',
    );
  });

  test('unknown paths: plain 404 for unknown groups, a Status for unknown resources', async () => {
    const group = await h.http('GET', '/apis/nonexistent.io/v1');
    assert.equal(group.status, 404);
    assert.equal(group.text, '404 page not found\n');
    const resource = await h.http('GET', '/apis/apps/v1/nonexistent');
    assert.equal(resource.status, 404);
    assert.equal(resource.json.message, 'the server could not find the requested resource');
  });
});

describe('dryRun', () => {
  test('dryRun=All on create returns the object without storing it', async () => {
    const res = await h.http('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { metadata: { name: 'dry' } });
    assert.equal(res.status, 201);
    assert.ok(res.json.metadata.uid);
    assert.equal(res.json.metadata.resourceVersion, undefined);
    assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/dry`)).status, 404);
    const bogus = await h.http('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=Bogus`, { metadata: { name: 'dry' } });
    assert.equal(bogus.status, 422);
    assert.equal(bogus.json.message, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"');
  });

  test('dryRun on update, patch and delete changes nothing', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'dry2' }, data: { a: '1' } } });
    const patched = await core.patchNamespacedConfigMap(
      { name: 'dry2', namespace: ns, body: { data: { a: '2' } }, dryRun: 'All' },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.equal(patched.data?.a, '2');
    await core.replaceNamespacedConfigMap({ name: 'dry2', namespace: ns, body: { ...cm, data: { a: '3' } }, dryRun: 'All' });
    await core.deleteNamespacedConfigMap({ name: 'dry2', namespace: ns, dryRun: 'All' });
    const read = await core.readNamespacedConfigMap({ name: 'dry2', namespace: ns });
    assert.equal(read.data?.a, '1');
    assert.equal(read.metadata?.resourceVersion, cm.metadata?.resourceVersion);
  });
});

describe('CRUD through kubectl', { skip: skipWithoutKubectl }, () => {
  test('create, get, label, annotate, delete and the familiar error messages', async () => {
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'k1', namespace: ns }, data: { a: '1' } });
    assert.equal((await h.kubectl(['create', '-f', '-'], manifest)).stdout.trim(), 'configmap/k1 created');
    const again = await h.kubectl(['create', '-f', '-'], manifest);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /Error from server \(AlreadyExists\).*configmaps "k1" already exists/);
    const got = await h.kubectl(['get', 'cm', 'k1', '-n', ns, '-o', 'jsonpath={.data.a}']);
    assert.equal(got.stdout, '1');
    assert.equal((await h.kubectl(['label', 'cm', 'k1', '-n', ns, 'x=1'])).stdout.trim(), 'configmap/k1 labeled');
    const stale = await h.kubectl(['label', 'cm', 'k1', '-n', ns, 'y=1', '--resource-version=1']);
    assert.match(stale.stderr, /Error from server \(Conflict\): Operation cannot be fulfilled on configmaps "k1": the object has been modified/);
    assert.equal((await h.kubectl(['annotate', 'cm', 'k1', '-n', ns, 'note=hi'])).stdout.trim(), 'configmap/k1 annotated');
    const missing = await h.kubectl(['get', 'pod', 'nope', '-n', ns]);
    assert.match(missing.stderr, /Error from server \(NotFound\): pods "nope" not found/);
    const invalid = await h.kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'k-bad', namespace: ns }, spec: { containers: [] } }));
    assert.match(invalid.stderr, /The Pod "k-bad" is invalid: spec\.containers: Required value/);
    assert.equal((await h.kubectl(['delete', 'cm', 'k1', '-n', ns])).stdout.trim(), 'configmap "k1" deleted');
  });

  test('kubectl’s generators send protobuf bodies, which are decoded', async () => {
    assert.equal((await h.kubectl(['create', 'namespace', 'gen'])).stdout.trim(), 'namespace/gen created');
    assert.equal((await h.kubectl(['create', 'configmap', 'g1', '-n', 'gen', '--from-literal=a=b'])).stdout.trim(), 'configmap/g1 created');
    assert.equal((await h.kubectl(['create', 'secret', 'generic', 's1', '-n', 'gen', '--from-literal=k=v'])).stdout.trim(), 'secret/s1 created');
    const dep = await h.kubectl(['create', 'deployment', 'web', '-n', 'gen', '--image=nginx', '--replicas=2', '--port=80']);
    assert.equal(dep.stdout.trim(), 'deployment.apps/web created', dep.stderr);
    assert.equal((await h.kubectl(['expose', 'deployment', 'web', '-n', 'gen', '--port=8080'])).stdout.trim(), 'service/web exposed');
    const stored = await apps.readNamespacedDeployment({ name: 'web', namespace: 'gen' });
    assert.equal(stored.spec?.replicas, 2);
    assert.deepEqual(JSON.parse(JSON.stringify(stored.spec?.template.spec?.containers[0]?.ports)), [{ containerPort: 80, protocol: 'TCP' }]);
    const svc = await core.readNamespacedService({ name: 'web', namespace: 'gen' });
    assert.deepEqual({ ...svc.spec?.selector }, { app: 'web' });
    assert.equal((await core.readNamespacedSecret({ name: 's1', namespace: 'gen' })).data?.k, Buffer.from('v').toString('base64'));
  });

  test('kubectl scale reads and writes /scale of replicasets and statefulsets', async () => {
    const template = { metadata: { labels: { app: 'ks' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const manifests = [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'k-rs', namespace: ns }, spec: { replicas: 1, selector: { matchLabels: { app: 'ks' } }, template } },
      { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'k-sts', namespace: ns }, spec: { replicas: 1, serviceName: 'k-sts', selector: { matchLabels: { app: 'ks' } }, template } },
    ];
    const created = await h.kubectl(['create', '-f', '-'], manifests.map((m) => JSON.stringify(m)).join('\n'));
    assert.equal(created.stdout.trim(), 'replicaset.apps/k-rs created\nstatefulset.apps/k-sts created', created.stderr);
    const rs = await h.kubectl(['scale', 'rs', 'k-rs', '-n', ns, '--replicas=3']);
    assert.equal(rs.stdout.trim(), 'replicaset.apps/k-rs scaled', rs.stderr);
    // --current-replicas is checked against the Scale kubectl reads, then the Scale is PUT with its resourceVersion.
    const wrong = await h.kubectl(['scale', 'sts', 'k-sts', '-n', ns, '--current-replicas=5', '--replicas=2']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /Expected replicas to be 5, was 1/);
    const sts = await h.kubectl(['scale', 'sts', 'k-sts', '-n', ns, '--current-replicas=1', '--replicas=2']);
    assert.equal(sts.stdout.trim(), 'statefulset.apps/k-sts scaled', sts.stderr);
    const replicas = await h.kubectl(['get', 'rs/k-rs', 'sts/k-sts', '-n', ns, '-o', 'jsonpath={.items[*].spec.replicas}']);
    assert.equal(replicas.stdout, '3 2');
    const scale = await h.kubectl(['get', '--raw', `/apis/apps/v1/namespaces/${ns}/statefulsets/k-sts/scale`]);
    assert.deepEqual(JSON.parse(scale.stdout).status, { replicas: 0, selector: 'app=ks' });
  });

  test('kubectl create --dry-run=server stores nothing', async () => {
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kdry', namespace: ns } });
    const res = await h.kubectl(['create', '--dry-run=server', '-f', '-'], manifest);
    assert.equal(res.stdout.trim(), 'configmap/kdry created (server dry run)');
    assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/kdry`)).status, 404);
  });
});
