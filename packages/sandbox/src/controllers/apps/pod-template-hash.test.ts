import { test } from 'node:test';
import assert from 'node:assert/strict';
import { podTemplateHash, renderPodTemplate, safeEncodeString } from './pod-template-hash.ts';
import { proportion, resolveFenceposts, setNewReplicaSetAnnotations } from './deployment-util.ts';
import type { KubeObject } from '../../meta/object.ts';

/** The reference Deployment `web`'s template as the API server stores it (defaults applied). */
const template = (image: string): unknown => ({
  metadata: { creationTimestamp: null, labels: { app: 'web' }, annotations: { tmpl: 'y' } },
  spec: {
    containers: [{ name: 'c', image, resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    securityContext: {},
    schedulerName: 'default-scheduler',
  },
});

test('pod-template-hash matches a real cluster (web-697bdf56bb, web-68bcbd5f85)', () => {
  assert.equal(podTemplateHash(template('nginx:1'), undefined), '697bdf56bb');
  assert.equal(podTemplateHash(template('nginx:2'), undefined), '68bcbd5f85');
  assert.notEqual(podTemplateHash(template('nginx:1'), 0), '697bdf56bb', 'a collision count, even 0, changes the hash');
  assert.notEqual(podTemplateHash(template('nginx:1'), 1), podTemplateHash(template('nginx:1'), 0));
  assert.equal(safeEncodeString('2536891266'), '697bdf56bb');
});

test('the go-spew rendering: empty lists and maps are nil, quantities and int-or-strings in their Go form', () => {
  const rendered = renderPodTemplate({
    metadata: { labels: {} },
    spec: { containers: [{ name: 'c', args: [], resources: { limits: { cpu: '100m', memory: '128Mi' } }, ports: [{ containerPort: 80 }] }] },
  });
  assert.match(rendered, /Labels:\(map\[string\]string\)<nil>/);
  assert.match(rendered, /Args:\(\[\]string\)<nil>/);
  assert.match(
    rendered,
    /Limits:\(v1\.ResourceList\)map\[cpu:\{i:\(resource\.int64Amount\)\{value:\(int64\)100 scale:\(resource\.Scale\)-3\} d:\(resource\.infDecAmount\)\{Dec:\(\*inf\.Dec\)<nil>\} s:\(string\)100m Format:\(resource\.Format\)DecimalSI\} memory:\{i:\(resource\.int64Amount\)\{value:\(int64\)134217728 scale:\(resource\.Scale\)0\} d:\(resource\.infDecAmount\)\{Dec:\(\*inf\.Dec\)<nil>\} s:\(string\) Format:\(resource\.Format\)BinarySI\}\]/,
  );
  assert.match(rendered, /Ports:\(\[\]v1\.ContainerPort\)\[\{Name:\(string\) HostPort:\(int32\)0 ContainerPort:\(int32\)80 Protocol:\(v1\.Protocol\) HostIP:\(string\)\}\]/);
});

test('fenceposts round surge up and unavailable down, and are never both zero', () => {
  assert.deepEqual(resolveFenceposts('25%', '25%', 10), { surge: 3, unavailable: 2 });
  assert.deepEqual(resolveFenceposts('25%', '25%', 1), { surge: 1, unavailable: 0 });
  assert.deepEqual(resolveFenceposts(0, '10%', 5), { surge: 0, unavailable: 1 });
});

test('a proportional scale gives each ReplicaSet its share of the new maximum, rounded half away from zero', () => {
  const rs = (replicas: number): KubeObject => ({ metadata: { annotations: { 'deployment.kubernetes.io/max-replicas': '13' } }, spec: { replicas } });
  const d: KubeObject = { metadata: {}, spec: { replicas: 20, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } } }, status: { replicas: 13 } };
  assert.equal(proportion(rs(8), d, 10, 0), 6);
  assert.equal(proportion(rs(5), d, 10, 6), 4);
});

test('a reused ReplicaSet moves its old revision into revision-history', () => {
  const d: KubeObject = { metadata: { annotations: { note: 'x', 'deployment.kubernetes.io/revision': '2' } }, spec: { replicas: 2 } };
  const rs: KubeObject = { metadata: { annotations: { 'deployment.kubernetes.io/revision': '1' } }, spec: {} };
  assert.equal(setNewReplicaSetAnnotations(d, rs, 3, true), true);
  assert.deepEqual(rs.metadata.annotations, { 'deployment.kubernetes.io/revision': '3', 'deployment.kubernetes.io/revision-history': '1', note: 'x' });
  rs.metadata.annotations = { 'deployment.kubernetes.io/revision': '3', 'deployment.kubernetes.io/revision-history': '1', note: 'x' };
  setNewReplicaSetAnnotations(d, rs, 5, true);
  assert.equal(rs.metadata.annotations['deployment.kubernetes.io/revision-history'], '1,3');
});
