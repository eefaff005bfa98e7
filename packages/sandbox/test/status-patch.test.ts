// Status subresource separation, pod spec immutability, strategic merge of conditions, JSON patch
// errors and server-side apply, through @kubernetes/client-node, raw HTTP and kubectl.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { podManifest, skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;
let core: CoreV1Api;
let apps: AppsV1Api;
const ns = 'sp';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

before(async () => {
  h = await startHarness();
  core = h.kc.makeApiClient(CoreV1Api);
  apps = h.kc.makeApiClient(AppsV1Api);
  await core.createNamespace({ body: { metadata: { name: ns } } });
});
after(() => h.stop());

const patch = (path: string, body: unknown, type: string) => h.http('PATCH', path, body, { 'Content-Type': type });

describe('status separation', () => {
  test('pods/status keeps labels, annotations and finalizers but not spec or ownerReferences', async () => {
    const pod = await core.createNamespacedPod({
      namespace: ns,
      body: podManifest('s1', { metadata: { labels: { a: '1' }, finalizers: ['example.com/keep'] } }) as V1Pod,
    });
    const body = structuredClone(pod);
    body.metadata!.labels = { a: 'CHANGED', new: 'x' };
    body.metadata!.annotations = { n: '1' };
    body.metadata!.finalizers = ['example.com/keep', 'example.com/added'];
    body.metadata!.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: '00000000-0000-0000-0000-00000000000a' }];
    body.spec!.containers[0]!.image = 'nginx:9';
    body.status = { ...body.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    const updated = await core.replaceNamespacedPodStatus({ name: 's1', namespace: ns, body });
    assert.deepEqual(updated.metadata?.labels, { a: 'CHANGED', new: 'x' });
    assert.deepEqual(updated.metadata?.annotations, { n: '1' });
    assert.deepEqual(updated.metadata?.finalizers, ['example.com/keep', 'example.com/added']);
    assert.equal(updated.metadata?.ownerReferences, undefined);
    assert.equal(updated.spec?.containers[0]?.image, 'nginx:1.27');
    assert.equal(updated.status?.phase, 'Running');
    const viaMain = await core.patchNamespacedPod({ name: 's1', namespace: ns, body: { status: { phase: 'Failed' } } }, merge);
    assert.equal(viaMain.status?.phase, 'Running', 'the main resource ignores status');
    assert.equal(viaMain.metadata?.resourceVersion, updated.metadata?.resourceVersion, 'and that is a no-op');
    await core.patchNamespacedPod({ name: 's1', namespace: ns, body: { metadata: { finalizers: null } } }, merge);
  });

  test('deployments/status drops label changes but keeps annotations', async () => {
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'd1', labels: { team: 'a' } },
        spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      },
    });
    const res = await apps.patchNamespacedDeploymentStatus(
      { name: 'd1', namespace: ns, body: { metadata: { labels: { team: 'b' }, annotations: { note: 'x' } }, status: { observedGeneration: 99 } } },
      merge,
    );
    assert.deepEqual(res.metadata?.labels, { team: 'a' });
    assert.equal(res.metadata?.annotations?.note, 'x');
    assert.equal(res.status?.observedGeneration, 99);
    assert.equal(res.metadata?.generation, 1);
  });
});

describe('pod spec immutability', () => {
  test('image changes are allowed; readinessGates, nodeName and restartPolicy are not', async () => {
    await core.createNamespacedPod({ namespace: ns, body: podManifest('imm') as V1Pod });
    const image = await core.patchNamespacedPod({ name: 'imm', namespace: ns, body: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } }, strategic);
    assert.equal(image.spec?.containers[0]?.image, 'nginx:2');
    const gates = await patch(`/api/v1/namespaces/${ns}/pods/imm`, { spec: { readinessGates: [{ conditionType: 'example.com/ready' }] } }, 'application/merge-patch+json');
    assert.equal(gates.status, 422);
    const firstLine = String(gates.json.message).split('\n')[0];
    assert.equal(
      firstLine,
      'Pod "imm" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
    );
    assert.deepEqual(gates.json.details.causes.map((c: { reason: string; field: string }) => [c.reason, c.field]), [['FieldValueForbidden', 'spec']]);
    const node = await patch(`/api/v1/namespaces/${ns}/pods/imm`, { spec: { nodeName: 'n1' } }, 'application/merge-patch+json');
    assert.equal(node.status, 422);
    const deadline = await patch(`/api/v1/namespaces/${ns}/pods/imm`, { spec: { activeDeadlineSeconds: 100 } }, 'application/merge-patch+json');
    assert.equal(deadline.status, 200);
    const longer = await patch(`/api/v1/namespaces/${ns}/pods/imm`, { spec: { activeDeadlineSeconds: 200 } }, 'application/merge-patch+json');
    assert.equal(longer.json.message, 'Pod "imm" is invalid: spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value');
  });
});

describe('patches', () => {
  test('strategic merge of conditions: merged by type, new ones first, $patch delete, merge patch replaces', async () => {
    await core.createNamespacedPod({ namespace: ns, body: podManifest('cond') as V1Pod });
    const path = `/api/v1/namespaces/${ns}/pods/cond/status`;
    const smp = 'application/strategic-merge-patch+json';
    await patch(path, { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'r1' }, { type: 'example.com/X', status: 'True' }] } }, smp);
    let res = await patch(path, { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, smp);
    assert.deepEqual(res.json.status.conditions.map((c: { type: string; status: string; reason?: string }) => [c.type, c.status, c.reason]), [
      ['Ready', 'True', 'r1'],
      ['example.com/X', 'True', undefined],
    ]);
    res = await patch(path, { status: { conditions: [{ type: 'New', status: 'True' }] } }, smp);
    assert.deepEqual(res.json.status.conditions.map((c: { type: string }) => c.type), ['New', 'Ready', 'example.com/X']);
    res = await patch(path, { status: { conditions: [{ type: 'New', $patch: 'delete' }] } }, smp);
    assert.deepEqual(res.json.status.conditions.map((c: { type: string }) => c.type), ['Ready', 'example.com/X']);
    res = await patch(path, { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, 'application/merge-patch+json');
    assert.deepEqual(res.json.status.conditions, [{ type: 'Ready', status: 'True' }]);
  });

  test('client-node patchNamespacedPodStatus with a strategic merge patch merges conditions by type', async () => {
    await core.createNamespacedPod({ namespace: ns, body: podManifest('cond-client') as V1Pod });
    const patchStatus = (conditions: object[]) =>
      core.patchNamespacedPodStatus({ name: 'cond-client', namespace: ns, body: { status: { conditions } } }, strategic);
    await patchStatus([{ type: 'Ready', status: 'False', reason: 'Starting' }, { type: 'example.com/gate', status: 'False' }]);
    let pod = await patchStatus([{ type: 'example.com/gate', status: 'True' }]);
    assert.deepEqual(pod.status?.conditions?.map((c) => [c.type, c.status, c.reason]), [
      ['Ready', 'False', 'Starting'],
      ['example.com/gate', 'True', undefined],
    ]);
    pod = await patchStatus([{ type: 'PodScheduled', status: 'True' }]);
    assert.deepEqual(pod.status?.conditions?.map((c) => c.type), ['PodScheduled', 'Ready', 'example.com/gate'], 'a new condition is prepended');
    pod = await patchStatus([{ type: 'Ready', $patch: 'delete' }]);
    assert.deepEqual(pod.status?.conditions?.map((c) => c.type), ['PodScheduled', 'example.com/gate']);
    const stored = await core.readNamespacedPodStatus({ name: 'cond-client', namespace: ns });
    assert.deepEqual(stored.status?.conditions?.map((c) => [c.type, c.status]), [
      ['PodScheduled', 'True'],
      ['example.com/gate', 'True'],
    ]);
  });

  test('a resourceVersion inside a patch is a precondition', async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'pre' } } });
    await core.patchNamespacedConfigMap({ name: 'pre', namespace: ns, body: { data: { a: '1' } } }, merge);
    const stale = await patch(`/api/v1/namespaces/${ns}/configmaps/pre`, { metadata: { resourceVersion: cm.metadata?.resourceVersion }, data: { a: '2' } }, 'application/merge-patch+json');
    assert.equal(stale.status, 409);
    const json = await patch(`/api/v1/namespaces/${ns}/configmaps/pre`, [{ op: 'replace', path: '/metadata/resourceVersion', value: cm.metadata?.resourceVersion }], 'application/json-patch+json');
    assert.equal(json.status, 409);
  });

  test('JSON patch failures are an opaque 422; an unknown content type is 415', async () => {
    const res = await patch(`/api/v1/namespaces/${ns}/configmaps/pre`, [{ op: 'remove', path: '/metadata/labels/nonexistent' }], 'application/json-patch+json');
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
    const unknown = await patch(`/api/v1/namespaces/${ns}/configmaps/pre`, {}, 'text/plain');
    assert.equal(unknown.status, 415);
    assert.deepEqual(unknown.json, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: '415: Unsupported Media Type',
      reason: 'UnsupportedMediaType',
      details: {},
      code: 415,
    });
  });

  test('server-side apply: create, conflict between managers, force', async () => {
    const apply = (manager: string, data: Record<string, string>, force = false) =>
      h.http(
        'PATCH',
        `/api/v1/namespaces/${ns}/configmaps/ssa?fieldManager=${manager}${force ? '&force=true' : ''}`,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data },
        { 'Content-Type': 'application/apply-patch+yaml' },
      );
    const created = await apply('m1', { a: '1' });
    assert.equal(created.status, 201);
    assert.deepEqual(created.json.metadata.managedFields.map((m: { manager: string; operation: string }) => [m.manager, m.operation]), [['m1', 'Apply']]);
    const conflict = await apply('m2', { a: '2' });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.json.message, 'Apply failed with 1 conflict: conflict with "m1": .data.a');
    const forced = await apply('m2', { a: '2' }, true);
    assert.equal(forced.status, 200);
    assert.equal(forced.json.data.a, '2');
    const noManager = await h.http('PATCH', `/api/v1/namespaces/${ns}/configmaps/ssa`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' } }, {
      'Content-Type': 'application/apply-patch+yaml',
    });
    assert.equal(noManager.status, 422);
    assert.equal(noManager.json.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  });
});

describe('patches through kubectl', { skip: skipWithoutKubectl }, () => {
  test('kubectl patch --type json, merge and strategic; apply and apply --server-side', async () => {
    await core.createNamespacedPod({ namespace: ns, body: podManifest('kp') as V1Pod });
    const json = await h.kubectl(['patch', 'pod', 'kp', '-n', ns, '--type=json', '-p', '[{"op":"add","path":"/metadata/labels","value":{"x":"1"}}]']);
    assert.equal(json.stdout.trim(), 'pod/kp patched');
    assert.equal((await h.kubectl(['patch', 'pod', 'kp', '-n', ns, '--type=merge', '-p', '{"metadata":{"labels":{"y":"2"}}}'])).stdout.trim(), 'pod/kp patched');
    assert.equal((await h.kubectl(['patch', 'pod', 'kp', '-n', ns, '-p', '{"spec":{"containers":[{"name":"c","image":"nginx:3"}]}}'])).stdout.trim(), 'pod/kp patched');
    const labels = await h.kubectl(['get', 'pod', 'kp', '-n', ns, '-o', 'jsonpath={.metadata.labels.x},{.metadata.labels.y},{.spec.containers[0].image}']);
    assert.equal(labels.stdout, '1,2,nginx:3');
    const refused = await h.kubectl(['patch', 'pod', 'kp', '-n', ns, '--type=merge', '-p', '{"spec":{"restartPolicy":"Never"}}']);
    assert.match(refused.stderr, /The Pod "kp" is invalid: spec: Forbidden: pod updates may not change fields other than/);
    const manifest = (image: string) =>
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'kd', namespace: ns },
        spec: {
          selector: { matchLabels: { app: 'kd' } },
          template: { metadata: { labels: { app: 'kd' } }, spec: { containers: [{ name: 'a', image }, { name: 'b', image: 'side' }] } },
        },
      });
    assert.equal((await h.kubectl(['apply', '-f', '-'], manifest('one'))).stdout.trim(), 'deployment.apps/kd created');
    assert.equal((await h.kubectl(['apply', '-f', '-'], manifest('two'))).stdout.trim(), 'deployment.apps/kd configured');
    const images = await h.kubectl(['get', 'deploy', 'kd', '-n', ns, '-o', 'jsonpath={.spec.template.spec.containers[*].image}']);
    assert.equal(images.stdout, 'two side');
    const status = await h.kubectl(['patch', 'pod', 'kp', '-n', ns, '--subresource=status', '--type=merge', '-p', '{"metadata":{"labels":{"z":"9"}},"spec":{"nodeName":"ignored"},"status":{"phase":"Running"}}']);
    assert.equal(status.stdout.trim(), 'pod/kp patched', status.stderr);
    const afterStatus = await h.kubectl(['get', 'pod', 'kp', '-n', ns, '-o', 'jsonpath={.status.phase},{.metadata.labels.z},{.spec.nodeName}']);
    assert.equal(afterStatus.stdout, 'Running,9,');
    const ssa = await h.kubectl(['apply', '--server-side', '-f', '-'], manifest('two'));
    assert.equal(ssa.stdout.trim(), 'deployment.apps/kd serverside-applied', ssa.stderr);
    const forced = await h.kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], manifest('three'));
    assert.equal(forced.stdout.trim(), 'deployment.apps/kd serverside-applied', forced.stderr);
  });

  test('kubectl patch --subresource=status --type=strategic merges conditions by type', async () => {
    await core.createNamespacedPod({ namespace: ns, body: podManifest('k-cond') as V1Pod });
    const patchStatus = (conditions: object[]) =>
      h.kubectl(['patch', 'pod', 'k-cond', '-n', ns, '--subresource=status', '--type=strategic', '-p', JSON.stringify({ status: { conditions } })]);
    const first = await patchStatus([{ type: 'Ready', status: 'False', reason: 'r1' }, { type: 'example.com/X', status: 'True' }]);
    assert.equal(first.stdout.trim(), 'pod/k-cond patched', first.stderr);
    await patchStatus([{ type: 'Ready', status: 'True' }]);
    await patchStatus([{ type: 'New', status: 'True' }]);
    const shown = await h.kubectl(['get', 'pod', 'k-cond', '-n', ns, '-o', 'jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason};{end}']);
    assert.equal(shown.stdout, 'New=True/;Ready=True/r1;example.com/X=True/;');
    const removed = await patchStatus([{ type: 'New', $patch: 'delete' }]);
    assert.equal(removed.stdout.trim(), 'pod/k-cond patched', removed.stderr);
    const types = await h.kubectl(['get', 'pod', 'k-cond', '-n', ns, '-o', 'jsonpath={.status.conditions[*].type}']);
    assert.equal(types.stdout, 'Ready example.com/X');
    const unchanged = await patchStatus([{ type: 'Ready', status: 'True' }]);
    assert.equal(unchanged.stdout.trim(), 'pod/k-cond patched (no change)');
  });
});
