// Progress points: counts as they are (capped at the replicas), percentages rounded up, hooks of one count
// sharing a point, points in ascending order.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LifecycleHook } from '../api/rolloutlifecycle.ts';
import { pointCount, progressPointProblem, resolvePoints } from './points.ts';

const hook = (name: string, progressPoint: number | string | undefined): LifecycleHook => ({
  name,
  trigger: { progressAvailableParams: progressPoint === undefined ? {} : { progressPoint } },
  jobSpec: {},
});

describe('pointCount', () => {
  test('a count is taken as it is', () => {
    assert.equal(pointCount(0, 10), 0);
    assert.equal(pointCount(3, 10), 3);
    assert.equal(pointCount(10, 10), 10);
  });

  test('a count above the replicas is reached with the last replica', () => {
    assert.equal(pointCount(15, 10), 10);
    assert.equal(pointCount(1, 0), 0);
  });

  test('a percentage is reached at the closest count at or after it', () => {
    assert.equal(pointCount('50%', 4), 2);
    assert.equal(pointCount('50%', 5), 3);
    assert.equal(pointCount('10%', 5), 1);
    assert.equal(pointCount('1%', 30), 1);
    assert.equal(pointCount('99%', 30), 30);
    assert.equal(pointCount('0%', 7), 0);
    assert.equal(pointCount('100%', 7), 7);
    assert.equal(pointCount('33%', 3), 1);
    assert.equal(pointCount('34%', 3), 2);
  });

  test('a percentage of no replicas is 0', () => assert.equal(pointCount('50%', 0), 0));
});

describe('progressPointProblem', () => {
  test('counts and percentages from 0% to 100% are usable', () => {
    for (const point of [0, 1, 40, '0%', '50%', '100%']) assert.equal(progressPointProblem(point), undefined, String(point));
  });

  test('each unusable point says why', () => {
    assert.equal(progressPointProblem(-1), 'must be a non-negative integer');
    assert.equal(progressPointProblem(1.5), 'must be a non-negative integer');
    assert.equal(progressPointProblem(true), 'must be an integer or a percentage');
    assert.equal(progressPointProblem(null), 'must be an integer or a percentage');
    assert.equal(progressPointProblem('5'), 'must be an integer or a percentage such as "50%"');
    assert.equal(progressPointProblem('-5%'), 'must be an integer or a percentage such as "50%"');
    assert.equal(progressPointProblem('50.5%'), 'must be an integer or a percentage such as "50%"');
    assert.equal(progressPointProblem('101%'), 'must be a percentage from 0% to 100%');
  });
});

describe('resolvePoints', () => {
  test('points in ascending order, whatever the order of the hooks', () => {
    const points = resolvePoints([hook('end', '100%'), hook('pre', 0), hook('smoke', '50%')], 4);
    assert.deepEqual(points, [
      { count: 0, progressPoints: ['0'], hooks: ['pre'] },
      { count: 2, progressPoints: ['50%'], hooks: ['smoke'] },
      { count: 4, progressPoints: ['100%'], hooks: ['end'] },
    ]);
  });

  test('hooks of one count share a point, in spec order, each spelling once', () => {
    const points = resolvePoints([hook('a', 2), hook('b', '50%'), hook('c', '40%'), hook('d', 2)], 4);
    assert.deepEqual(points, [{ count: 2, progressPoints: ['2', '50%', '40%'], hooks: ['a', 'b', 'c', 'd'] }]);
  });

  test('counts above the replicas and 100% are the same last point', () => {
    assert.deepEqual(resolvePoints([hook('a', 9), hook('b', '100%'), hook('c', 5)], 5), [{ count: 5, progressPoints: ['9', '100%', '5'], hooks: ['a', 'b', 'c'] }]);
  });

  test('with no replicas every point is 0', () => {
    assert.deepEqual(resolvePoints([hook('a', 3), hook('b', '50%'), hook('c', 0)], 0), [{ count: 0, progressPoints: ['3', '50%', '0'], hooks: ['a', 'b', 'c'] }]);
  });

  test('percentages move with the replicas', () => {
    const hooks = [hook('a', '25%'), hook('b', '75%')];
    assert.deepEqual(resolvePoints(hooks, 4).map((p) => p.count), [1, 3]);
    assert.deepEqual(resolvePoints(hooks, 10).map((p) => p.count), [3, 8]);
    assert.deepEqual(resolvePoints(hooks, 1).map((p) => p.count), [1]);
  });

  test('hooks without a usable point or a name are left out', () => {
    const points = resolvePoints([hook('a', undefined), hook('b', '150%'), hook('c', -1), { ...hook('', 1), name: '' }, hook('d', 1)], 3);
    assert.deepEqual(points, [{ count: 1, progressPoints: ['1'], hooks: ['d'] }]);
  });
});
