// A held DaemonSet's old pods are replaced by podops in batches within the user's maxUnavailable, never past
// the point being stepped to.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { daemonSetMaxUnavailable, daemonSetReplacements, type DaemonPod } from './daemonset.ts';

const pod = (name: string, isNew: boolean, available = true, terminating = false): DaemonPod => ({ name, isNew, available, terminating });
const old = (n: number, from = 0): DaemonPod[] => Array.from({ length: n }, (_, i) => pod(`old-${from + i}`, false));

describe('daemonSetReplacements', () => {
  test('no more at once than maxUnavailable, in name order', () => {
    assert.deepEqual(daemonSetReplacements(old(5), 3, 1), ['old-0']);
    assert.deepEqual(daemonSetReplacements(old(5), 3, 2), ['old-0', 'old-1']);
    assert.deepEqual(daemonSetReplacements(old(5), 3, 10), ['old-0', 'old-1', 'old-2']);
  });

  test('never past the point: new pods and old pods on their way out count', () => {
    assert.deepEqual(daemonSetReplacements([pod('new-0', true), ...old(4)], 3, 5), ['old-0', 'old-1']);
    assert.deepEqual(daemonSetReplacements([pod('old-9', false, false, true), ...old(4)], 3, 5), ['old-0', 'old-1']);
    assert.deepEqual(daemonSetReplacements([pod('new-0', true), pod('new-1', true), ...old(3)], 2, 5), []);
    assert.deepEqual(daemonSetReplacements(old(3), 0, 5), []);
  });

  test('a terminating new pod is replaced with a new one too: it counts towards the point', () => {
    assert.deepEqual(daemonSetReplacements([pod('new-0', true, false, true), ...old(4)], 2, 5), ['old-0']);
  });

  test('pods unavailable or on their way out use the budget', () => {
    assert.deepEqual(daemonSetReplacements([pod('new-0', true, false), ...old(4)], 4, 2), ['old-0']);
    assert.deepEqual(daemonSetReplacements([pod('old-9', false, false, true), ...old(4)], 4, 1), []);
    assert.deepEqual(daemonSetReplacements([pod('new-0', true, false), pod('new-1', true, false), ...old(4)], 4, 2), []);
  });

  test('unavailable old pods go first, and cost nothing', () => {
    const pods = [...old(3), pod('old-8', false, false), pod('old-9', false, false)];
    assert.deepEqual(daemonSetReplacements(pods, 3, 1), ['old-8', 'old-9']);
    assert.deepEqual(daemonSetReplacements(pods, 5, 3), ['old-8', 'old-9', 'old-0']);
    assert.deepEqual(daemonSetReplacements(pods, 1, 3), ['old-8']);
  });
});

describe('daemonSetMaxUnavailable', () => {
  const user = (maxUnavailable: unknown) => ({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable } } }) as never;

  test('the DaemonSet default is 1', () => {
    assert.equal(daemonSetMaxUnavailable({}, 10), 1);
    assert.equal(daemonSetMaxUnavailable({ updateStrategy: { type: 'RollingUpdate' } }, 10), 1);
  });

  test('an int as it is', () => assert.equal(daemonSetMaxUnavailable(user(3), 10), 3));

  test('a percentage of the desired pods, rounded up as the DaemonSet controller does', () => {
    assert.equal(daemonSetMaxUnavailable(user('30%'), 5), 2);
    assert.equal(daemonSetMaxUnavailable(user('20%'), 10), 2);
    assert.equal(daemonSetMaxUnavailable(user('100%'), 7), 7);
  });

  test('at least 1: a maxSurge-only update is replaced one at a time here', () => {
    assert.equal(daemonSetMaxUnavailable(user(0), 10), 1);
    assert.equal(daemonSetMaxUnavailable(user('0%'), 10), 1);
    assert.equal(daemonSetMaxUnavailable(user('50%'), 0), 1);
  });
});
