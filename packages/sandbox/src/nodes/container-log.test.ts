import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatFixedNano, loggedLines } from './container-log.ts';
import type { ContainerInstance } from './pod-runtime.ts';

const instance = (finishedMono?: number): ContainerInstance => ({
  id: 'x',
  specImage: 'busybox',
  image: 'docker.io/library/busybox:latest',
  imageID: 'sha',
  startedAt: 1_000_000,
  startedMono: 500,
  exitsAt: undefined,
  exitCode: 0,
  ignoresTerm: true,
  output: [
    { atMs: 0, text: 'one\ntw' },
    { atMs: 100, text: 'o\nthr' },
    { atMs: 300, text: 'ee\n' },
  ],
  ...(finishedMono === undefined ? {} : { finished: { at: 1_000_000 + finishedMono - 500, mono: finishedMono, exitCode: 137, reason: 'Error' } }),
});

test('a line is logged when its newline is written, stamped then; an unfinished one only once the process ended', () => {
  assert.deepEqual(loggedLines(instance(), 550), [{ at: 1_000_000, text: 'one\n' }]);
  assert.deepEqual(loggedLines(instance(), 650), [
    { at: 1_000_000, text: 'one\n' },
    { at: 1_000_100, text: 'two\n' },
  ]);
  // Killed at 200 ms: `thr` reached the pipe, `ee\n` never did.
  assert.deepEqual(loggedLines(instance(700), 10_000), [
    { at: 1_000_000, text: 'one\n' },
    { at: 1_000_100, text: 'two\n' },
    { at: 1_000_200, text: 'thr' },
  ]);
});

test('timestamps in Go\'s fixed-width RFC 3339 with nanoseconds', () => {
  assert.equal(formatFixedNano(Date.UTC(2024, 0, 2, 3, 4, 5, 6)), '2024-01-02T03:04:05.006000000Z');
  assert.equal(formatFixedNano(Date.UTC(2024, 0, 2, 3, 4, 5) + 0.25), '2024-01-02T03:04:05.000250000Z');
});
