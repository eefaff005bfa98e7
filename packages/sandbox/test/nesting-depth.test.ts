// Deeply nested bodies. Go's decoders refuse more than 10,000 nested arrays and objects, worded as
// each decode path words its errors; the sandbox's own bound (500) refuses deeper bodies the same
// way; nothing nested within it overflows the stack anywhere in a create, patch or read.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startHarness, type Harness } from './harness.ts';

let h: Harness;
const ns = 'deep';
const things = `/apis/example.com/v1/namespaces/${ns}/things`;
const configMaps = `/api/v1/namespaces/${ns}/configmaps`;

const arrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const objects = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

before(async () => {
  h = await startHarness();
  assert.equal((await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'things', singular: 'thing', kind: 'Thing' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
        },
      ],
    },
  };
  assert.equal((await h.http('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
  await eventually(async () => ((await h.http('GET', things)).status === 200 ? true : undefined));
  assert.equal((await h.http('POST', configMaps, { metadata: { name: 'target' } })).status, 201);
  assert.equal((await h.http('POST', things, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'target' }, spec: {} })).status, 201);
});
after(() => h.stop());

const patch = (path: string, body: string, type: string) => h.http('PATCH', path, body, { 'Content-Type': `application/${type}` });

describe('past 10,000 levels: refused as Go refuses them', () => {
  test('a create: the decode error quotes the start of the body', async () => {
    const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"deep":${arrays(10_001)}}`;
    const res = await h.http('POST', configMaps, body);
    assert.equal(res.status, 400);
    assert.deepEqual(res.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth (${body.slice(0, 30)} ...)`,
      reason: 'BadRequest',
      code: 400,
    });
  });

  test('JSON, merge, strategic merge and apply patches', async () => {
    const nest = objects(10_001);
    const json = await patch(`${configMaps}/target`, `[{"op":"add","path":"/data","value":${nest}}]`, 'json-patch+json');
    assert.equal(json.json.message, "error decoding patch: invalid character '{' exceeded max depth");
    const merge = await patch(`${configMaps}/target`, `{"deep":${nest}}`, 'merge-patch+json');
    assert.equal(merge.json.message, "error decoding patch: invalid character '{' exceeded max depth");
    const strategic = await patch(`${configMaps}/target`, `{"deep":${nest}}`, 'strategic-merge-patch+json');
    assert.equal(strategic.json.message, "invalid character '{' exceeded max depth");
    const apply = await patch(`${configMaps}/target?fieldManager=m`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"deep":${nest}}`, 'apply-patch+yaml');
    assert.equal(apply.json.message, 'error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of 10000');
    for (const res of [json, merge, strategic, apply]) assert.equal(res.status, 400);
    const multiline = await patch(`${configMaps}/target?fieldManager=m`, `apiVersion: v1\nkind: ConfigMap\ndeep: ${arrays(10_001)}\n`, 'apply-patch+yaml');
    assert.equal(multiline.json.message, 'error decoding YAML: error converting YAML to JSON: yaml: line 3: exceeded max depth of 10000');
  });

  test('a syntax error before the depth is reached is the one reported', async () => {
    const res = await patch(`${configMaps}/target`, `{"a":tru ${objects(10_001)}}`, 'merge-patch+json');
    assert.equal(res.json.message, "error decoding patch: invalid character ' ' in literal true (expecting 'e')");
  });
});

describe('9,000 levels: within Go bound, past the sandbox bound', () => {
  test('creates and patches are refused with 400, never a 500', async () => {
    const nest = arrays(9000);
    const responses = [
      await h.http('POST', configMaps, `{"metadata":{"name":"nine"},"deep":${nest}}`),
      await h.http('POST', things, `{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"nine"},"spec":{"x":${nest}}}`),
      await patch(`${things}/target`, `[{"op":"add","path":"/spec/x","value":${nest}}]`, 'json-patch+json'),
      await patch(`${things}/target`, `{"spec":{"x":${nest}}}`, 'merge-patch+json'),
      await patch(`${configMaps}/target`, `{"deep":${nest}}`, 'strategic-merge-patch+json'),
      await patch(`${things}/target?fieldManager=m`, `{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"target"},"spec":{"x":${nest}}}`, 'apply-patch+yaml'),
    ];
    assert.deepEqual(
      responses.map((r) => [r.status, r.json.reason]),
      responses.map(() => [400, 'BadRequest']),
    );
    assert.match(responses[0]?.json.message, /json parse error: invalid character '\[' exceeded max depth/);
    assert.equal(responses.at(-1)?.json.message, 'error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of 500');
  });
});

describe('within the sandbox bound', () => {
  // The object, its managedFields and the response all nest a few levels deeper than the value.
  const nest = objects(490);

  test('a custom resource that preserves it is stored, read as JSON and YAML, patched and applied', async () => {
    const created = await h.http('POST', things, `{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"kept"},"spec":{"x":${nest}}}`);
    assert.equal(created.status, 201, created.text);
    assert.equal((await h.http('GET', `${things}/kept`)).status, 200);
    const yaml = await h.http('GET', `${things}/kept`, undefined, { Accept: 'application/yaml' });
    assert.equal(yaml.status, 200);
    assert.equal((await patch(`${things}/kept`, `{"spec":{"y":${nest}}}`, 'merge-patch+json')).status, 200);
    assert.equal((await patch(`${things}/kept`, `[{"op":"add","path":"/spec/z","value":${nest}}]`, 'json-patch+json')).status, 200);
    const applied = await patch(`${things}/kept?fieldManager=m`, `{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"kept"},"spec":{"w":${nest}}}`, 'apply-patch+yaml');
    assert.equal(applied.status, 200, applied.text);
    assert.equal((await h.http('GET', `${things}?watch=1&timeoutSeconds=1`)).status, 200);
  });

  test('a deep unknown field of a built-in kind is dropped with a warning', async () => {
    const res = await h.http('POST', configMaps, `{"metadata":{"name":"dropped"},"deep":${nest}}`);
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('warning'), '299 - "unknown field \\"deep\\""');
  });

  test('a JSON patch whose path nests the object past the bound is refused as the decoder refuses it', async () => {
    const path = `/spec/z${'/a'.repeat(400)}`;
    const res = await patch(`${things}/kept`, `[{"op":"add","path":"${path}","value":${objects(200)}}]`, 'json-patch+json');
    assert.equal(res.status, 422);
    assert.match(res.json.message, /^ "" is invalid: patch: Invalid value: "\{.*\}": couldn't get version\/kind; json parse error: invalid character '\{' exceeded max depth$/s);
    assert.deepEqual(Object.keys(res.json.details), ['causes']);
    assert.equal(res.json.details.causes[0].field, 'patch');
    // Each `copy` of a subtree into itself nests it one level deeper.
    const copies = Array.from({ length: 600 }, () => '{"op":"copy","from":"/spec/y","path":"/spec/y/a"}').join(',');
    assert.equal((await patch(`${things}/kept`, `[${copies}]`, 'json-patch+json')).status, 422);
  });
});
