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
    ['a --focus that selects nothing', ['--focus', 'nothing-is-called-this'], /^podops conformance: no scenario name matches --focus "nothing-is-called-this"; the scenarios are: lifecycle\/readiness-gate, /],
    // Names only: every scenario's title says "pod", no name does.
    ['a --focus matching only titles', ['--focus', 'pod', '--focus', 'PreCheck'], /^podops conformance: no scenario name matches --focus "pod" or "PreCheck"; the scenarios are: /],
    ['a --skip that leaves out what --focus picked', ['--focus', '^undo/', '--skip', 'undo'], /^podops conformance: no scenario name matches --focus "\^undo\/" without --skip "undo"; /],
    ['a second --focus that is no regular expression', ['--focus', 'undo', '--focus', '*'], /^podops conformance: --focus "\*" is not a valid regular expression: /],
    ['a --parallel of 0', ['--parallel', '0'], /^podops conformance: --parallel must be a whole number from 1 to 1000, got "0"\n$/],
    ['a --parallel that is no number', ['--parallel', 'many'], /^podops conformance: --parallel must be a whole number from 1 to 1000, got "many"\n$/],
    ['a --parallel that is not whole', ['--parallel', '2.5'], /^podops conformance: --parallel must be a whole number from 1 to 1000, got "2\.5"\n$/],
    ['a --parallel beyond any run', ['--parallel', '100000000000000000000'], /^podops conformance: --parallel must be a whole number from 1 to 1000, got "100000000000000000000"\n$/],
    ['a --seed too large for the shuffle', ['--seed', '4294967296'], /^podops conformance: --seed must be a whole number from 0 to 4294967295, got "4294967296"\n$/],
    ['a negative --seed', ['--seed=-1'], /^podops conformance: --seed must be a whole number from 0 to 4294967295, got "-1"\n$/],
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
    assert.match(result.stdout, /--focus REGEX +run only the scenarios whose name matches: a JavaScript regular expression searched\n +in the name \(unanchored/);
    assert.match(result.stdout, /--parallel N +how many scenarios run at once, 1 to 1000 \(default 4\)/);
    assert.match(result.stdout, /--seed N +/);
  });
});
