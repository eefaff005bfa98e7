import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { L, PERM, pod } from '../support/pods.ts';
import { runCli } from '../support/cli.ts';

const T0 = 1717505885197871195n;
const at = (offsetMs: number): string => (T0 + BigInt(offsetMs) * 1_000_000n).toString();
const nowMs = Number(T0 / 1_000_000n) + 12_000;

const preparingPod = pod({
  name: 'web-0',
  serviceReady: 'False',
  ready: false,
  finalizers: ['prot.podopslifecycle.kusionstack.io/5f1c2a3b4d5e6f70'],
  labels: {
    [L('operating', 'upgrade')]: at(0),
    [L('operation-type', 'upgrade')]: 'update',
    [L('pre-checked', 'upgrade')]: at(400),
    [PERM('update')]: at(400),
    [L('preparing', 'upgrade')]: at(410),
  },
});

describe('podops inspect', () => {
  test('prints the lifecycle, its phase, timeline, and the protection finalizers it waits for', async () => {
    const { code, stdout } = await runCli(['inspect', '-'], { stdin: JSON.stringify(preparingPod), now: nowMs });
    assert.equal(code, 0);
    assert.equal(
      stdout,
      [
        'Pod default/web-0',
        '  phase: Preparing',
        '  lifecycle upgrade (type update): Preparing for 11s',
        '    2024-06-04T12:58:05.197Z  operating',
        '    2024-06-04T12:58:05.597Z  pre-checked',
        '    2024-06-04T12:58:05.597Z  operation-permission',
        '    2024-06-04T12:58:05.607Z  preparing',
        '    waiting for protection finalizers: prot.podopslifecycle.kusionstack.io/5f1c2a3b4d5e6f70',
        '',
      ].join('\n'),
    );
  });

  test('reads YAML lists from a file and reports every pod; JSON output keeps nanosecond strings', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'podops-inspect-'));
    const file = join(dir, 'pods.yaml');
    const available = pod({ name: 'web-1', ready: true, serviceReady: 'True', labels: { 'podopslifecycle.kusionstack.io/service-available': at(0) } });
    await writeFile(file, stringify({ apiVersion: 'v1', kind: 'List', items: [preparingPod, available] }));
    const text = await runCli(['inspect', file], { now: nowMs });
    assert.equal(text.code, 0);
    assert.match(text.stdout, /Pod default\/web-1\n {2}phase: ServiceAvailable since 2024-06-04T12:58:05\.197Z \(11s\)/);
    const json = await runCli(['inspect', file, '-o', 'json']);
    const reports = JSON.parse(json.stdout) as { name: string; phase: string; lifecycles: { timeline: { at: string }[] }[] }[];
    assert.deepEqual(reports.map((r) => [r.name, r.phase]), [['web-0', 'Preparing'], ['web-1', 'ServiceAvailable']]);
    assert.equal(reports[0]?.lifecycles[0]?.timeline[0]?.at, at(0));
  });

  test('reports protocol problems the validating webhook would reject', async () => {
    const broken = pod({ labels: { [L('pre-checked', 'x')]: at(0) } });
    const { stdout } = await runCli(['inspect', '-'], { stdin: JSON.stringify(broken) });
    assert.match(stdout, /problem: not found the expected label prefixes: map\[operation-permission\.podopslifecycle\.kusionstack\.io:\{\}\]/);
  });

  test('a pod that is not controlled says so', async () => {
    const { stdout } = await runCli(['inspect', '-'], { stdin: JSON.stringify(pod({ controlled: false })) });
    assert.match(stdout, /not controlled by PodOpsLifecycle: label kusionstack\.io\/control=true is missing/);
  });

  const failures: [string, string[], string, RegExp][] = [
    ['empty input', ['inspect', '-'], '', /^podops inspect: stdin is empty: expected Kubernetes objects as JSON or YAML\n$/],
    ['not JSON or YAML', ['inspect', '-'], '# podops\n\nA paragraph that wraps\nonto a second line: with a colon.\n', /^podops inspect: stdin: not YAML or JSON: Implicit keys need to be on a single line \(line 3, column 1\)\n$/],
    ['another kind', ['inspect', '-'], '{"kind":"Service","metadata":{}}', /^podops inspect: stdin: expected a Pod, got kind "Service"\n$/],
    ['no metadata', ['inspect', '-'], '{"kind":"Pod"}', /^podops inspect: stdin: not a Pod: metadata is missing\n$/],
    ['labels not strings', ['inspect', '-'], '{"metadata":{"labels":{"a":1}}}', /^podops inspect: stdin: metadata.labels must map strings to strings\n$/],
    ['a missing file', ['inspect', '/nonexistent/pod.yaml'], '', /^podops inspect: cannot read \/nonexistent\/pod\.yaml: no such file or directory\n$/],
    ['an unknown flag', ['inspect', '--bogus'], '', /^podops inspect: unknown option "--bogus" \(see podops inspect --help\)\n$/],
  ];
  for (const [name, args, stdin, message] of failures) {
    test(`bad input (${name}) exits 2 with a clear message`, async () => {
      const result = await runCli(args, { stdin });
      assert.equal(result.code, 2);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '');
    });
  }

  test('the podops entry point runs as a process and reads stdin', async () => {
    const child = promisify(execFile)(process.execPath, ['src/cli/main.ts', 'inspect', '-'], { encoding: 'utf8' });
    child.child.stdin?.end(JSON.stringify(preparingPod));
    const { stdout } = await child;
    assert.match(stdout, /lifecycle upgrade \(type update\): Preparing/);
  });
});
