// The Status bodies apimachinery's NewBadRequest and NewResourceExpired build have no `details` at
// all (a body with `"details": {}` comes from NewGenericServerResponse: a route that does not exist,
// a method it does not serve). One scenario per request-level error the real server answers so.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startHarness, type Harness } from './harness.ts';
import { watchStream } from './workloads.ts';

let h: Harness;
const ns = 'details';
const configMaps = `/api/v1/namespaces/${ns}/configmaps`;

before(async () => {
  h = await startHarness({ watchCacheSize: 5 });
  await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  await h.http('POST', configMaps, { metadata: { name: 'cm' } });
});
after(() => h.stop());

/** A 400 BadRequest with exactly the fields NewBadRequest fills in. */
function assertBadRequest(body: Record<string, unknown>, message: string | RegExp): void {
  assert.deepEqual(Object.keys(body), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'code']);
  assert.equal(body.reason, 'BadRequest');
  assert.equal(body.code, 400);
  if (typeof message === 'string') assert.equal(body.message, message);
  else assert.match(String(body.message), message);
}

const patch = (type: string, body: unknown, query = '') =>
  h.http('PATCH', `${configMaps}/cm${query}`, typeof body === 'string' ? body : JSON.stringify(body), { 'Content-Type': type });

describe('400s without details', () => {
  test('a body that is not JSON', async () => {
    const res = await h.http('POST', configMaps, 'not json');
    assertBadRequest(res.json, /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: /);
  });

  test('a body in a media type the serializer does not have: 415, no details either', async () => {
    const res = await h.http('POST', configMaps, 'name: x', { 'Content-Type': 'text/plain' });
    assert.equal(res.status, 415);
    assert.deepEqual(res.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      reason: 'UnsupportedMediaType',
      code: 415,
    });
  });

  test('namespace and name mismatches between URL and body', async () => {
    const namespace = await h.http('POST', configMaps, { metadata: { name: 'x', namespace: 'other' } });
    assertBadRequest(namespace.json, 'the namespace of the provided object does not match the namespace sent on the request');
    const name = await h.http('PUT', `${configMaps}/cm`, { metadata: { name: 'other' } });
    assertBadRequest(name.json, 'the name of the object (other) does not match the name on the URL (cm)');
  });

  test('a wrong kind', async () => {
    const res = await h.http('POST', configMaps, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } });
    assertBadRequest(res.json, 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion');
  });

  test('duplicate keys under strict field validation', async () => {
    const res = await h.http('POST', `${configMaps}?fieldValidation=Strict`, '{"metadata":{"name":"dup"},"data":{"a":"1"},"data":{"b":"2"}}');
    assertBadRequest(res.json, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data"');
  });

  test('a continue token with a resourceVersion, and a malformed continue token', async () => {
    const both = await h.http('GET', `${configMaps}?limit=1&continue=abc&resourceVersion=5`);
    assertBadRequest(both.json, 'specifying resource version is not allowed when using continue');
    const malformed = await h.http('GET', `${configMaps}?limit=1&continue=not-a-token`);
    assertBadRequest(malformed.json, /^invalid continue token: /);
  });

  test('a malformed label selector', async () => {
    const res = await h.http('GET', `${configMaps}?labelSelector=${encodeURIComponent('a in (b')}`);
    assertBadRequest(res.json, /^unable to parse requirement: /);
  });

  test('a JSON patch whose body is an object; a merge patch that changes the namespace', async () => {
    const object = await patch('application/json-patch+json', { op: 'add' });
    assertBadRequest(object.json, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp');
    const namespace = await patch('application/merge-patch+json', { metadata: { namespace: 'other' } });
    assertBadRequest(namespace.json, 'the namespace of the provided object does not match the namespace sent on the request');
  });

  test('server-side apply of a body without kind', async () => {
    const res = await patch('application/apply-patch+yaml', 'apiVersion: v1\nmetadata:\n  name: cm\n', '?fieldManager=m');
    assert.equal(res.status, 400);
    assertBadRequest(res.json, 'invalid object type: /v1, Kind=');
  });
});

describe('410 Expired without details', () => {
  test('the watch ERROR event for a resourceVersion older than the history', async () => {
    const first = (await h.http('GET', configMaps)).json.metadata.resourceVersion;
    for (let i = 0; i < 8; i++) await h.http('POST', configMaps, { metadata: { name: `fill-${i}` } });
    const events: { type: string; object: Record<string, unknown> }[] = [];
    const stream = watchStream(h, `${configMaps}?watch=true&resourceVersion=${first}`, (type, object) => events.push({ type, object }));
    try {
      const error = await eventually(() => events.find((e) => e.type === 'ERROR'));
      assert.deepEqual(Object.keys(error.object), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'code']);
      assert.equal(error.object.reason, 'Expired');
      assert.equal(error.object.code, 410);
    } finally {
      stream.stop();
    }
  });
});

describe('404 and 405 keep NewGenericServerResponse\'s empty details', () => {
  test('a resource that is not served, a method a route does not take', async () => {
    const missing = await h.http('GET', `/api/v1/namespaces/${ns}/widgets`);
    assert.deepEqual(missing.json.details, {});
    const method = await h.http('PUT', `/api/v1/namespaces/${ns}/pods/p/log`, {});
    assert.equal(method.status, 405);
    assert.deepEqual(method.json.details, {});
  });
});
