// Keys that are members of Object.prototype (`constructor`, `toString`, `__proto__`, ...) in what a client
// sends: field selectors, quantities, metadata, ConfigMap keys, CRD patterns and formats, HPA metric types.
// Each is answered as kube-apiserver v1.32 answers it (checked against the real server), never from a
// lookup table's prototype.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually, startHarness, type Harness } from './harness.ts';

let h: Harness;
const ns = 'proto-keys';
const KEYS = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__'];

const crd = (plural: string, kind: string, properties: Record<string, unknown>) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.proto.example.com` },
  spec: {
    group: 'proto.example.com',
    scope: 'Namespaced',
    names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } } }],
  },
});

before(async () => {
  h = await startHarness();
  await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  const formats = crd('formats', 'Format', Object.fromEntries(KEYS.map((key) => [key.replaceAll('_', 'x'), { type: 'string', format: key }])));
  // Properties of those names: a default, a required one.
  // (Object.fromEntries, as `__proto__:` in an object literal would set the prototype.)
  const defaults = crd(
    'defaults',
    'Default',
    Object.fromEntries([
      ['constructor', { type: 'string', default: 'd' }],
      ['__proto__', { type: 'object', default: { polluted: 'yes' }, 'x-kubernetes-preserve-unknown-fields': true }],
      ['toString', { type: 'string' }],
    ]),
  );
  ((defaults.spec.versions[0]!.schema.openAPIV3Schema.properties.spec) as Record<string, unknown>).required = ['toString'];
  for (const definition of [formats, defaults]) assert.equal((await h.http('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', definition)).status, 201);
  for (const plural of ['formats', 'defaults']) await eventually(async () => ((await h.http('GET', `/apis/proto.example.com/v1/namespaces/${ns}/${plural}`)).status === 200 ? true : undefined));
});
after(() => h.stop());

test('a field selector on such a key is refused as an unsupported field label', async () => {
  for (const key of KEYS) {
    const res = await h.http('GET', `/api/v1/namespaces/${ns}/pods?fieldSelector=${encodeURIComponent(`${key}=x`)}`);
    assert.equal(res.status, 400, key);
    assert.equal(res.json.message, `field label not supported: ${key}`);
  }
});

test('a quantity with such a suffix is refused as malformed, not answered 500', async () => {
  for (const key of KEYS) {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q' }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: `1${key}` } } }] } };
    const res = await h.http('POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, pod);
    assert.ok(res.status >= 400 && res.status < 500, `${key}: ${res.status}`);
    assert.match(res.json.message, /quantities must match the regular expression/);
  }
});

test('such keys in a custom resource\'s metadata are dropped as unknown fields, from the object and its managedFields', async () => {
  const metadata = Object.fromEntries([['name', 'meta'], ...KEYS.map((key) => [key, 'x'])]);
  const res = await h.http('POST', `/apis/proto.example.com/v1/namespaces/${ns}/formats`, { apiVersion: 'proto.example.com/v1', kind: 'Format', metadata, spec: {} });
  assert.equal(res.status, 201, res.text);
  const stored = await h.http('GET', `/apis/proto.example.com/v1/namespaces/${ns}/formats/meta`);
  for (const key of KEYS) {
    assert.equal(Object.hasOwn(stored.json.metadata, key), false, `metadata.${key} is dropped`);
    assert.doesNotMatch(JSON.stringify(stored.json.metadata.managedFields), new RegExp(`"f:${key}"`));
  }
});

test('a string of a format named after such a key is accepted, as any format the server does not know', async () => {
  const spec = Object.fromEntries(KEYS.map((key) => [key.replaceAll('_', 'x'), 'anything']));
  const res = await h.http('POST', `/apis/proto.example.com/v1/namespaces/${ns}/formats`, { apiVersion: 'proto.example.com/v1', kind: 'Format', metadata: { name: 'formats' }, spec });
  assert.equal(res.status, 201, res.text);
});

test('ConfigMap data keys named after such keys are kept, not taken for binaryData duplicates', async () => {
  const data = JSON.parse(`{${KEYS.map((key) => `"${key}":"v-${key}"`).join(',')}}`) as Record<string, string>;
  const res = await h.http('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keys' }, data });
  assert.equal(res.status, 201, res.text);
  for (const key of KEYS) assert.equal(Object.getOwnPropertyDescriptor(res.json.data, key)?.value, `v-${key}`);
});

test('a CRD pattern with a POSIX class of such a name is refused as RE2 refuses it; known classes still work', async () => {
  const refused = await h.http('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', crd('patterns', 'Pattern', { c: { type: 'string', pattern: '^[[:constructor:]]+$' } }));
  assert.equal(refused.status, 422);
  assert.match(refused.json.message, /properties\[c\]\.pattern: Invalid value: "\^\[\[:constructor:\]\]\+\$": must be a valid regular expression, but isn't: error parsing regexp: invalid character class range: `\[:constructor:\]`/);
  const known = await h.http('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', crd('patterns', 'Pattern', { c: { type: 'string', pattern: '^[[:alpha:]][:alpha:]$' } }));
  assert.equal(known.status, 201, known.text);
});

test('an HPA metric of such a type is refused with kube-apiserver\'s one message', async () => {
  const hpa = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'x', apiVersion: 'apps/v1' }, maxReplicas: 3, metrics: [{ type: 'constructor' }] } };
  const res = await h.http('POST', `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers?dryRun=All`, hpa);
  assert.equal(res.status, 422);
  assert.equal(res.json.message, 'HorizontalPodAutoscaler.autoscaling "h" is invalid: spec.metrics[0].type: Unsupported value: "constructor": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"');
});

test('schema properties named after such keys are defaulted and required like any other, without touching a prototype', async () => {
  const missing = await h.http('POST', `/apis/proto.example.com/v1/namespaces/${ns}/defaults`, { apiVersion: 'proto.example.com/v1', kind: 'Default', metadata: { name: 'd' }, spec: {} });
  assert.equal(missing.status, 422);
  assert.equal(missing.json.message, 'Default.proto.example.com "d" is invalid: spec.toString: Required value');
  const res = await h.http('POST', `/apis/proto.example.com/v1/namespaces/${ns}/defaults`, { apiVersion: 'proto.example.com/v1', kind: 'Default', metadata: { name: 'd' }, spec: { toString: 'x' } });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(Object.getOwnPropertyDescriptor(res.json.spec, '__proto__')?.value, { polluted: 'yes' });
  assert.equal(res.json.spec.constructor, 'd');
  assert.equal(({} as { polluted?: string }).polluted, undefined);
});
