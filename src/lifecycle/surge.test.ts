// The surge bound of a Deployment with GraceDelete: the ReplicaSet controller's creates are admitted while the
// Deployment's active pods (held ones included) and the creates on their way stay below replicas + maxSurge.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Deployment, Pod, ReplicaSet } from '../api/kube.ts';
import { CONTROL_LABEL, CONTROL_LABEL_VALUE, TO_DELETE_LABEL } from '../api/protocol.ts';
import { creationRoom, deploymentOf, notYetStored, replicaSetsAwaitingRoom, subjectToSurgeBound, surgeLimit } from './surge.ts';

const deployment = (replicas: number, strategy?: NonNullable<Deployment['spec']>['strategy']): Deployment => ({ metadata: { name: 'web', uid: 'd1' }, spec: { replicas, ...(strategy && { strategy }) } });

function replicaSet(name: string, conditions?: { type: string; status: string; reason?: string }[], owner = 'd1'): ReplicaSet {
  return {
    metadata: { name, uid: `uid-${name}`, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: owner, controller: true }] },
    spec: { template: { metadata: { labels: { [CONTROL_LABEL]: CONTROL_LABEL_VALUE } } } },
    ...(conditions && { status: { conditions } }),
  };
}

function pod(name: string, rs: string, state: { terminating?: boolean; phase?: string; marked?: boolean } = {}): Pod {
  return {
    metadata: {
      name,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, uid: `uid-${rs}`, controller: true }],
      ...(state.marked && { labels: { [TO_DELETE_LABEL]: '1' } }),
      ...(state.terminating && { deletionTimestamp: '2025-03-01T10:00:00Z' }),
    },
    ...(state.phase && { status: { phase: state.phase } }),
  };
}

describe('surgeLimit', () => {
  test('replicas + maxSurge, a percentage rounded up, 25% when unset', () => {
    assert.equal(surgeLimit(deployment(3, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } })), 4);
    assert.equal(surgeLimit(deployment(5, { rollingUpdate: { maxSurge: '25%' } })), 7);
    assert.equal(surgeLimit(deployment(4, { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } })), 4);
    assert.equal(surgeLimit(deployment(4)), 5);
    assert.equal(surgeLimit({ metadata: {} }), 2, 'one replica by default');
  });

  test('a Recreate Deployment has no surge bound: its controller creates only once the old pods are gone', () => {
    assert.equal(surgeLimit(deployment(3, { type: 'Recreate' })), undefined);
    assert.equal(creationRoom(deployment(3, { type: 'Recreate' }), [replicaSet('old')], [pod('a', 'old'), pod('b', 'old'), pod('c', 'old')], 0).allowed, true);
  });
});

describe('creationRoom', () => {
  const d = deployment(3, { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
  const sets = [replicaSet('old'), replicaSet('new')];

  test('a pod held by GraceDelete counts: it is still running, and its replacement would be one pod too many', () => {
    const pods = [pod('o1', 'old', { marked: true }), pod('o2', 'old'), pod('o3', 'old'), pod('n1', 'new')];
    const room = creationRoom(d, sets, pods, 0);
    assert.equal(room.allowed, false);
    assert.equal(room.why, 'Deployment web has 4 pods not terminating, 1 of them leaving through PodOpsLifecycle; replicas 3 + maxSurge 1 allow 4: the pod is created once one is gone');
  });

  test("a ReplicaSet of uncontrolled pods (a first controlled rollout's old one) counts its pods by its status: podops caches controlled pods only", () => {
    const old: ReplicaSet = { ...replicaSet('old'), spec: { replicas: 2 }, status: { replicas: 3 } };
    assert.equal(creationRoom(d, [old, replicaSet('new')], [pod('n1', 'new')], 0).why, 'Deployment web has 4 pods not terminating; replicas 3 + maxSurge 1 allow 4: the pod is created once one is gone');
    assert.equal(creationRoom(d, [{ ...old, status: { replicas: 2 } }, replicaSet('new')], [pod('n1', 'new')], 0).allowed, true);
  });

  test('terminating and finished pods do not count, as without podops a deleted pod leaves the count at once', () => {
    const pods = [pod('o1', 'old', { terminating: true }), pod('o2', 'old', { phase: 'Failed' }), pod('o3', 'old'), pod('n1', 'new'), pod('n2', 'new')];
    assert.equal(creationRoom(d, sets, pods, 0).allowed, true);
  });

  test('creates admitted but not stored yet count: two creates at once never both take the last room', () => {
    const pods = [pod('o1', 'old'), pod('o2', 'old'), pod('n1', 'new')];
    assert.equal(creationRoom(d, sets, pods, 0).allowed, true);
    const room = creationRoom(d, sets, pods, 1);
    assert.equal(room.allowed, false);
    assert.match(room.why, /has 3 pods not terminating and 1 being created;/);
  });

  test("only the pods of the Deployment's own ReplicaSets count", () => {
    const stranger = replicaSet('other', undefined, 'd2');
    const pods = [pod('o1', 'old'), pod('o2', 'old'), pod('n1', 'new'), pod('x1', 'other'), pod('x2', 'other')];
    assert.equal(creationRoom(d, [...sets, stranger], pods, 0).allowed, true);
  });
});

test('notYetStored: the admitted names the listed pods do not show', () => {
  assert.deepEqual(notYetStored(['web-a', 'web-b'], [pod('web-a', 'new')]), ['web-b']);
});

test('the ReplicaSets to nudge are those of the Deployment whose create failed', () => {
  const failed = replicaSet('new', [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate' }]);
  const failedDelete = replicaSet('old', [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedDelete' }]);
  const elsewhere = replicaSet('other', [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate' }], 'd2');
  assert.deepEqual(
    replicaSetsAwaitingRoom(deployment(3), [failed, failedDelete, elsewhere]).map((rs) => rs.metadata.name),
    ['new'],
  );
  assert.equal(deploymentOf(failed)?.name, 'web');
  assert.equal(deploymentOf({ metadata: { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd1' }] } }), undefined, 'not the controller');
});

test("a create is held to the surge bound only for a controlled pod of a ReplicaSet, made by the ReplicaSet controller", () => {
  const owned = (controlled: boolean, kind = 'ReplicaSet'): Pod => ({
    metadata: { name: 'web-x', labels: controlled ? { 'kusionstack.io/control': 'true' } : {}, ownerReferences: [{ apiVersion: 'apps/v1', kind, name: 'web-1', uid: 'r1', controller: true }] },
  });
  assert.equal(subjectToSurgeBound(owned(true), 'system:serviceaccount:kube-system:replicaset-controller'), true);
  assert.equal(subjectToSurgeBound(owned(true), 'system:kube-controller-manager'), true, 'shared controller credentials');
  assert.equal(subjectToSurgeBound(owned(false), 'system:serviceaccount:kube-system:replicaset-controller'), false, 'not controlled');
  assert.equal(subjectToSurgeBound(owned(true, 'StatefulSet'), 'system:serviceaccount:kube-system:statefulset-controller'), false, 'not a ReplicaSet');
  assert.equal(subjectToSurgeBound(owned(true), 'alice'), false, 'a user creating such a pod herself');
});

test('a ReplicaSet whose failure condition still says FailedDelete is nudged once it has fewer pods than its replicas', () => {
  const rolledBack: ReplicaSet = { ...replicaSet('old', [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedDelete' }]), spec: { replicas: 3 } };
  rolledBack.status = { ...rolledBack.status, replicas: 1 };
  assert.deepEqual(replicaSetsAwaitingRoom(deployment(3), [rolledBack]).map((rs) => rs.metadata.name), ['old']);
});
