// GraceDelete through kubectl, and workload rollouts that never remove a pod while the load balancer still sends
// it traffic. (Undo in each phase is a conformance scenario: test/e2e/conformance.test.ts.)

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { Pod } from '../../src/api/kube.ts';
import { OPERATION_TYPE_DELETE, POD_DELETE_LIFECYCLE_ID, TO_DELETE_LABEL, idLabelKey } from '../../src/api/protocol.ts';
import { DEPLOYMENTS, PODS } from '../../src/kube/resources.ts';
import { kubectlPath, skipWithoutKubectl } from '../support/kubectl.ts';
import { controlledPod, deploymentManifest, getPod, isServiceAvailable, serviceNamespace, startCluster, type SandboxCluster } from './harness.ts';
import { until } from '../support/wait.ts';

describe('GraceDelete and rollouts on the sandbox', () => {
  let cluster: SandboxCluster;
  before(async () => {
    cluster = await startCluster();
    await serviceNamespace(cluster, 'e2e');
  });
  after(() => cluster.stop());

  test('kubectl delete pod: denied with the upstream message, then deleted once out of traffic', { skip: skipWithoutKubectl }, async () => {
    const { client } = cluster;
    await client.create(PODS, controlledPod('e2e', 'doomed'));
    await until(() => getPod(cluster, 'e2e', 'doomed'), isServiceAvailable, 'doomed service-available');
    await until(() => cluster.loadBalancer.isRegistered('e2e/web', 'doomed'), Boolean, 'doomed registered');
    const result = await promisify(execFile)(kubectlPath!, ['--kubeconfig', cluster.kubeconfigPath, 'delete', 'pod', '-n', 'e2e', 'doomed', '--wait=false'], { encoding: 'utf8' }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    assert.notEqual(result.code, 0);
    assert.match(
      result.stderr,
      /admission webhook "validating-pod\.apps\.kusionstack\.io" denied the request: failed to validate GraceDeleteWebhook, pod deletion process is underway and being managed by PodOpsLifecycle with finalizers: \[prot\.podopslifecycle\.kusionstack\.io\/[0-9a-f]{16}\]/,
    );
    await until(() => client.get(PODS, 'e2e', 'doomed').then(() => false, () => true), Boolean, 'the pod to be deleted');
    const changes = cluster.loadBalancer.history.filter((h) => h.pod === 'doomed');
    assert.equal(changes.at(-1)?.change, 'deregister', 'deregistered before it went away');
    const deletedAt = cluster.sandbox.history!.records('pods').find((r) => r.name === 'doomed' && r.type === 'DELETED')!.time;
    assert.ok(changes.at(-1)!.at <= deletedAt);
  });

  test('a Deployment scale-in and a rolling update never remove a pod the load balancer still routes to', async () => {
    const { client } = cluster;
    await serviceNamespace(cluster, 'rollout');
    await client.create(DEPLOYMENTS, deploymentManifest('rollout', 'web', { replicas: 4 }));
    // Settled: exactly `count` pods, all on `image` and in service, and no old pod still terminating.
    const allAvailable = async (count: number, image: string): Promise<boolean> => {
      const pods = (await client.list<Pod>(PODS, { namespace: 'rollout' })).items;
      return pods.length === count && pods.every((p) => p.metadata.deletionTimestamp == null && isServiceAvailable(p) && JSON.stringify(p.spec).includes(image));
    };
    await until(() => allAvailable(4, 'nginx:1.27'), Boolean, '4 pods available', 30_000);
    await client.patch(DEPLOYMENTS, 'rollout', 'web', 'merge', { spec: { replicas: 2 } });
    await until(() => allAvailable(2, 'nginx:1.27'), Boolean, 'scaled in to 2', 30_000);
    await client.patch(DEPLOYMENTS, 'rollout', 'web', 'strategic', { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } });
    await until(() => allAvailable(2, 'nginx:1.28'), Boolean, 'rolled out', 60_000);

    // Over everything that happened: every removed pod left through GraceDelete's pod-delete lifecycle, and
    // the load balancer no longer routed to it when it was marked for deletion (the first write with a
    // deletionTimestamp, or the deletion itself when there was none).
    const records = cluster.sandbox.history!.records('pods').filter((r) => r.namespace === 'rollout');
    const removed = [...new Set(records.filter((r) => r.type === 'DELETED').map((r) => r.name))];
    assert.ok(removed.length >= 4, `pods were removed (${removed.length})`);
    for (const name of removed) {
      const deletion = records.find((r) => r.name === name && (r.type === 'DELETED' || (r.object as unknown as Pod).metadata.deletionTimestamp != null))!;
      const labels = (deletion.object as unknown as Pod).metadata.labels ?? {};
      assert.ok(labels[TO_DELETE_LABEL] !== undefined, `${name} was labelled ${TO_DELETE_LABEL} by GraceDelete`);
      assert.equal(labels[idLabelKey('operation-type', POD_DELETE_LIFECYCLE_ID)], OPERATION_TYPE_DELETE, `${name} was in a pod-delete lifecycle of type delete`);
      assert.ok(labels[idLabelKey('operate', POD_DELETE_LIFECYCLE_ID)] !== undefined, `${name} was deleted only once its pod-delete lifecycle allowed it`);
      const last = cluster.loadBalancer.history.filter((h) => h.pod === name && h.at <= deletion.time).at(-1);
      assert.notEqual(last?.change, 'register', `${name} was registered in the load balancer when it was marked for deletion`);
    }
  });
});
