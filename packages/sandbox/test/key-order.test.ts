// The order of keys in what the server sends. kube-apiserver encodes with Go's encoding/json: a custom
// resource is unstructured, every map sorted; a built-in kind writes its struct fields in declaration order
// and sorts its maps (labels, annotations, data, nodeSelector…). Code that depends on key order must fail on
// the sandbox as it would on a cluster, so the sandbox writes keys as the real server does, whatever order a
// client wrote them in. The expected orders were read off kube-apiserver v1.32 for the same requests.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;
const ns = 'order';

before(async () => {
  h = await startHarness();
  await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  await h.sandbox.registerCrd({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } } }],
    },
  });
});
after(() => h.stop());

/** The body as sent, with the volatile values (uid, times, versions, managedFields) blanked out. */
const shape = (text: string): string =>
  text
    .replace(/"(uid|resourceVersion|creationTimestamp|time)":"[^"]*"/g, '"$1":"-"')
    .replace(/"managedFields":\[.*?\]\}\]/, '"managedFields":"-"')
    .replace(/"managedFields":\[[^\]]*\]/, '"managedFields":"-"');

test('a custom resource comes back with every key sorted, as Go encodes a map', async () => {
  const body = '{"spec":{"zeta":1,"alpha":{"z":1,"b":[{"y":1,"a":2}]},"9":2,"10":1},"metadata":{"name":"w1","labels":{"z":"1","a":"2"}},"kind":"Widget","apiVersion":"example.com/v1"}';
  const created = await h.http('POST', `/apis/example.com/v1/namespaces/${ns}/widgets`, body);
  assert.equal(created.status, 201);
  const expected =
    '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"creationTimestamp":"-","generation":1,"labels":{"a":"2","z":"1"},"managedFields":"-","name":"w1","namespace":"order","resourceVersion":"-","uid":"-"},"spec":{"10":1,"9":2,"alpha":{"b":[{"a":2,"y":1}],"z":1},"zeta":1}}';
  assert.equal(shape(created.text), expected);
  assert.equal(shape((await h.http('GET', `/apis/example.com/v1/namespaces/${ns}/widgets/w1`)).text), expected);
  const list = await h.http('GET', `/apis/example.com/v1/namespaces/${ns}/widgets`);
  assert.ok(shape(list.text).includes(expected), 'a list item is the same bytes');
  // A merge patch appends in JS; the server still sorts.
  const patched = await h.http('PATCH', `/apis/example.com/v1/namespaces/${ns}/widgets/w1`, '{"spec":{"beta":true,"11":0}}', { 'Content-Type': 'application/merge-patch+json' });
  assert.match(patched.text, /"spec":\{"10":1,"11":0,"9":2,"alpha":\{"b":\[\{"a":2,"y":1\}\],"z":1\},"beta":true,"zeta":1\}/);
  assert.match(patched.text, /"namespace":"order","resourceVersion":"\d+","uid":/);
});

test('a built-in kind comes back with struct fields in declaration order and its maps sorted', async () => {
  const body =
    '{"data":{"zz":"1","aa":"2","10":"x","9":"y"},"immutable":false,"metadata":{"annotations":{"zz":"1","b":"2"},"labels":{"z":"1","a":"2"},"name":"c1"},"apiVersion":"v1","kind":"ConfigMap"}';
  const created = await h.http('POST', `/api/v1/namespaces/${ns}/configmaps`, body);
  assert.equal(created.status, 201);
  assert.equal(
    shape(created.text),
    '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c1","namespace":"order","uid":"-","resourceVersion":"-","creationTimestamp":"-","labels":{"a":"2","z":"1"},"annotations":{"b":"2","zz":"1"},"managedFields":"-"},"immutable":false,"data":{"10":"x","9":"y","aa":"2","zz":"1"}}',
  );
  // A label added by a patch lands where Go sorts it, in the stored object and the watch events alike.
  const patched = await h.http('PATCH', `/api/v1/namespaces/${ns}/configmaps/c1`, '{"metadata":{"labels":{"m":"3"}}}', { 'Content-Type': 'application/merge-patch+json' });
  assert.match(patched.text, /"labels":\{"a":"2","m":"3","z":"1"\}/);
  assert.match(patched.text, /"uid":"[^"]+","resourceVersion":"\d+","creationTimestamp":/);
});

test('a pod: spec fields in declaration order whatever order the client wrote', async () => {
  const body =
    '{"spec":{"restartPolicy":"Always","nodeSelector":{"z":"1","a":"2"},"containers":[{"resources":{"limits":{"memory":"1Gi","cpu":"1"}},"image":"x","name":"c","env":[{"value":"v","name":"n"}]}]},"metadata":{"name":"p1"},"kind":"Pod","apiVersion":"v1"}';
  const created = await h.http('POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, body);
  assert.equal(created.status, 201);
  const pod = JSON.parse(created.text) as { spec: Record<string, unknown> & { containers: Record<string, unknown>[] } };
  const keys = Object.keys(pod.spec);
  assert.ok(keys.indexOf('containers') < keys.indexOf('restartPolicy') && keys.indexOf('restartPolicy') < keys.indexOf('nodeSelector'), keys.join(' '));
  assert.deepEqual(Object.keys(pod.spec.containers[0] ?? {}).slice(0, 4), ['name', 'image', 'env', 'resources']);
  assert.match(created.text, /"nodeSelector":\{"a":"2","z":"1"\}/);
  assert.match(created.text, /"limits":\{"cpu":"1","memory":"1Gi"\}/);
});
