// CustomResourceDefinitions: creation, discovery, CR CRUD with schema rejection, pruning and
// defaulting, status and scale subresources, printer columns, deletion, through
// @kubernetes/client-node, raw HTTP and kubectl.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiextensionsV1Api, ApiException, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { eventually, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;
let crds: ApiextensionsV1Api;
let custom: CustomObjectsApi;
const ns = 'crd';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const widgets = { group: 'example.com', version: 'v1', namespace: ns, plural: 'widgets' };

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer', minimum: 1, maximum: 10 },
                  color: { type: 'string', default: 'blue' },
                  replicas: { type: 'integer' },
                },
              },
              status: { type: 'object', properties: { phase: { type: 'string' }, replicas: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};

before(async () => {
  h = await startHarness();
  crds = h.kc.makeApiClient(ApiextensionsV1Api);
  custom = h.kc.makeApiClient(CustomObjectsApi);
  await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  // Raw HTTP: client-node's model serializer drops `default` from JSON schema props.
  assert.equal((await h.http('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd)).status, 201);
  await eventually(async () => {
    const crd = await crds.readCustomResourceDefinition({ name: 'widgets.example.com' });
    return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
  });
});
after(() => h.stop());

interface Widget {
  metadata: { generation?: number; labels?: Record<string, string> };
  spec: { size?: number; replicas?: number };
  status?: { phase?: string };
}

async function apiError(promise: Promise<unknown>): Promise<{ code: number; body: { message?: string; details?: { group?: string } } }> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ApiException);
    return { code: err.code, body: JSON.parse(String(err.body)) };
  }
  assert.fail('expected the request to fail');
}

describe('CRD creation', () => {
  test('an established CRD is served and appears in discovery', async () => {
    const crd = await crds.readCustomResourceDefinition({ name: 'widgets.example.com' });
    assert.deepEqual(crd.status?.acceptedNames?.kind, 'Widget');
    assert.deepEqual(crd.status?.storedVersions, ['v1']);
    const groups = await h.http('GET', '/apis');
    assert.ok(groups.json.groups.some((g: { name: string }) => g.name === 'example.com'));
    const resources = await h.http('GET', '/apis/example.com/v1');
    const names = resources.json.resources.map((r: { name: string }) => r.name);
    assert.deepEqual(names, ['widgets', 'widgets/scale', 'widgets/status']);
    assert.deepEqual(resources.json.resources[0].verbs, ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch']);
  });

  test('an invalid CRD is rejected with 422', async () => {
    const res = await h.http('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      ...widgetCrd,
      metadata: { name: 'wrong.example.com' },
    });
    assert.equal(res.status, 422);
    assert.match(res.json.message, /^CustomResourceDefinition\.apiextensions\.k8s\.io "wrong\.example\.com" is invalid: /);
  });
});

describe('custom resources', () => {
  test('create applies schema defaults, prunes unknown fields with a Warning, drops status, starts generation at 1', async () => {
    const res = await h.http('POST', `/apis/example.com/v1/namespaces/${ns}/widgets`, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: { size: 3, extra: true },
      junk: 1,
      status: { phase: 'Ignored' },
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('warning'), '299 - "unknown field \\"junk\\"", 299 - "unknown field \\"spec.extra\\""');
    assert.deepEqual(res.json.spec, { size: 3, color: 'blue' });
    assert.equal(res.json.junk, undefined);
    assert.equal(res.json.status, undefined);
    assert.equal(res.json.metadata.generation, 1);
  });

  test('schema violations are 422 with the real wording', async () => {
    const err = await apiError(
      custom.createNamespacedCustomObject({ ...widgets, body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w-bad' }, spec: { size: 50 } } }),
    );
    assert.equal(err.code, 422);
    assert.equal(err.body.message, 'Widget.example.com "w-bad" is invalid: spec.size: Invalid value: 50: spec.size in body should be less than or equal to 10');
    assert.equal(err.body.details?.group, 'example.com');
  });

  test('update without resourceVersion is 422 for custom resources; stale is 409', async () => {
    const put = await h.http('PUT', `/apis/example.com/v1/namespaces/${ns}/widgets/w1`, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: { size: 4 },
    });
    assert.equal(put.status, 422);
    assert.equal(put.json.message, 'widgets.example.com "w1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
    assert.deepEqual({ ...put.json.details, causes: undefined }, { name: 'w1', group: 'example.com', kind: 'widgets', causes: undefined });
    const stale = await h.http('PUT', `/apis/example.com/v1/namespaces/${ns}/widgets/w1`, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', resourceVersion: '1' },
      spec: { size: 4 },
    });
    assert.equal(stale.status, 409);
    assert.match(stale.json.message, /^Operation cannot be fulfilled on widgets\.example\.com "w1": the object has been modified/);
  });

  test('status subresource: /status keeps only status; the main resource ignores status; generation follows spec', async () => {
    const viaStatus = await custom.patchNamespacedCustomObjectStatus(
      { ...widgets, name: 'w1', body: { metadata: { labels: { ignored: 'yes' } }, spec: { size: 9 }, status: { phase: 'Ready' } } },
      merge,
    );
    assert.deepEqual((viaStatus as Widget).status, { phase: 'Ready' });
    assert.equal((viaStatus as Widget).spec.size, 3);
    assert.equal((viaStatus as Widget).metadata.labels, undefined);
    assert.equal((viaStatus as Widget).metadata.generation, 1);
    const viaMain = await custom.patchNamespacedCustomObject({ ...widgets, name: 'w1', body: { spec: { size: 5 }, status: { phase: 'Changed' } } }, merge);
    assert.equal((viaMain as Widget).status?.phase, 'Ready');
    assert.equal((viaMain as Widget).metadata.generation, 2);
    const labelled = await custom.patchNamespacedCustomObject({ ...widgets, name: 'w1', body: { metadata: { labels: { a: 'b' } } } }, merge);
    assert.equal((labelled as Widget).metadata.generation, 2);
  });

  test('scale subresource reads and writes the replica paths', async () => {
    const scale = await h.http('PUT', `/apis/example.com/v1/namespaces/${ns}/widgets/w1/scale`, {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'w1' },
      spec: { replicas: 4 },
    });
    assert.equal(scale.status, 200);
    assert.equal(scale.json.spec.replicas, 4);
    const w1 = await custom.getNamespacedCustomObject({ ...widgets, name: 'w1' });
    assert.equal((w1 as Widget).spec.replicas, 4);
  });

  test('strategic merge patch is 415 for custom resources', async () => {
    const res = await h.http('PATCH', `/apis/example.com/v1/namespaces/${ns}/widgets/w1`, { spec: { size: 2 } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
    assert.equal(res.status, 415);
    assert.equal(
      res.json.message,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });

  test('Table output uses the additionalPrinterColumns (no automatic Age)', async () => {
    const res = await h.http('GET', `/apis/example.com/v1/namespaces/${ns}/widgets`, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.equal(res.json.kind, 'Table');
    assert.deepEqual(res.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Size']);
    assert.deepEqual(res.json.rows[0].cells, ['w1', 5]);
  });

  test('a CRD without a status subresource answers 404 on /status', async () => {
    await h.http('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      ...widgetCrd,
      metadata: { name: 'gadgets.example.com' },
      spec: {
        ...widgetCrd.spec,
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    await eventually(async () => ((await h.http('GET', `/apis/example.com/v1/namespaces/${ns}/gadgets`)).status === 200 ? true : undefined));
    await h.http('POST', `/apis/example.com/v1/namespaces/${ns}/gadgets`, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, status: { a: 1 } });
    const status = await h.http('PATCH', `/apis/example.com/v1/namespaces/${ns}/gadgets/g1/status`, { status: { a: 2 } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(status.status, 404);
    assert.equal(status.json.message, 'gadgets.example.com "g1" not found');
  });

  test('a default added to the schema later shows on objects stored before it, on every read', async () => {
    const gizmoCrd = (spec: Record<string, unknown>) => ({
      ...widgetCrd,
      metadata: { name: 'gizmos.example.com' },
      spec: {
        ...widgetCrd.spec,
        names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } } }],
      },
    });
    assert.equal((await h.http('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', gizmoCrd({ size: { type: 'integer' } }))).status, 201);
    const gizmos = `/apis/example.com/v1/namespaces/${ns}/gizmos`;
    await eventually(async () => ((await h.http('GET', gizmos)).status === 200 ? true : undefined));
    const created = await h.http('POST', gizmos, { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'z1' }, spec: { size: 1 } });
    assert.deepEqual(created.json.spec, { size: 1 });

    const stored = (await h.http('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com')).json;
    const updated = gizmoCrd({ size: { type: 'integer' }, color: { type: 'string', default: 'red' } });
    assert.equal((await h.http('PUT', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com', { ...updated, metadata: stored.metadata })).status, 200);
    const read = await eventually(async () => {
      const got = await h.http('GET', `${gizmos}/z1`);
      return got.json.spec?.color ? got : undefined;
    });
    assert.deepEqual(read.json.spec, { size: 1, color: 'red' });
    assert.equal(read.json.metadata.resourceVersion, created.json.metadata.resourceVersion, 'a read does not write');
    const list = await h.http('GET', gizmos);
    assert.deepEqual(list.json.items.map((i: { spec: unknown }) => i.spec), [{ size: 1, color: 'red' }]);
    await h.http('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com');
  });

  test('deleting the CRD deletes its custom resources and stops serving them', async () => {
    await h.http('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com');
    await eventually(async () => ((await h.http('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com')).status === 404 ? true : undefined));
    const list = await h.http('GET', `/apis/example.com/v1/namespaces/${ns}/gadgets`);
    assert.equal(list.status, 404);
  });
});

describe('CRDs through kubectl', { skip: skipWithoutKubectl }, () => {
  test('kubectl apply, get (printer columns), explain, patch and delete a custom resource', async () => {
    const manifest = JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'kw', namespace: ns }, spec: { size: 2 } });
    assert.equal((await h.kubectl(['apply', '-f', '-'], manifest)).stdout.trim(), 'widget.example.com/kw created');
    const table = await h.kubectl(['get', 'wd', 'kw', '-n', ns]);
    assert.match(table.stdout, /NAME\s+SIZE\nkw\s+2/);
    const rejected = await h.kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'kw2', namespace: ns }, spec: { size: 0 } }));
    assert.match(rejected.stderr, /The Widget "kw2" is invalid: spec\.size: Invalid value: 0: spec\.size in body should be greater than or equal to 1/);
    const explained = await h.kubectl(['explain', 'widgets.spec']);
    assert.match(explained.stdout, /size\s+<integer>/);
    const smp = await h.kubectl(['patch', 'widget', 'kw', '-n', ns, '-p', '{"spec":{"size":3}}']);
    assert.match(smp.stderr, /application\/strategic-merge-patch\+json is not supported by example\.com\/v1, Kind=Widget/);
    assert.equal((await h.kubectl(['patch', 'widget', 'kw', '-n', ns, '--type=merge', '-p', '{"spec":{"size":3}}'])).stdout.trim(), 'widget.example.com/kw patched');
    assert.equal((await h.kubectl(['get', 'widget', 'kw', '-n', ns, '-o', 'jsonpath={.spec.color}'])).stdout, 'blue');
    assert.equal((await h.kubectl(['delete', 'widget', 'kw', '-n', ns])).stdout.trim(), 'widget.example.com "kw" deleted');
  });

  test('kubectl wait --for condition=established', async () => {
    const res = await h.kubectl(['wait', '--for', 'condition=established', 'crd/widgets.example.com', '--timeout=5s']);
    assert.equal(res.stdout.trim(), 'customresourcedefinition.apiextensions.k8s.io/widgets.example.com condition met');
  });
});
