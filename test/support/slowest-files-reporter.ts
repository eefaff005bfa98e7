// The reporter of `npm test`: node:test's `dot` output, then the test files that took longest, so that a file
// that grows slow is seen in the run where it happens. One reporter rather than two on the same stdout, whose
// closing lines would interleave.

import { relative, resolve } from 'node:path';
import { dot, type TestEvent } from 'node:test/reporters';

/** How many files the list shows: 15, or PODOPS_SLOWEST_FILES (a number) to see more. */
const SHOWN = Number(process.env.PODOPS_SLOWEST_FILES) || 15;

interface FileTime {
  /** The wall time of the file's own process (start, imports and every test), when the runner reported it. */
  processMs?: number;
  /** The durations of the file's top-level tests and suites added up: the fallback without process isolation. */
  topLevelMs: number;
  tests: number;
  failed: boolean;
}

export default async function* dotThenSlowestFiles(source: AsyncIterable<TestEvent>): AsyncGenerator<string, void> {
  const started = Date.now();
  const files = new Map<string, FileTime>();
  yield* dot(recording(source, files));
  yield* slowest(files, Date.now() - started);
}

async function* recording(source: AsyncIterable<TestEvent>, files: Map<string, FileTime>): AsyncGenerator<TestEvent, void> {
  const fileTime = (file: string): FileTime => {
    let time = files.get(file);
    if (!time) files.set(file, (time = { topLevelMs: 0, tests: 0, failed: false }));
    return time;
  };

  // test:complete comes when a test ends, whatever order files run in, so concurrent files do not mix up.
  for await (const event of source) {
    yield event;
    if (event.type !== 'test:complete' || event.data.file === undefined) continue;
    const { file, name, nesting, details } = event.data;
    const time = fileTime(file);
    if (!details.passed) time.failed = true;
    if (nesting !== 0) {
      if (details.type !== 'suite') time.tests++;
    } else if (resolve(name) === file) {
      // With process isolation (the default), the runner reports each file as a test of its own, named by its path.
      time.processMs = details.duration_ms;
    } else {
      time.topLevelMs += details.duration_ms;
      if (details.type !== 'suite') time.tests++;
    }
  }
}

function* slowest(files: Map<string, FileTime>, wallMs: number): Generator<string, void> {
  const ranked = [...files].map(([file, time]) => ({ file, ms: time.processMs ?? time.topLevelMs, time }));
  if (ranked.length === 0) return;
  ranked.sort((a, b) => b.ms - a.ms);
  const totalMs = ranked.reduce((sum, { ms }) => sum + ms, 0);
  yield `\nSlowest ${Math.min(SHOWN, ranked.length)} of ${ranked.length} test files (each file's own wall time):\n`;
  for (const { file, ms, time } of ranked.slice(0, SHOWN)) {
    const mark = time.failed ? '  FAILED' : '';
    yield `${seconds(ms).padStart(8)}  ${relative(process.cwd(), file)} (${time.tests} ${time.tests === 1 ? 'test' : 'tests'})${mark}\n`;
  }
  yield `The files' times add up to ${seconds(totalMs)}; the run took ${seconds(wallMs)}.\n`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
