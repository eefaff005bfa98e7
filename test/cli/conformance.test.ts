// `podops conformance` refuses what it cannot run with one line naming the problem (exit code 2 for options, 1
// for a cluster it cannot reach), before it writes anything to a cluster; --help lists every scenario.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { scenarios } from '../../src/conformance/scenarios/index.ts';
import { runCli } from '../support/cli.ts';
import { freePort } from '../support/wait.ts';

describe('podops conformance options', () => {
  let dir: string;
  let kubeconfig: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'podops-conformance-'));
    kubeconfig = join(dir, 'kubeconfig');
    const server = `https://127.0.0.1:${await freePort()}`;
    await writeFile(
      kubeconfig,
      JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: { server } }], users: [{ name: 'u', user: { token: 't' } }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }], 'current-context': 'x' }),
    );
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const cases: [string, string[], RegExp][] = [
    ['a --focus that is no regular expression', ['--focus', '(lifecycle'], /^podops conformance: --focus "\(lifecycle" is not a valid regular expression: .*Unterminated group/],
    ['a --skip that is no regular expression', ['--skip', '[a'], /^podops conformance: --skip "\[a" is not a valid regular expression: /],
    ['a --focus that selects nothing', ['--focus', 'nothing-is-called-this'], /^podops conformance: no scenario matches --focus "nothing-is-called-this"; the scenarios are: lifecycle\/readiness-gate, /],
    ['an unknown output format', ['-o', 'yaml'], /^podops conformance: unknown output format "yaml": use text, json or junit\n$/],
    ['a --timeout that is no duration', ['--timeout', '10'], /^podops conformance: --timeout must be a duration such as 500ms, 15s or 1m, got "10"\n$/],
    ['a zero --timeout', ['--timeout', '0s'], /^podops conformance: --timeout must be more than 0, got "0s"\n$/],
    ['an empty --image', ['--image', ' '], /^podops conformance: --image must name an image\n$/],
  ];
  for (const [what, args, message] of cases) {
    test(`${what}: exit code 2, one line`, async () => {
      const result = await runCli(['conformance', '--kubeconfig', kubeconfig, ...args]);
      assert.equal(result.code, 2);
      assert.match(result.stderr, message);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.equal(result.stdout, '');
    });
  }

  test('an API server nothing answers for: exit code 1, naming the server', async () => {
    const result = await runCli(['conformance', '--kubeconfig', kubeconfig]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^podops conformance: cannot reach the API server https:\/\/127\.0\.0\.1:\d+: connection refused\n$/);
  });

  test('--help lists every scenario with what it checks', async () => {
    const result = await runCli(['conformance', '--help']);
    assert.equal(result.code, 0);
    for (const scenario of scenarios) assert.ok(result.stdout.includes(scenario.name), scenario.name);
    assert.match(result.stdout, /--focus REGEX/);
  });
});
