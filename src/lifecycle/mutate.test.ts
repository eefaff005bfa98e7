// Upstream's webhook table (kuperator webhook_test.go, fixed time 1717505885197871195) plus the
// recommended extra cases (see docs/protocol.md).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AVAILABLE_CONDITIONS_ANNOTATION, POD_COMPLETING_LABEL, POD_CREATING_LABEL, SERVICE_AVAILABLE_LABEL, SERVICE_READY_GATE, STAY_OFFLINE_LABEL } from '../api/protocol.ts';
import { L, NOW, PERM, STAMP, pod, protocolLabels, type PodOptions } from '../../test/support/pods.ts';
import { lifecyclePass, mutatePod, type PodWriteOperation } from './mutate.ts';
import { InvalidLabelError } from './parse.ts';
import { InvalidAnnotationError } from './pod.ts';
import { validatePod } from './validate.ts';

function mutate(newPod: PodOptions, oldPod?: PodOptions, operation: PodWriteOperation = 'UPDATE') {
  const result = mutatePod({ operation, pod: pod(newPod), oldPod: oldPod && pod(oldPod), now: NOW });
  return { ...result, protocol: protocolLabels(result.labels) };
}

/** Upstream's webhook in one request: a single pass of the algorithm. */
function onePass(newPod: PodOptions, oldPod?: PodOptions) {
  const input = { operation: 'UPDATE' as const, pod: pod(newPod), oldPod: oldPod && pod(oldPod), now: NOW };
  return { protocol: protocolLabels(lifecyclePass(input.pod.metadata.labels ?? {}, input)) };
}

const expectedFinalizerAnnotation = (finalizer: string) => ({
  [AVAILABLE_CONDITIONS_ANNOTATION]: JSON.stringify({ expectedFinalizers: { 'Service/default/web': finalizer } }),
});

const completing = {
  [L('operated', 'a')]: '1',
  [L('done-operation-type', 'a')]: 'upgrade',
  [L('post-checked', 'a')]: '1',
  [L('completing', 'a')]: '1',
};

describe('lifecyclePass: upstream webhook scenarios (one request)', () => {
  test('operating + type adds pre-check (one ID)', () => {
    const { protocol } = onePass({ labels: { [L('operating', 'a')]: '1', [L('operation-type', 'a')]: 'upgrade' } });
    assert.deepEqual(protocol, { [L('operating', 'a')]: '1', [L('operation-type', 'a')]: 'upgrade', [L('pre-check', 'a')]: STAMP });
  });

  test('operating + type adds pre-check (two IDs)', () => {
    const { protocol } = onePass({
      labels: {
        [L('operating', 'a')]: '1',
        [L('operation-type', 'a')]: 'upgrade',
        [L('operating', 'b')]: '1',
        [L('operation-type', 'b')]: 'restart',
      },
    });
    assert.equal(protocol[L('pre-check', 'a')], STAMP);
    assert.equal(protocol[L('pre-check', 'b')], STAMP);
  });

  test('pre-checked + permission, not ready to operate: preparing, pre-check and service-available removed', () => {
    const { protocol } = onePass({
      serviceReady: 'True',
      labels: {
        [L('operating', 'a')]: '1',
        [L('operation-type', 'a')]: 'upgrade',
        [L('pre-check', 'a')]: '1',
        [L('pre-checked', 'a')]: '1',
        [PERM('upgrade')]: '1',
        [SERVICE_AVAILABLE_LABEL]: '1',
      },
    });
    assert.deepEqual(protocol, {
      [L('operating', 'a')]: '1',
      [L('operation-type', 'a')]: 'upgrade',
      [L('pre-checked', 'a')]: '1',
      [PERM('upgrade')]: '1',
      [L('preparing', 'a')]: STAMP,
    });
  });

  test('undo on a pre-checked ID removes every label, including operation-permission of its type', () => {
    const { protocol } = onePass({
      labels: {
        [L('operating', 'a')]: '1',
        [L('operation-type', 'a')]: 'upgrade',
        [L('pre-checked', 'a')]: '1',
        [PERM('upgrade')]: '1',
        [L('undo-operation-type', 'a')]: 'upgrade',
      },
    });
    assert.deepEqual(protocol, {});
  });

  test('undo of one ID while another ID of another type continues: only the undone ID and its permission go', () => {
    const { protocol } = onePass({
      serviceReady: 'True',
      labels: {
        [L('operating', 'a')]: '1',
        [L('operation-type', 'a')]: 'upgrade',
        [L('pre-checked', 'a')]: '1',
        [L('undo-operation-type', 'a')]: 'upgrade',
        [L('operating', 'b')]: '1',
        [L('operation-type', 'b')]: 'restart',
        [L('pre-checked', 'b')]: '1',
        [PERM('upgrade')]: '1',
        [PERM('restart')]: '1',
      },
    });
    assert.deepEqual(protocol, {
      [L('operating', 'b')]: '1',
      [L('operation-type', 'b')]: 'restart',
      [L('pre-checked', 'b')]: '1',
      [PERM('restart')]: '1',
      [L('preparing', 'b')]: STAMP,
    });
  });

  test('ID A pre-checked while ID B only operating + type: A gets preparing and B gets pre-check', () => {
    const { protocol } = onePass({
      serviceReady: 'True',
      labels: {
        [L('operating', 'a')]: '1',
        [L('operation-type', 'a')]: 'upgrade',
        [L('pre-checked', 'a')]: '1',
        [PERM('upgrade')]: '1',
        [L('operating', 'b')]: '1',
        [L('operation-type', 'b')]: 'restart',
      },
    });
    assert.equal(protocol[L('preparing', 'a')], STAMP);
    assert.equal(protocol[L('pre-check', 'b')], STAMP);
    assert.equal(protocol[L('preparing', 'b')], undefined);
  });

  test('ready to operate with two IDs of different types: both get operate and preparing is skipped', () => {
    const { protocol } = onePass({
      serviceReady: 'False',
      labels: {
        [L('operating', 'a')]: '1',
        [L('operation-type', 'a')]: 'upgrade',
        [L('pre-checked', 'a')]: '1',
        [L('operating', 'b')]: '1',
        [L('operation-type', 'b')]: 'restart',
        [L('pre-checked', 'b')]: '1',
        [PERM('upgrade')]: '1',
        [PERM('restart')]: '1',
      },
    });
    assert.equal(protocol[L('operate', 'a')], STAMP);
    assert.equal(protocol[L('operate', 'b')], STAMP);
    assert.equal(protocol[L('preparing', 'a')], undefined);
    assert.equal(protocol[L('preparing', 'b')], undefined);
  });

  test('operating and type released: exactly operated, post-check and done-operation-type from the old pod', () => {
    const old = {
      labels: {
        [L('operating', 'a')]: '1',
        [L('operation-type', 'a')]: 'upgrade',
        [L('pre-checked', 'a')]: '1',
        [PERM('upgrade')]: '1',
        [L('operate', 'a')]: '1',
      },
    };
    const { protocol } = onePass({ labels: { [L('pre-checked', 'a')]: '1', [PERM('upgrade')]: '1', [L('operate', 'a')]: '1' } }, old);
    assert.deepEqual(protocol, {
      [L('operated', 'a')]: STAMP,
      [L('post-check', 'a')]: STAMP,
      [L('done-operation-type', 'a')]: 'upgrade',
    });
  });

  test('old pod with two IDs operating, new pod with one: the remaining ID gets pre-check', () => {
    const old = {
      labels: {
        [L('operating', 'a')]: '1',
        [L('operation-type', 'a')]: 'upgrade',
        [L('operating', 'b')]: '1',
        [L('operation-type', 'b')]: 'restart',
      },
    };
    const { protocol } = onePass({ labels: { [L('operating', 'a')]: '1', [L('operation-type', 'a')]: 'upgrade' } }, old);
    assert.deepEqual(protocol, { [L('operating', 'a')]: '1', [L('operation-type', 'a')]: 'upgrade', [L('pre-check', 'a')]: STAMP });
  });

  test('two IDs operated without post-check: both get post-check', () => {
    const { protocol } = onePass({
      labels: {
        [L('operated', 'a')]: '1',
        [L('done-operation-type', 'a')]: 'upgrade',
        [L('operated', 'b')]: '1',
        [L('done-operation-type', 'b')]: 'restart',
      },
    });
    assert.equal(protocol[L('post-check', 'a')], STAMP);
    assert.equal(protocol[L('post-check', 'b')], STAMP);
  });

  test('two IDs post-checked: both get completing; operate, operated, done and post-checked are kept', () => {
    const labels = {
      [L('operate', 'a')]: '1',
      [L('operated', 'a')]: '1',
      [L('done-operation-type', 'a')]: 'upgrade',
      [L('post-checked', 'a')]: '1',
      [L('operate', 'b')]: '1',
      [L('operated', 'b')]: '1',
      [L('done-operation-type', 'b')]: 'restart',
      [L('post-checked', 'b')]: '1',
    };
    const { protocol } = onePass({ labels });
    assert.deepEqual(protocol, { ...labels, [L('completing', 'a')]: STAMP, [L('completing', 'b')]: STAMP });
  });

  test('completing without the available-conditions annotation: all lifecycle labels removed', () => {
    assert.deepEqual(onePass({ labels: completing }).protocol, {});
  });

  test('completing with the annotation and the expected finalizer present: removed', () => {
    const { protocol } = onePass({ labels: completing, annotations: expectedFinalizerAnnotation('prot.podopslifecycle.kusionstack.io/x'), finalizers: ['prot.podopslifecycle.kusionstack.io/x'] });
    assert.deepEqual(protocol, {});
  });

  test('completing with the annotation and the expected finalizer absent: kept', () => {
    const { protocol } = onePass({ labels: completing, annotations: expectedFinalizerAnnotation('prot.podopslifecycle.kusionstack.io/x') });
    assert.deepEqual(protocol, completing);
  });

  test('all finished with two IDs: everything removed', () => {
    const { protocol } = onePass({
      labels: {
        ...completing,
        [L('operated', 'b')]: '1',
        [L('done-operation-type', 'b')]: 'restart',
        [L('post-checked', 'b')]: '1',
        [L('completing', 'b')]: '1',
      },
    });
    assert.deepEqual(protocol, {});
  });
});

describe('mutatePod: admission plumbing', () => {
  test('CREATE injects the readiness gate once, with a JSON patch appending to existing gates', () => {
    const created = mutatePod({ operation: 'CREATE', pod: pod({ gate: false }), oldPod: undefined, now: NOW });
    assert.equal(created.readinessGateAdded, true);
    assert.deepEqual(created.patch, [{ op: 'add', path: '/spec/readinessGates', value: [{ conditionType: SERVICE_READY_GATE }] }]);

    const withOther = pod({ gate: false });
    withOther.spec!.readinessGates = [{ conditionType: 'example.com/other' }];
    const appended = mutatePod({ operation: 'CREATE', pod: withOther, oldPod: undefined, now: NOW });
    assert.deepEqual(appended.patch, [{ op: 'add', path: '/spec/readinessGates/-', value: { conditionType: SERVICE_READY_GATE } }]);

    assert.equal(mutatePod({ operation: 'CREATE', pod: pod(), oldPod: undefined, now: NOW }).readinessGateAdded, false);
    assert.equal(mutatePod({ operation: 'UPDATE', pod: pod({ gate: false }), oldPod: pod({ gate: false }), now: NOW }).readinessGateAdded, false);
  });

  test('label changes become escaped JSON patch operations', () => {
    const { patch } = mutate({ labels: { [L('operating', 'a')]: '1', [L('operation-type', 'a')]: 'upgrade', [SERVICE_AVAILABLE_LABEL]: '1' } });
    assert.deepEqual(patch, [{ op: 'add', path: '/metadata/labels/pre-check.podopslifecycle.kusionstack.io~1a', value: STAMP }]);
  });

  test('a pod without the control label is never touched', () => {
    const result = mutatePod({
      operation: 'CREATE',
      pod: pod({ controlled: false, gate: false, labels: { [L('operating', 'a')]: '1' } }),
      oldPod: undefined,
      now: NOW,
    });
    assert.deepEqual(result.patch, []);
    assert.equal(result.readinessGateAdded, false);
  });

  test('a bare lifecycle key is an error naming the key', () => {
    assert.throws(
      () => mutate({ labels: { 'operating.podopslifecycle.kusionstack.io': '1' } }),
      (err: unknown) => err instanceof InvalidLabelError && err.message === 'invalid label operating.podopslifecycle.kusionstack.io',
    );
  });

  test('a malformed available-conditions annotation is an error when cleanup has to read it', () => {
    assert.throws(
      () => mutate({ labels: completing, annotations: { [AVAILABLE_CONDITIONS_ANNOTATION]: '{not json' } }),
      InvalidAnnotationError,
    );
  });
});

describe('mutatePod: cases upstream does not cover', () => {
  test('pods/status path: the gate turning False promotes preparing to operate in the same request', () => {
    const labels = {
      [L('operating', 'a')]: '1',
      [L('operation-type', 'a')]: 'upgrade',
      [L('pre-checked', 'a')]: '1',
      [PERM('upgrade')]: '1',
      [L('preparing', 'a')]: '1',
    };
    const { protocol } = mutate({ labels, serviceReady: 'False' }, { labels, serviceReady: 'True' });
    assert.equal(protocol[L('operate', 'a')], STAMP);
    assert.equal(protocol[L('preparing', 'a')], undefined);
  });

  test('a protection finalizer keeps the pod in preparing while the condition exists', () => {
    const { protocol } = mutate({
      serviceReady: 'False',
      finalizers: ['prot.podopslifecycle.kusionstack.io/lb'],
      labels: { [L('operating', 'a')]: '1', [L('operation-type', 'a')]: 'upgrade', [L('pre-checked', 'a')]: '1', [PERM('upgrade')]: '1' },
    });
    assert.equal(protocol[L('preparing', 'a')], STAMP);
    assert.equal(protocol[L('operate', 'a')], undefined);
  });

  test('multi-ID synchronisation: an ID that finished waits at operate until the other finishes too', () => {
    const base = {
      [L('pre-checked', 'a')]: '1',
      [L('operate', 'a')]: '1',
      [L('operation-type', 'a')]: 'upgrade',
      [L('operating', 'b')]: '1',
      [L('operation-type', 'b')]: 'restart',
      [L('pre-checked', 'b')]: '1',
      [L('operate', 'b')]: '1',
      [PERM('upgrade')]: '1',
      [PERM('restart')]: '1',
    };
    const waiting = mutate({ labels: base, serviceReady: 'False' }, { labels: { ...base, [L('operating', 'a')]: '1' } });
    assert.deepEqual(waiting.changes, []);

    const { [L('operating', 'b')]: _b, ...bothDone } = base;
    const { protocol } = mutate({ labels: bothDone, serviceReady: 'False' }, { labels: base });
    assert.deepEqual(protocol, {
      [L('operated', 'a')]: STAMP,
      [L('done-operation-type', 'a')]: 'upgrade',
      [L('post-check', 'a')]: STAMP,
      [L('operated', 'b')]: STAMP,
      [L('done-operation-type', 'b')]: 'restart',
      [L('post-check', 'b')]: STAMP,
    });
  });

  test('undo after operated removes every label of the ID', () => {
    const { protocol } = mutate({
      labels: {
        [L('operated', 'a')]: '1',
        [L('done-operation-type', 'a')]: 'upgrade',
        [L('post-check', 'a')]: '1',
        [L('undo-operation-type', 'a')]: 'upgrade',
      },
    });
    assert.deepEqual(protocol, {});
  });

  test('an undo label on an ID that has no lifecycle stays (nothing to undo)', () => {
    const { protocol } = mutate({ labels: { [L('undo-operation-type', 'x')]: 'upgrade' } });
    assert.deepEqual(protocol, { [L('undo-operation-type', 'x')]: 'upgrade' });
  });

  test('undo of the only pre-checked ID of a type drops the permission although another ID of that type is in pre-check', () => {
    const { protocol } = mutate({
      labels: {
        [L('operating', 'a')]: '1',
        [L('operation-type', 'a')]: 'restart',
        [L('pre-checked', 'a')]: '1',
        [L('operate', 'a')]: '1',
        [L('undo-operation-type', 'a')]: 'restart',
        [PERM('restart')]: '1',
        [L('operating', 'b')]: '1',
        [L('operation-type', 'b')]: 'restart',
        [L('pre-check', 'b')]: '1',
      },
    });
    assert.deepEqual(protocol, { [L('operating', 'b')]: '1', [L('operation-type', 'b')]: 'restart', [L('pre-check', 'b')]: '1' });
    assert.deepEqual(validatePod(pod({ labels: protocol })), [], 'upstream keeps the permission, and validation then denies the undo');
  });

  test('an ID that begins after another is operated still reaches operated (upstream deadlocks here)', () => {
    const old = {
      [L('operated', 'a')]: '1',
      [L('done-operation-type', 'a')]: 'upgrade',
      [L('post-checked', 'a')]: '1',
      [L('completing', 'a')]: '1',
      [L('operating', 'b')]: '1',
      [L('operation-type', 'b')]: 'restart',
      [L('pre-checked', 'b')]: '1',
      [PERM('restart')]: '1',
      [L('operate', 'b')]: '1',
    };
    const { [L('operating', 'b')]: _b, ...finished } = old;
    const { protocol } = mutate({ labels: finished, serviceReady: 'False' }, { labels: old });
    assert.equal(protocol[L('operated', 'b')], STAMP);
    assert.equal(protocol[L('done-operation-type', 'b')], 'restart');
    assert.equal(protocol[L('post-check', 'b')], STAMP);
    assert.equal(protocol[L('completing', 'a')], '1');
    assert.equal(protocol[PERM('restart')], undefined);
  });

  test('a pod created with operate and operation-type gets done-operation-type from the incoming object', () => {
    const result = mutatePod({
      operation: 'CREATE',
      pod: pod({ labels: { [L('operate', 'a')]: '1', [L('operation-type', 'a')]: 'upgrade' } }),
      oldPod: undefined,
      now: NOW,
    });
    assert.equal(result.labels[L('operated', 'a')], STAMP);
    assert.equal(result.labels[L('done-operation-type', 'a')], 'upgrade');
  });
});

describe('mutatePod: repeating the pass to a fixpoint (divergence from upstream)', () => {
  const postChecked = {
    [L('operated', 'a')]: '1',
    [L('done-operation-type', 'a')]: 'upgrade',
    [L('post-checked', 'a')]: '1',
  };

  test('post-checked with no expected finalizers: completing and cleanup in the same request', () => {
    assert.equal(onePass({ labels: postChecked }).protocol[L('completing', 'a')], STAMP, 'upstream stops at completing');
    assert.deepEqual(mutate({ labels: postChecked }).protocol, {});
  });

  test('post-checked with an expected finalizer missing: completing stays visible until it is added', () => {
    const { protocol } = mutate({ labels: postChecked, annotations: expectedFinalizerAnnotation('prot.podopslifecycle.kusionstack.io/x') });
    assert.deepEqual(protocol, { ...postChecked, [L('completing', 'a')]: STAMP });
  });

  test('undo of one ID releases another that waits at operate in the same request', () => {
    const labels = {
      [L('operating', 'a')]: '1',
      [L('operation-type', 'a')]: 'upgrade',
      [L('undo-operation-type', 'a')]: 'upgrade',
      [L('operate', 'b')]: '1',
      [L('operation-type', 'b')]: 'restart',
      [L('pre-checked', 'b')]: '1',
      [PERM('restart')]: '1',
      [PERM('upgrade')]: '1',
    };
    assert.equal(onePass({ labels }).protocol[L('operate', 'b')], '1', 'upstream: b waits for the next write');
    assert.deepEqual(mutate({ labels }).protocol, {
      [L('operated', 'b')]: STAMP,
      [L('done-operation-type', 'b')]: 'restart',
      [L('post-check', 'b')]: STAMP,
    });
  });

  test('the mutation applied to its own result changes nothing', () => {
    const first = mutatePod({ operation: 'UPDATE', pod: pod({ labels: postChecked, serviceReady: 'False' }), oldPod: undefined, now: NOW });
    const again = mutatePod({ operation: 'UPDATE', pod: pod({ labels: first.labels, serviceReady: 'False' }), oldPod: undefined, now: NOW + 1n });
    assert.deepEqual(again.changes, []);
  });
});

describe('mutatePod: service-available folded into the write that ends the last lifecycle', () => {
  const finalizer = 'prot.podopslifecycle.kusionstack.io/x';
  // The cooperation controller's write that puts its protection finalizer back on a Ready, completing pod.
  const readded = (options: Partial<PodOptions> = {}): PodOptions => ({
    labels: { ...completing, [POD_COMPLETING_LABEL]: '1' },
    annotations: expectedFinalizerAnnotation(finalizer),
    finalizers: [finalizer],
    serviceReady: 'True',
    ready: true,
    ...options,
  });

  test('the cleanup write of a Ready pod also sets service-available and drops the pod-level completing label', () => {
    assert.deepEqual(mutate(readded()).protocol, { [SERVICE_AVAILABLE_LABEL]: STAMP });
    assert.equal(onePass(readded()).protocol[SERVICE_AVAILABLE_LABEL], undefined, 'upstream\'s pass leaves it to the controller');
  });

  test('left to the lifecycle controller: a pod not Ready, one kept offline, one still waiting for its finalizer, one without a lifecycle', () => {
    assert.equal(mutate(readded({ ready: false })).protocol[SERVICE_AVAILABLE_LABEL], undefined);
    const offline = mutate(readded({ labels: { ...completing, [STAY_OFFLINE_LABEL]: 'true' } })).protocol;
    assert.deepEqual(offline, { [STAY_OFFLINE_LABEL]: 'true' });
    assert.deepEqual(mutate(readded({ finalizers: [] })).protocol, { ...completing, [POD_COMPLETING_LABEL]: '1' });
    assert.deepEqual(mutate({ labels: { [POD_CREATING_LABEL]: '1' }, serviceReady: 'True', ready: true }).changes, [], 'a new pod is the controller\'s to mark');
  });

  test('an undo ends the last lifecycle too, but the pod is back in service only once its expected finalizers are', () => {
    const undone = (finalizers: string[]): PodOptions => ({
      labels: { [L('operating', 'a')]: '1', [L('operation-type', 'a')]: 'upgrade', [L('preparing', 'a')]: '1', [L('undo-operation-type', 'a')]: 'upgrade' },
      annotations: expectedFinalizerAnnotation(finalizer),
      finalizers,
      serviceReady: 'False',
      ready: true,
    });
    assert.deepEqual(mutate(undone([])).protocol, {}, 'the load balancer has not registered the pod again');
    assert.deepEqual(mutate(undone([finalizer])).protocol, { [SERVICE_AVAILABLE_LABEL]: STAMP });
  });
});
