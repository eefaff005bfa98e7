import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../meta/object.ts';
import { duplicatedIndexPods, firstPendingIndexes, formatIntervals, matchSuccessPolicy, parseIntervals, totalIndexes, withIndexes } from './job-indexes.ts';

const pod = (name: string, index?: number): KubeObject => ({
  metadata: { name, ...(index === undefined ? {} : { annotations: { 'batch.kubernetes.io/job-completion-index': String(index) } }) },
  status: { phase: 'Running' },
});

test('completedIndexes: intervals written as the controller writes them, neighbours with a comma', () => {
  const intervals = withIndexes([], [0, 1, 3, 4, 5, 7]);
  assert.equal(formatIntervals(intervals), '0,1,3-5,7');
  assert.equal(totalIndexes(intervals), 6);
  assert.deepEqual(parseIntervals('0,1,3-5,7', 10), [
    { first: 0, last: 1 },
    { first: 3, last: 5 },
    { first: 7, last: 7 },
  ]);
  assert.deepEqual(parseIntervals('2-9,x,12', 5), [{ first: 2, last: 4 }], 'cut at completions; corrupt parts skipped');
  assert.equal(formatIntervals(withIndexes(parseIntervals('0,2', 5), [1])), '0-2');
});

test('pending indexes skip succeeded and active ones; repeated and invalid indexes are removed first', () => {
  assert.deepEqual(firstPendingIndexes([pod('a', 1), pod('b', 4)], parseIntervals('0,3', 6), 3, 6), [2, 5]);
  // Of two pods with index 0 the unscheduled one goes; no index and index 9 (>= completions) go too.
  const scheduled = { ...pod('a', 0), spec: { nodeName: 'node-1' } };
  const { remove, keep } = duplicatedIndexPods([scheduled, pod('b', 0), pod('c'), pod('d', 9), pod('e', 1)], 3);
  assert.deepEqual(remove.map((p) => p.metadata.name).sort(), ['b', 'c', 'd']);
  assert.deepEqual(keep.map((p) => p.metadata.name), ['a', 'e']);
});

test('success policy rules: all listed indexes, or succeededCount of them, or succeededCount overall', () => {
  const succeeded = parseIntervals('0-2,5', 10);
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '0-3' }] }, 10, succeeded), undefined);
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '0-3' }, { succeededIndexes: '1,5' }] }, 10, succeeded), 'Matched rules at index 1');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '2-6', succeededCount: 2 }] }, 10, succeeded), 'Matched rules at index 0');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededCount: 5 }] }, 10, succeeded), undefined);
  assert.equal(matchSuccessPolicy({ rules: [{ succeededCount: 4 }] }, 10, succeeded), 'Matched rules at index 0');
});
