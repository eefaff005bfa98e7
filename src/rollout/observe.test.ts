// Where a rollout is, read off the objects: the new ReplicaSet and the new ControllerRevision by their
// template, new available pods counted with minReadySeconds, and the rules of a finished rollout.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CONTROLLER_REVISION_HASH_LABEL, type Pod } from '../api/kube.ts';
import { RL_ROLLOUT_ANNOTATION, RL_USER_SETTINGS_ANNOTATION } from '../api/rolloutlifecycle.ts';
import { template, UID, workload } from './fixtures.test-support.ts';
import { jobObservation, observeRollout, podAvailable, type ControllerRevision, type ReplicaSetLike } from './observe.ts';
import { templateHash, type JsonObject, type Workload } from './workload.ts';

const NOW = Date.parse('2025-03-01T10:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();
const v1 = template('app:v1');
const v2 = template('app:v2');
const owner = [{ uid: UID }];
const stamp = { id: 'r1', templateHash: templateHash(v2), type: 'ROLLOUT', from: 'web-v1', changedAt: ago(60) };

function held(kind: Workload['kind'] & string, spec: JsonObject, status: JsonObject, user: JsonObject = {}): Workload {
  const w = workload(kind as never, { template: v2, ...spec }, { [RL_USER_SETTINGS_ANNOTATION]: JSON.stringify(user), [RL_ROLLOUT_ANNOTATION]: JSON.stringify(stamp) });
  w.metadata.generation = 3;
  w.status = { observedGeneration: 3, ...status };
  return w;
}

const replicaSet = (name: string, t: JsonObject, replicas: number, available: number, owners = owner, pods = replicas): ReplicaSetLike => ({
  metadata: { name, ownerReferences: owners },
  spec: { replicas, template: { ...t, metadata: { labels: { app: 'web', 'pod-template-hash': name } } } },
  status: { replicas: pods, availableReplicas: available },
});

const pod = (name: string, revision: string, options: { readySince?: number; ready?: boolean; terminating?: boolean } = {}): Pod => ({
  metadata: {
    name,
    labels: { app: 'web', [CONTROLLER_REVISION_HASH_LABEL]: revision },
    ...(options.terminating && { deletionTimestamp: ago(1) }),
  },
  status: { conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True', lastTransitionTime: ago(options.readySince ?? 600) }] },
});

const revision = (name: string, hash: string, number: number, t: JsonObject, owners = owner): ControllerRevision => ({
  metadata: { name, labels: { [CONTROLLER_REVISION_HASH_LABEL]: hash }, ownerReferences: owners },
  revision: number,
  data: { spec: { template: { ...t, $patch: 'replace' } } },
});

describe('observeRollout: Deployment', () => {
  const user = { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } };
  const deployment = (status: JsonObject) => held('Deployment', { replicas: 4, paused: true, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }, status, user);
  const sets = [replicaSet('web-v1', v1, 3, 3), replicaSet('web-v2', v2, 2, 1), replicaSet('other-v2', v2, 9, 9, [{ uid: 'someone-else' }])];

  test('the new ReplicaSet is the owned one with the template (pod-template-hash aside)', () => {
    const observed = observeRollout({ kind: 'Deployment', workload: deployment({ replicas: 5, updatedReplicas: 2, availableReplicas: 4 }), replicaSets: sets, jobs: [], now: NOW });
    assert.deepEqual(
      { ...observed, jobs: [...observed.jobs] },
      {
        templateHash: templateHash(v2),
        stamp,
        held: true,
        user,
        current: { paused: true, strategy: user.strategy },
        userDrives: false,
        jobs: [],
        replicas: 4,
        reachable: 4,
        fromRevision: 'web-v1',
        toRevision: 'web-v2',
        newReplicas: 2,
        newAvailable: 1,
        revisionReady: true,
        complete: false,
        revisions: [
          { name: 'web-v1', template: sets[0]!.spec!.template },
          { name: 'web-v2', template: sets[1]!.spec!.template },
        ],
        pods: [],
      },
    );
  });

  test('before the new ReplicaSet exists: nothing new, no toRevision', () => {
    const observed = observeRollout({ kind: 'Deployment', workload: deployment({ replicas: 4, updatedReplicas: 0, availableReplicas: 4 }), replicaSets: [sets[0]!], jobs: [], now: NOW });
    assert.equal(observed.toRevision, undefined);
    assert.equal(observed.newReplicas, 0);
    assert.equal(observed.newAvailable, 0);
  });

  test('complete: the new ReplicaSet has every replica, available, and the old ones no pod left (whatever the status says)', () => {
    const complete = (old: ReplicaSetLike, fresh: ReplicaSetLike) => {
      const w = deployment({ replicas: 1, updatedReplicas: 0, availableReplicas: 0 });
      w.metadata.generation = 9;
      return observeRollout({ kind: 'Deployment', workload: w, replicaSets: [old, fresh], jobs: [], now: NOW }).complete;
    };
    assert.equal(complete(replicaSet('web-v1', v1, 0, 0), replicaSet('web-v2', v2, 4, 4)), true);
    assert.equal(complete(replicaSet('web-v1', v1, 0, 0, owner, 1), replicaSet('web-v2', v2, 4, 4)), false, 'an old pod still terminating');
    assert.equal(complete(replicaSet('web-v1', v1, 1, 1), replicaSet('web-v2', v2, 4, 4)), false);
    assert.equal(complete(replicaSet('web-v1', v1, 0, 0), replicaSet('web-v2', v2, 4, 3)), false);
    assert.equal(complete(replicaSet('web-v1', v1, 0, 0), replicaSet('web-v2', v2, 3, 3)), false);
  });

  test('not held: the settings on the workload are the user\'s; replicas default to 1', () => {
    const w = workload('Deployment', { strategy: { type: 'Recreate' } });
    const observed = observeRollout({ kind: 'Deployment', workload: w, replicaSets: [], jobs: [], now: NOW });
    assert.equal(observed.held, false);
    assert.equal(observed.stamp, undefined);
    assert.deepEqual(observed.user, { strategy: { type: 'Recreate' } });
    assert.equal(observed.replicas, 1);
    assert.equal(observed.fromRevision, undefined);
  });
});

describe('observeRollout: StatefulSet', () => {
  const history = [revision('web-v1', 'web-v1', 1, v1), revision('web-v2', 'web-v2', 2, v2)];
  const statefulSet = (status: JsonObject = {}, user: JsonObject = {}, spec: JsonObject = {}) =>
    held('StatefulSet', { replicas: 4, minReadySeconds: 30, ...spec }, { updateRevision: 'web-v2', currentRevision: 'web-v1', ...status }, user);

  test('new pods are those of the update revision; available counts minReadySeconds', () => {
    const pods = [pod('web-0', 'web-v1'), pod('web-1', 'web-v1'), pod('web-2', 'web-v2', { readySince: 10 }), pod('web-3', 'web-v2')];
    const observed = observeRollout({ kind: 'StatefulSet', workload: statefulSet(), controllerRevisions: history, pods, jobs: [], now: NOW });
    assert.equal(observed.toRevision, 'web-v2');
    assert.equal(observed.fromRevision, 'web-v1');
    assert.equal(observed.newAvailable, 1);
    assert.equal(observed.complete, false);
    assert.deepEqual(observed.pods, [
      { name: 'web-0', isNew: false, available: true, terminating: false },
      { name: 'web-1', isNew: false, available: true, terminating: false },
      { name: 'web-2', isNew: true, available: false, terminating: false },
      { name: 'web-3', isNew: true, available: true, terminating: false },
    ]);
    assert.deepEqual(
      observed.revisions.map((r) => r.name),
      ['web-v1', 'web-v2'],
    );
    assert.equal(templateHash(observed.revisions[1]!.template), templateHash(v2));
  });

  test('complete once every replica is new and available', () => {
    const pods = ['web-0', 'web-1', 'web-2', 'web-3'].map((name) => pod(name, 'web-v2'));
    assert.equal(observeRollout({ kind: 'StatefulSet', workload: statefulSet(), controllerRevisions: history, pods, jobs: [], now: NOW }).complete, true);
    const notReady = [...pods.slice(0, 3), pod('web-3', 'web-v2', { ready: false })];
    assert.equal(observeRollout({ kind: 'StatefulSet', workload: statefulSet(), controllerRevisions: history, pods: notReady, jobs: [], now: NOW }).complete, false);
  });

  test("the user's partition: fewer replicas reachable, and not complete while it keeps pods at the old revision", () => {
    const user = { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } };
    const pods = [pod('web-0', 'web-v1'), pod('web-1', 'web-v1'), pod('web-2', 'web-v2'), pod('web-3', 'web-v2')];
    const observed = observeRollout({ kind: 'StatefulSet', workload: statefulSet({}, user), controllerRevisions: history, pods, jobs: [], now: NOW });
    assert.equal(observed.reachable, 2);
    assert.equal(observed.newAvailable, 2);
    assert.equal(observed.complete, false);
  });

  test('before the revision of the new template exists: nothing new, no toRevision', () => {
    const pods = ['web-0', 'web-1', 'web-2', 'web-3'].map((name) => pod(name, 'web-v1'));
    const observed = observeRollout({ kind: 'StatefulSet', workload: statefulSet({ updateRevision: 'web-v1' }), controllerRevisions: [history[0]!], pods, jobs: [], now: NOW });
    assert.equal(observed.revisionReady, false);
    assert.equal(observed.newAvailable, 0);
    assert.equal(observed.toRevision, undefined);
    assert.equal(observed.complete, false);
  });

  test('the new revision is the one with the template, even while the status still names the old one', () => {
    const pods = [pod('web-0', 'web-v1'), pod('web-1', 'web-v1'), pod('web-2', 'web-v1'), pod('web-3', 'web-v2')];
    const observed = observeRollout({ kind: 'StatefulSet', workload: statefulSet({ updateRevision: 'web-v1' }), controllerRevisions: history, pods, jobs: [], now: NOW });
    assert.equal(observed.revisionReady, true);
    assert.equal(observed.toRevision, 'web-v2');
    assert.equal(observed.newAvailable, 1);
  });

  test('without a stamp, the rollout comes from the current revision', () => {
    const w = statefulSet();
    delete w.metadata.annotations;
    assert.equal(observeRollout({ kind: 'StatefulSet', workload: w, controllerRevisions: history, pods: [], jobs: [], now: NOW }).fromRevision, 'web-v1');
  });
});

describe('observeRollout: DaemonSet', () => {
  const history = [
    revision('web-aaa', 'aaa', 1, v1),
    revision('web-ccc', 'ccc', 2, template('app:v0')),
    revision('web-bbb', 'bbb', 3, v2),
    revision('theirs-zzz', 'zzz', 9, v2, [{ uid: 'someone-else' }]),
  ];
  const daemonSet = (generation = 3) => {
    const w = held('DaemonSet', { updateStrategy: { type: 'OnDelete' } }, { desiredNumberScheduled: 3 }, { updateStrategy: { type: 'RollingUpdate' } });
    w.metadata.generation = generation;
    return w;
  };

  test("the new revision is the owned ControllerRevision of the template; replicas are the desired pods", () => {
    const pods = [pod('web-x', 'aaa'), pod('web-y', 'bbb'), pod('web-z', 'aaa', { terminating: true })];
    const observed = observeRollout({ kind: 'DaemonSet', workload: daemonSet(), controllerRevisions: history, pods, jobs: [], now: NOW });
    assert.equal(observed.replicas, 3);
    assert.equal(observed.toRevision, 'web-bbb');
    assert.equal(observed.newAvailable, 1);
    assert.equal(observed.userDrives, false);
    assert.deepEqual(observed.pods, [
      { name: 'web-x', isNew: false, available: true, terminating: false },
      { name: 'web-y', isNew: true, available: true, terminating: false },
      { name: 'web-z', isNew: false, available: false, terminating: true },
    ]);
    assert.equal(observed.complete, false);
  });

  test('complete: every desired pod new and available, no old pod left but those on their way out', () => {
    const pods = [pod('web-x', 'bbb'), pod('web-y', 'bbb'), pod('web-z', 'bbb'), pod('web-old', 'aaa', { terminating: true })];
    assert.equal(observeRollout({ kind: 'DaemonSet', workload: daemonSet(), controllerRevisions: history, pods, jobs: [], now: NOW }).complete, true);
    const oldLeft = [...pods.slice(0, 3), pod('web-old', 'aaa')];
    assert.equal(observeRollout({ kind: 'DaemonSet', workload: daemonSet(), controllerRevisions: history, pods: oldLeft, jobs: [], now: NOW }).complete, false);
    assert.equal(observeRollout({ kind: 'DaemonSet', workload: daemonSet(), controllerRevisions: history.slice(0, 2), pods, jobs: [], now: NOW }).complete, false);
  });
});

describe('podAvailable', () => {
  const at = (readySince: number, extra: Partial<Pod['metadata']> = {}): Pod => ({ ...pod('p', 'x', { readySince }), metadata: { ...pod('p', 'x').metadata, ...extra } });

  test('Ready for minReadySeconds, and not on its way out', () => {
    assert.equal(podAvailable(at(0), 0, NOW), true);
    assert.equal(podAvailable(at(5), 10, NOW), false);
    assert.equal(podAvailable(at(10), 10, NOW), true);
    assert.equal(podAvailable(at(600, { deletionTimestamp: ago(1) }), 0, NOW), false);
    assert.equal(podAvailable(pod('p', 'x', { ready: false }), 0, NOW), false);
    assert.equal(podAvailable({ metadata: {}, status: { conditions: [{ type: 'Ready', status: 'True' }] } }, 0, NOW), true);
    assert.equal(podAvailable({ metadata: {}, status: { conditions: [{ type: 'Ready', status: 'True' }] } }, 5, NOW), false);
    assert.equal(podAvailable({ metadata: {} }, 0, NOW), false);
  });
});

describe('jobObservation', () => {
  test('Complete, Failed (with why), or still active', () => {
    assert.deepEqual(jobObservation({ metadata: {}, status: { conditions: [{ type: 'Complete', status: 'True' }] } }), { phase: 'Succeeded' });
    assert.deepEqual(jobObservation({ metadata: {}, status: { conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }] } }), {
      phase: 'Failed',
      message: 'BackoffLimitExceeded: Job has reached the specified backoff limit',
    });
    assert.deepEqual(jobObservation({ metadata: {}, status: { conditions: [{ type: 'Failed', status: 'True' }] } }), { phase: 'Failed', message: 'the Job failed' });
    assert.deepEqual(jobObservation({ metadata: {}, status: { conditions: [{ type: 'Complete', status: 'False' }, { type: 'Suspended', status: 'True' }] } }), { phase: 'Active' });
    assert.deepEqual(jobObservation({ metadata: {} }), { phase: 'Active' });
  });

  test('the observation maps Jobs by name', () => {
    const observed = observeRollout({ kind: 'Deployment', workload: workload('Deployment', {}), replicaSets: [], jobs: [{ metadata: { name: 'web-smoke-x' }, status: { conditions: [{ type: 'Complete', status: 'True' }] } }], now: NOW });
    assert.deepEqual([...observed.jobs], [['web-smoke-x', { phase: 'Succeeded' }]]);
  });
});
