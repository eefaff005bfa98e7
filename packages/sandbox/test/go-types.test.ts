// Values of the wrong JSON type in string maps (labels, annotations, ConfigMap and Secret data,
// selectors). The real server decodes built-in kinds into Go structs and a custom resource's
// metadata into an ObjectMeta, and refuses what does not fit: 400 for a body, worded by encoding/json;
// a patch or an apply in the words of the decoder that meets the patched object.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, gadgetCrd, podManifest, startHarness, type Harness } from './harness.ts';

let h: Harness;
const ns = 'gotypes';

before(async () => {
  h = await startHarness();
  assert.equal((await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  const crd = gadgetCrd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }]);
  assert.equal((await h.http('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
  await eventually(async () => ((await h.http('GET', `/apis/example.com/v1/namespaces/${ns}/gadgets`)).status === 200 ? true : undefined));
});
after(() => h.stop());

const cannotBeHandled = (kind: string, why: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `${kind} in version "v1" cannot be handled as a ${kind}: ${why}`,
  reason: 'BadRequest',
  code: 400,
});

describe('a create or update with a value of the wrong type', () => {
  test('a Pod label that is a number', async () => {
    const res = await h.http('POST', `/api/v1/namespaces/${ns}/pods`, podManifest('p', { metadata: { labels: { app: 1 } } }));
    assert.equal(res.status, 400);
    assert.deepEqual(res.json, cannotBeHandled('Pod', 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'));
  });

  test('ConfigMap data values of each JSON type', async () => {
    for (const [value, kind] of [
      [1, 'number'],
      [true, 'bool'],
      [{}, 'object'],
      [['a'], 'array'],
    ] as const) {
      const res = await h.http('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' }, data: { key: value } });
      assert.deepEqual(res.json, cannotBeHandled('ConfigMap', `json: cannot unmarshal ${kind} into Go struct field ConfigMap.data of type string`));
    }
    const binary = await h.http('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' }, binaryData: { key: 5 } });
    assert.equal(binary.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.binaryData of type []uint8');
  });

  test('Secret data and stringData, annotations that are no map, a selector of a workload', async () => {
    const secretData = await h.http('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's' }, data: { k: false } });
    assert.equal(secretData.json.message, 'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal bool into Go struct field Secret.data of type []uint8');
    const stringData = await h.http('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's' }, stringData: { k: 1.5 } });
    assert.equal(stringData.json.message, 'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field Secret.stringData of type string');
    const annotations = await h.http('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c', annotations: 'a=b' } });
    assert.equal(
      annotations.json.message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ObjectMeta.metadata.annotations of type map[string]string',
    );
    const deployment = {
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { app: 2 } }, template: { metadata: { labels: { app: '2' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    const selector = await h.http('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deployment);
    assert.equal(selector.json.message, 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number into Go struct field LabelSelector.spec.selector.matchLabels of type string');
  });

  test('the first wrong value in the document is the one reported, before unknown fields under Strict', async () => {
    const res = await h.http('POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`, { bogus: 1, data: { a: 1 }, metadata: { name: 'c', labels: { b: 2 } } });
    assert.equal(res.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
  });

  test('a PUT is decoded the same way; null values are fine, and stored as the empty string Go decodes them to', async () => {
    const created = await h.http('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'u', labels: { a: null } }, data: { a: null } });
    assert.equal(created.status, 201);
    const stored = (await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/u`)).json as { metadata: { labels: object }; data: object };
    assert.deepEqual([stored.metadata.labels, stored.data], [{ a: '' }, { a: '' }]);
    const res = await h.http('PUT', `/api/v1/namespaces/${ns}/configmaps/u`, { metadata: { name: 'u', labels: { a: ['x'] } } });
    assert.equal(res.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type string');
  });

  test('a custom resource: its metadata is decoded as an ObjectMeta of its own', async () => {
    const res = await h.http('POST', `/apis/example.com/v1/namespaces/${ns}/gadgets`, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', labels: { a: 1 } } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json, cannotBeHandled('Gadget', 'json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string'));
    const annotations = await h.http('POST', `/apis/example.com/v1/namespaces/${ns}/gadgets`, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', annotations: [] } });
    assert.equal(annotations.json.message, 'Gadget in version "v1" cannot be handled as a Gadget: json: cannot unmarshal array into Go struct field ObjectMeta.annotations of type map[string]string');
    const nulls = await h.http('POST', `/apis/example.com/v1/namespaces/${ns}/gadgets`, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'n', labels: { a: null }, annotations: {} } });
    assert.equal(nulls.status, 201);
    assert.deepEqual((nulls.json as { metadata: { labels: object; annotations?: object } }).metadata.labels, { a: '' });
    assert.equal((nulls.json as { metadata: { annotations?: object } }).metadata.annotations, undefined, 'an empty map is not encoded');
    // Outside metadata, a schema that preserves unknown fields takes any type.
    assert.equal((await h.http('POST', `/apis/example.com/v1/namespaces/${ns}/gadgets`, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, data: { a: 1 } })).status, 201);
  });
});

describe('a patch that leaves a value of the wrong type', () => {
  before(async () => {
    assert.equal((await h.http('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'target' }, data: { a: 'x' } })).status, 201);
  });
  const patch = (body: unknown, type: string) => h.http('PATCH', `/api/v1/namespaces/${ns}/configmaps/target`, body, { 'Content-Type': `application/${type}` });

  test('JSON and merge patches: 422 naming the patched document', async () => {
    for (const [body, type] of [
      [{ metadata: { labels: { x: 1 } } }, 'merge-patch+json'],
      [[{ op: 'add', path: '/metadata/labels', value: { x: 1 } }], 'json-patch+json'],
    ] as const) {
      const res = await patch(body, type);
      assert.equal(res.status, 422);
      assert.equal(res.json.reason, 'Invalid');
      assert.match(res.json.message, /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",\\"data\\":.*\\"labels\\":\{\\"x\\":1\}.*\}": json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string$/);
      assert.deepEqual(res.json.details.causes.map((c: { field: string }) => c.field), ['patch']);
    }
  });

  test('a strategic merge patch: the patch and the unstructured converter error', async () => {
    const bool = await patch({ data: { b: true } }, 'strategic-merge-patch+json');
    assert.equal(bool.status, 422);
    assert.equal(bool.json.message, ' "" is invalid: patch: Invalid value: "map[data:map[b:true]]": unrecognized type: string');
    const int = await patch({ data: { b: 7 } }, 'strategic-merge-patch+json');
    assert.equal(int.json.message, ' "" is invalid: patch: Invalid value: "map[data:map[b:7]]": cannot convert int64 to string');
  });

  test('an apply: structured-merge-diff cannot type the applied object', async () => {
    const res = await h.http('PATCH', `/api/v1/namespaces/${ns}/configmaps/target?fieldManager=m`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target', labels: { x: 1 } } }, {
      'Content-Type': 'application/apply-patch+yaml',
    });
    assert.equal(res.status, 500);
    assert.equal(res.json.message, 'failed to create typed patch object (/v1, Kind=ConfigMap; /target): .metadata.labels.x: expected string, got &value.valueUnstructured{Value:1}');
  });

  test('nothing was stored', async () => {
    const stored = await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/target`);
    assert.deepEqual([stored.json.metadata.labels, stored.json.data], [undefined, { a: 'x' }]);
  });
});
