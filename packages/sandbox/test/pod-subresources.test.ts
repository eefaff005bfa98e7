// The pods' other subresources: exec, attach and portforward (checked up to the upgrade the kubelet
// would take over), proxy (no server listens in a simulated pod, so the dial fails as it would), and
// ephemeralcontainers (only spec.ephemeralContainers changes, existing ones stay as they are).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api } from '@kubernetes/client-node';
import { eventually, podManifest, startHarness, type Harness } from './harness.ts';

let h: Harness;
const ns = 'subresources';
const pods = `/api/v1/namespaces/${ns}/pods`;

before(async () => {
  h = await startHarness({ simulation: { nodes: 1, controllers: false, kubelet: { startDelayMs: 0 } } });
  await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  await h.http('POST', pods, podManifest('web', { spec: { containers: [{ name: 'c', image: 'nginx:1.27', ports: [{ containerPort: 8080 }] }] } }));
  await h.http('POST', pods, podManifest('nowhere', { spec: { nodeSelector: { absent: 'label' } } }));
  const core = h.kc.makeApiClient(CoreV1Api);
  await eventually(async () => ((await core.readNamespacedPod({ name: 'web', namespace: ns })).status?.podIP ? true : undefined));
});
after(() => h.stop());

const message = async (method: string, path: string, headers: Record<string, string> = {}): Promise<[number, string]> => {
  const res = await h.http(method, path, undefined, headers);
  return [res.status, res.json?.message];
};

describe('exec, attach, portforward', () => {
  test('the pod, its container and its node are checked first; a plain request needs an upgrade', async () => {
    assert.deepEqual(await message('POST', `${pods}/missing/exec?command=ls`), [404, 'pods "missing" not found']);
    assert.deepEqual(await message('POST', `${pods}/web/exec?command=ls&container=nope`), [400, 'container nope is not valid for pod web']);
    assert.deepEqual(await message('POST', `${pods}/nowhere/exec?command=ls`), [400, 'pod nowhere does not have a host assigned']);
    assert.deepEqual(await message('POST', `${pods}/web/exec?command=ls`), [400, 'Upgrade request required']);
    assert.deepEqual(await message('GET', `${pods}/web/attach`), [400, 'Upgrade request required']);
    assert.deepEqual(await message('POST', `${pods}/web/portforward?ports=8080`), [400, 'Upgrade request required']);
    assert.equal((await h.http('PUT', `${pods}/web/exec`, {})).status, 405);
  });
});

describe('proxy', () => {
  test('nothing listens in a simulated pod: the dial to its address and first port is refused (503)', async () => {
    const podIP = (await h.http('GET', `${pods}/web`)).json.status.podIP;
    const res = await h.http('GET', `${pods}/web/proxy/healthz`);
    assert.equal(res.status, 503);
    assert.deepEqual(res.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `error trying to reach service: dial tcp ${podIP}:8080: connect: connection refused`,
      reason: 'ServiceUnavailable',
      code: 503,
    });
    assert.deepEqual(await message('GET', `${pods}/web:9000/proxy/`), [503, `error trying to reach service: dial tcp ${podIP}:9000: connect: connection refused`]);
    assert.deepEqual(await message('GET', `${pods}/nowhere/proxy/`), [400, 'address not allowed']);
    assert.deepEqual(await message('GET', `${pods}/a:b:c:d/proxy/`), [400, 'invalid pod request "a:b:c:d"']);
  });
});

describe('ephemeralcontainers', () => {
  const debug = { name: 'debugger', image: 'busybox', command: ['sh'], stdin: true, tty: true };

  test('adding one changes only spec.ephemeralContainers; existing ones may be neither changed nor removed', async () => {
    const path = `${pods}/web/ephemeralcontainers`;
    const read = await h.http('GET', path);
    assert.equal(read.json.kind, 'Pod');
    const added = await h.http('PATCH', path, { spec: { ephemeralContainers: [debug], nodeName: 'elsewhere' }, metadata: { labels: { x: 'y' } } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
    assert.equal(added.status, 200, added.text);
    assert.equal(added.json.spec.ephemeralContainers[0].name, 'debugger');
    assert.equal(added.json.spec.ephemeralContainers[0].terminationMessagePolicy, 'File', 'defaulted as a container');
    assert.equal(added.json.spec.nodeName, read.json.spec.nodeName, 'the rest of the spec is the stored one');
    assert.equal(added.json.metadata.labels, undefined, 'labels are not written through this subresource');
    const removed = await h.http('PUT', path, { ...added.json, spec: { ...added.json.spec, ephemeralContainers: [] } });
    assert.equal(removed.status, 422);
    assert.equal(removed.json.message, 'Pod "web" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be removed\n');
    const forbidden = await h.http('PATCH', path, { spec: { ephemeralContainers: [{ name: 'probe', image: 'busybox', ports: [{ containerPort: 80 }] }] } }, {
      'Content-Type': 'application/strategic-merge-patch+json',
    });
    assert.equal(forbidden.status, 422);
    assert.match(forbidden.json.message, /spec\.ephemeralContainers\[0\]\.ports: Forbidden: cannot be set for an Ephemeral Container/);
    const onMain = await h.http('PATCH', `${pods}/web`, { spec: { ephemeralContainers: [debug, { ...debug, name: 'other' }] } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
    assert.equal(onMain.status, 422, 'the main resource may not change them');
  });
});
