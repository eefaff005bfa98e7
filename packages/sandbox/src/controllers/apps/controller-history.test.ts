import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goJsonMarshal, hashRevision, revisionTemplate, templatePatch } from './controller-history.ts';

// The template of a StatefulSet `nginx-sts` as a real API server stored it; its revision was named
// nginx-sts-6798d68dcd on that cluster.
const nginxTemplate = {
  metadata: { labels: { app: 'nginx-sts' }, creationTimestamp: null },
  spec: {
    containers: [{ name: 'nginx', image: 'nginx', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    securityContext: {},
    schedulerName: 'default-scheduler',
  },
};

test('the revision hash is history.HashControllerRevision: FNV-1 over the patch bytes and the collision count', () => {
  const { raw } = templatePatch(nginxTemplate);
  assert.equal(hashRevision(raw, 0), '6798d68dcd');
  assert.notEqual(hashRevision(raw, 1), '6798d68dcd');
  assert.match(hashRevision(raw, 1), /^[bcdfghjklmnpqrstvwxz2456789]{7,10}$/);
});

test('the patch is Go json.Marshal of a map: sorted keys, HTML characters escaped; the template comes back out', () => {
  const { raw, data } = templatePatch({ spec: { b: '<a & b>', a: [{ z: 1, y: '\u2028' }] }, metadata: {} });
  assert.equal(raw, '{"spec":{"template":{"$patch":"replace","metadata":{},"spec":{"a":[{"y":"\\u2028","z":1}],"b":"\\u003ca \\u0026 b\\u003e"}}}}');
  assert.deepEqual(Object.keys((data.spec as { template: object }).template), ['$patch', 'metadata', 'spec']);
  assert.deepEqual(revisionTemplate({ metadata: {}, data }), { metadata: {}, spec: { a: [{ y: '\u2028', z: 1 }], b: '<a & b>' } });
  assert.equal(goJsonMarshal({ n: null, s: 'x' }), '{"n":null,"s":"x"}');
});
