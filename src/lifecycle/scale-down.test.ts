// A ReplicaSet's scale-down as GraceDelete counts it: refused deletes never add up to more pods leaving than
// the scale-down asks, users' deletes always leave, and a scale-up brings back the pods marked last. A
// StatefulSet's controller's delete stands while the ordinal is out of range or the revision is due for update.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Pod, StatefulSet } from '../api/kube.ts';
import { GRACE_DELETE_REQUESTED_BY_ANNOTATION, POD_DELETE_LIFECYCLE_ID, TO_DELETE_LABEL, idLabelKey } from '../api/protocol.ts';
import { deletionRequester, isWorkloadController, leavesForScaleDown, leavesForStatefulSet, OTHER_CONTROLLER_REQUESTER, scaleDown, scaleDownWantsMore, SHARED_CONTROLLER_MANAGER_USER, statefulSetKeeps } from './scale-down.ts';

const RS_CONTROLLER = 'system:serviceaccount:kube-system:replicaset-controller';

function pod(name: string, leaving?: { at: number; by: string }, extra: { terminating?: boolean; phase?: string } = {}): Pod {
  return {
    metadata: {
      name,
      uid: `uid-${name}`,
      labels: { app: 'web', ...(leaving && { [TO_DELETE_LABEL]: String(leaving.at) }) },
      ...(leaving && { annotations: { [GRACE_DELETE_REQUESTED_BY_ANNOTATION]: leaving.by } }),
      ...(extra.terminating && { deletionTimestamp: '2025-03-01T10:00:00Z' }),
    },
    ...(extra.phase && { status: { phase: extra.phase } }),
  };
}
const names = (pods: Pod[]) => pods.map((p) => p.metadata.name);

describe('scaleDown', () => {
  test('the excess counts active pods only: terminating and finished ones are already gone for the ReplicaSet', () => {
    const pods = [pod('a'), pod('b'), pod('c'), pod('d', undefined, { terminating: true }), pod('e', undefined, { phase: 'Failed' })];
    assert.equal(scaleDown(2, pods).excess, 1);
    assert.equal(scaleDown(5, pods).excess, 0);
  });

  test('one more pod may leave while those leaving do not cover the excess', () => {
    const one = [pod('a', { at: 1, by: RS_CONTROLLER }), pod('b'), pod('c')];
    assert.equal(scaleDownWantsMore(scaleDown(2, one)), false, 'a refused delete of b or c must not start a second lifecycle');
    assert.equal(scaleDownWantsMore(scaleDown(1, one)), true);
    assert.deepEqual(names(scaleDown(1, one).leaving), ['a']);
  });

  test('a scale-up brings back the pods marked last; the one furthest along keeps going', () => {
    const pods = [pod('late', { at: 20, by: RS_CONTROLLER }), pod('early', { at: 10, by: RS_CONTROLLER }), pod('c'), pod('d')];
    assert.deepEqual(names(scaleDown(2, pods).surplus), []);
    assert.deepEqual(names(scaleDown(3, pods).surplus), ['late']);
    assert.deepEqual(names(scaleDown(4, pods).surplus), ['early', 'late']);
  });

  test('a pod whose lifecycle began keeps its place over one marked earlier but not begun (marks race, lifecycles do not)', () => {
    const begun = pod('begun', { at: 20, by: RS_CONTROLLER });
    begun.metadata.labels![idLabelKey('operation-type', POD_DELETE_LIFECYCLE_ID)] = 'delete';
    const pods = [begun, pod('marked', { at: 10, by: RS_CONTROLLER }), pod('c')];
    assert.deepEqual(names(scaleDown(2, pods).surplus), ['marked']);
    assert.deepEqual(names(scaleDown(2, pods).leaving), ['begun', 'marked']);
  });

  test("a user's delete always leaves and covers the scale-down first", () => {
    const pods = [pod('mine', { at: 30, by: 'alice' }), pod('scaled', { at: 10, by: RS_CONTROLLER }), pod('c')];
    const sd = scaleDown(2, pods);
    assert.deepEqual(names(sd.surplus), ['scaled'], "alice's pod removes the one pod too many");
    assert.equal(leavesForScaleDown(pods[0]!), false);
    assert.equal(leavesForScaleDown(pods[1]!), true);
    assert.deepEqual(names(scaleDown(3, pods).surplus), ['scaled']);
  });

  test('the shared kube-controller-manager identity counts as the ReplicaSet controller too', () => {
    assert.equal(leavesForScaleDown(pod('a', { at: 1, by: 'system:kube-controller-manager' })), true);
    assert.equal(leavesForScaleDown(pod('a', { at: 1, by: 'system:serviceaccount:kube-system:statefulset-controller' })), false);
  });
});

describe('statefulSetKeeps', () => {
  const SS_CONTROLLER = 'system:serviceaccount:kube-system:statefulset-controller';
  const set = (spec: StatefulSet['spec'], status: StatefulSet['status'] = {}, generation = 2): StatefulSet => ({
    metadata: { name: 'db', generation },
    spec,
    status: { observedGeneration: generation, updateRevision: 'db-new', ...status },
  });
  const member = (ordinal: number, revision = 'db-new', phase?: string): Pod => {
    const p = pod(`db-${ordinal}`, { at: 1, by: SS_CONTROLLER }, phase ? { phase } : {});
    p.metadata.labels!['controller-revision-hash'] = revision;
    return p;
  };

  test('a scale-in wants the ordinals at or beyond the replicas; scaled back up, the pod is kept', () => {
    assert.equal(statefulSetKeeps(set({ replicas: 2 }), member(2)), undefined);
    assert.equal(statefulSetKeeps(set({ replicas: 3 }), member(2)), 'StatefulSet db has 3 replicas and db-2 is at its update revision db-new');
    assert.equal(leavesForStatefulSet(member(2)), true);
    assert.equal(leavesForScaleDown(member(2)), false);
  });

  test('ordinals counted from spec.ordinals.start', () => {
    assert.equal(statefulSetKeeps(set({ replicas: 2, ordinals: { start: 5 } }), member(6)), 'StatefulSet db has 2 replicas and db-6 is at its update revision db-new');
    assert.equal(statefulSetKeeps(set({ replicas: 2, ordinals: { start: 5 } }), member(7)), undefined);
    assert.equal(statefulSetKeeps(set({ replicas: 2, ordinals: { start: 5 } }), member(4)), undefined);
  });

  test('a rolling update wants a pod at an old revision at or above the partition; rolled back, it is kept', () => {
    assert.equal(statefulSetKeeps(set({ replicas: 3 }), member(1, 'db-old')), undefined);
    assert.equal(statefulSetKeeps(set({ replicas: 3 }, { updateRevision: 'db-old' }), member(1, 'db-old')), 'StatefulSet db has 3 replicas and db-1 is at its update revision db-old');
    assert.equal(statefulSetKeeps(set({ replicas: 3, updateStrategy: { rollingUpdate: { partition: 2 } } }), member(1, 'db-old')), 'StatefulSet db has 3 replicas and db-1 is not due for an update');
    assert.equal(statefulSetKeeps(set({ replicas: 3, updateStrategy: { type: 'OnDelete' } }), member(1, 'db-old')), 'StatefulSet db has 3 replicas and db-1 is not due for an update');
  });

  test('a finished pod is replaced; a status behind the spec, or a pod of no ordinal of this set, cannot tell', () => {
    assert.equal(statefulSetKeeps(set({ replicas: 3 }), member(1, 'db-new', 'Failed')), undefined);
    assert.equal(statefulSetKeeps(set({ replicas: 3 }, { observedGeneration: 1 }), member(2)), undefined, 'the controller deletes before it writes its status');
    assert.equal(statefulSetKeeps(set({ replicas: 3 }), pod('other-1', { at: 1, by: SS_CONTROLLER })), undefined);
    assert.equal(statefulSetKeeps(set({ replicas: 3 }, { updateRevision: undefined }), member(1)), undefined, 'no update revision yet');
  });
});

test("a delete by kube-controller-manager's shared identity is the workload controller's only while the workload wants the pod gone", () => {
  assert.equal(deletionRequester(SHARED_CONTROLLER_MANAGER_USER, true), SHARED_CONTROLLER_MANAGER_USER);
  assert.equal(deletionRequester(SHARED_CONTROLLER_MANAGER_USER, false), OTHER_CONTROLLER_REQUESTER);
  assert.equal(isWorkloadController(OTHER_CONTROLLER_REQUESTER), false, 'then it leaves as a user asked');
  assert.equal(deletionRequester('system:serviceaccount:kube-system:replicaset-controller', false), 'system:serviceaccount:kube-system:replicaset-controller', 'its own credentials say who it is');
  assert.equal(deletionRequester('alice', false), 'alice');
});
