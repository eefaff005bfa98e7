// Maps the real server would not encode: Go's `omitempty` leaves an emptied labels or annotations map
// (and every other map of a built-in kind, and ObjectMeta's empty lists) out of the answer, the watch
// events and what is stored. Custom resources are unstructured: only their metadata goes through
// ObjectMeta, the rest of the JSON keeps its empty objects.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startHarness, type Harness } from './harness.ts';
import { watchStream, type Json } from './workloads.ts';

let h: Harness;
const ns = 'omit';
const cms = `/api/v1/namespaces/${ns}/configmaps`;
const patch = (path: string, body: unknown, type: string): ReturnType<Harness['http']> => h.http('PATCH', path, body, { 'Content-Type': `application/${type}` });

before(async () => {
  h = await startHarness();
  await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
});
after(() => h.stop());

describe('empty maps are not encoded', () => {
  test('the last label removed by a JSON patch, the last annotation nulled by a merge patch: gone from answers, watches and storage', async () => {
    await h.http('POST', cms, { metadata: { name: 'a', labels: { team: 'x' }, annotations: { note: 'y' } }, data: { k: 'v' } });
    const seen: Json[] = [];
    const watch = watchStream(h, `${cms}?fieldSelector=metadata.name%3Da&resourceVersion=0`, (type, object) => {
      if (type === 'MODIFIED') seen.push(object.metadata);
    });
    try {
      const removed = await patch(`${cms}/a`, [{ op: 'remove', path: '/metadata/labels/team' }], 'json-patch+json');
      assert.equal(removed.status, 200, removed.text);
      assert.equal('labels' in removed.json.metadata, false);
      const nulled = await patch(`${cms}/a`, { metadata: { annotations: { note: null } } }, 'merge-patch+json');
      assert.equal('annotations' in nulled.json.metadata, false);
      await eventually(() => (seen.length === 2 ? true : undefined));
      assert.deepEqual(
        seen.map((m) => ['labels', 'annotations'].filter((k) => k in m)),
        [['annotations'], []],
      );
    } finally {
      watch.stop();
    }
    const stored = (await h.http('GET', `${cms}/a`)).json;
    assert.deepEqual(Object.keys(stored.metadata).sort(), ['creationTimestamp', 'managedFields', 'name', 'namespace', 'resourceVersion', 'uid']);
    // No manager keeps the removed fields either.
    assert.equal(JSON.stringify(stored.metadata.managedFields).includes('f:labels'), false);
  });

  test('a PUT with `annotations: {}` over an object without annotations changes nothing', async () => {
    const created = (await h.http('POST', cms, { metadata: { name: 'b' }, data: { k: 'v' } })).json;
    const put = await h.http('PUT', `${cms}/b`, { ...created, metadata: { ...created.metadata, annotations: {}, labels: {} } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal('annotations' in put.json.metadata, false);
  });

  test('other maps of built-in kinds: data, a pod’s nodeSelector, a template’s labels and annotations; ObjectMeta’s empty lists', async () => {
    const cm = await h.http('POST', cms, { metadata: { name: 'c', finalizers: [] }, data: {} });
    assert.equal('data' in cm.json, false);
    assert.equal('finalizers' in cm.json.metadata, false);
    const pod = await h.http('POST', `/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'p' }, spec: { nodeSelector: {}, containers: [{ name: 'c', image: 'nginx', resources: { limits: {} } }] } });
    assert.equal(pod.status, 201, pod.text);
    assert.equal('nodeSelector' in pod.json.spec, false);
    assert.deepEqual(pod.json.spec.containers[0].resources, {});
    assert.deepEqual(pod.json.spec.securityContext, {}, 'an empty struct stays');
    const deployment = await h.http('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      metadata: { name: 'd', labels: {} },
      spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' }, annotations: {} }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    assert.equal(deployment.status, 201, deployment.text);
    assert.equal('labels' in deployment.json.metadata, false);
    assert.deepEqual(deployment.json.spec.template.metadata, { labels: { app: 'd' }, creationTimestamp: null });
    const emptied = await patch(`/apis/apps/v1/namespaces/${ns}/deployments/d`, { spec: { template: { spec: { nodeSelector: { disk: 'ssd' } } } } }, 'strategic-merge-patch+json');
    assert.deepEqual(emptied.json.spec.template.spec.nodeSelector, { disk: 'ssd' });
    const cleared = await patch(`/apis/apps/v1/namespaces/${ns}/deployments/d`, [{ op: 'remove', path: '/spec/template/spec/nodeSelector/disk' }], 'json-patch+json');
    assert.equal('nodeSelector' in cleared.json.spec.template.spec, false);
    const owned = await patch(`${cms}/c`, { metadata: { finalizers: ['example.com/x'] } }, 'merge-patch+json');
    assert.deepEqual(owned.json.metadata.finalizers, ['example.com/x']);
    const released = await patch(`${cms}/c`, [{ op: 'remove', path: '/metadata/finalizers/0' }], 'json-patch+json');
    assert.equal('finalizers' in released.json.metadata, false);
  });

  test('custom resources: the metadata maps go, the maps of the unstructured content stay', async () => {
    const crd = await h.http('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { tags: { type: 'object', additionalProperties: { type: 'string' } } } } } } } }],
      },
    });
    assert.equal(crd.status, 201, crd.text);
    const widgets = `/apis/example.com/v1/namespaces/${ns}/widgets`;
    const created = await eventually(async () => {
      const res = await h.http('POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { a: 'b' }, annotations: {} }, spec: { tags: {} } });
      return res.status === 201 ? res.json : undefined;
    });
    assert.equal('annotations' in created.metadata, false);
    assert.deepEqual(created.spec, { tags: {} });
    const removed = await patch(`${widgets}/w`, [{ op: 'remove', path: '/metadata/labels/a' }], 'json-patch+json');
    assert.equal('labels' in removed.json.metadata, false);
  });
});
