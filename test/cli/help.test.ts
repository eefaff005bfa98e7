// `podops --help`, `podops <command> --help` and `podops --version`, and which modules a command loads.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { commands } from '../../src/cli/main.ts';
import { podopsVersion } from '../../src/kube/version.ts';
import { runCli } from '../support/cli.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string };

/** The entries of the Options and Environment sections: each flag, the column its description starts in, the description. */
function optionEntries(help: string): { section: string; flags: string; column: number; description: string[] }[] {
  const entries: { section: string; flags: string; column: number; description: string[] }[] = [];
  let section: string | undefined;
  for (const line of help.split('\n')) {
    if (/^(Options|Environment):$/.test(line)) section = line;
    else if (line.trim() === '') section = undefined;
    else if (section && /^ {2}\S/.test(line)) {
      const inline = /^ {2}(\S.*?) {2,}(\S.*)$/.exec(line);
      entries.push({ section, flags: inline?.[1] ?? line.trim(), column: inline ? line.length - inline[2]!.length : -1, description: inline ? [inline[2]!] : [] });
    } else if (section) {
      const entry = entries.at(-1)!;
      const column = line.length - line.trimStart().length;
      if (entry.column === -1) entry.column = column;
      assert.equal(column, entry.column, `"${line}" continues the description of ${entry.flags} in its column`);
      entry.description.push(line.trim());
    }
  }
  return entries;
}

describe('podops <command> --help', () => {
  for (const { name } of commands) {
    test(`${name}: every option is described, each description starting in one column`, async () => {
      const { code, stdout } = await runCli([name, '--help']);
      assert.equal(code, 0);
      const entries = optionEntries(stdout);
      assert.ok(entries.some((e) => e.section === 'Options:'), `podops ${name} --help has an Options section:\n${stdout}`);
      for (const section of new Set(entries.map((e) => e.section))) {
        const columns = new Set(entries.filter((e) => e.section === section).map((e) => e.column));
        assert.equal(columns.size, 1, `podops ${name} --help: the descriptions of ${section} start in one column:\n${stdout}`);
      }
      for (const { flags, description } of entries) {
        assert.match(flags, /^(-\w, )?--[a-z-]+( [A-Z][A-Z/]*)?$|^[A-Z_]+$/, `podops ${name} --help: "${flags}" is a flag and its value`);
        assert.match(description.join(' '), /^(?!e\.g\.)[A-Za-z]/, `podops ${name} --help: ${flags} says what it does, not only its default or an example`);
      }
    });
  }
});

describe('podops --help and --version', () => {
  test('--version, -v and version print the version in package.json', async () => {
    for (const flag of ['--version', '-v', 'version']) assert.deepEqual(await runCli([flag]), { code: 0, stdout: `podops ${version}\n`, stderr: '' });
  });

  test('the version is found from the built module too (dist/src/kube/version.js, a level deeper)', () => {
    assert.equal(podopsVersion(`${root}dist/src/kube/version.js`), version);
  });

  test('the command list names every command and --version', async () => {
    const { code, stdout } = await runCli(['--help']);
    assert.equal(code, 0);
    assert.match(stdout, /^ {7}podops --version$/m);
    for (const { name, summary } of commands) assert.match(stdout, new RegExp(`^  ${name} +${summary.replace(/[()]/g, '\\$&')}$`, 'm'));
  });
});

test('a command loads only its own modules: `podops operator` carries neither the sandbox, the dashboard nor the other commands', async () => {
  // Records every module of the repository the process loads (the sandbox package's included), and prints them
  // when it exits.
  const rootUrl = new URL('../../', import.meta.url).href;
  const recorder = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    process.on('exit', () => process.stderr.write(JSON.stringify(loaded.filter((u) => u.startsWith(${JSON.stringify(rootUrl)}) && !u.includes('/node_modules/')))));`;
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(recorder)}`, 'src/cli/main.ts', 'operator', '--help'], { cwd: root });
  assert.match(stdout, /^Usage: podops operator/);
  const loaded = (JSON.parse(stderr) as string[]).map((url) => url.slice(rootUrl.length));
  assert.ok(loaded.includes('src/cli/commands/operator.ts'), loaded.join('\n'));
  const others = (path: string): boolean => path.startsWith('packages/sandbox/') || path.startsWith('src/dashboard/') || (path.startsWith('src/cli/commands/') && path !== 'src/cli/commands/operator.ts') || path === 'src/cli/local-stack.ts';
  assert.deepEqual(loaded.filter(others), []);
});
