// The README's tour, played as a user plays it: its commands in the order it gives them, kubectl as kubectl (a real
// client, through bash, as a terminal runs it) and `podops` as the alias runs it, against `podops up`'s stack started
// in this process. What each command prints is compared with the output the README shows after it, by shape (pod
// names, hashes, ages and node names differ from run to run), so a README that no longer says what the tour does
// fails here. The README's commands are read from the README itself: the tour's ```sh blocks are run, and a ```text
// block after one is the output of its last command (of its background command, when it has one).

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { startLocalStack, type LocalStack } from '../../src/cli/local-stack.ts';
import { runCli } from '../support/cli.ts';
import { skipWithoutKubectl } from '../support/kubectl.ts';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const TOUR_HEADING = '## A five-minute tour';

if (skipWithoutKubectl) console.log(`# skipping the README tour: ${skipWithoutKubectl}`);

/** One command of the tour, the output the README shows for it (undefined: none shown), and its sh block's number. */
interface TourCommand {
  line: string;
  expected: string[] | undefined;
  block: number;
}

/** The commands of the README's tour in order, with the output shown for each. */
function tourCommands(readme: string): TourCommand[] {
  const start = readme.indexOf(TOUR_HEADING);
  assert.ok(start >= 0, `the README has a section "${TOUR_HEADING}"`);
  const next = readme.indexOf('\n## ', start + TOUR_HEADING.length);
  const section = readme.slice(start, next < 0 ? undefined : next);
  const commands: TourCommand[] = [];
  let outputOf: TourCommand | undefined;
  let blocks = 0;
  for (const [, language, body] of section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
    const lines = (body as string).replace(/\n$/, '').split('\n');
    if (language === 'sh') {
      const block = shellCommands(lines, blocks++);
      commands.push(...block);
      outputOf = block.find((c) => inBackground(c.line)) ?? block.at(-1);
    } else if (language === 'text') {
      assert.ok(outputOf && outputOf.expected === undefined, `the output block "${lines[0]}" follows a sh block of its own`);
      outputOf.expected = lines;
      outputOf = undefined;
    } else {
      assert.fail(`the tour's blocks are sh (commands) or text (their output), not "${language}": ${lines[0]}`);
    }
  }
  return commands;
}

/** The commands of a sh block: one per line, a here-document with the line that opens it. */
function shellCommands(lines: readonly string[], block: number): TourCommand[] {
  const commands: TourCommand[] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i] as string;
    if (line.trim() === '') continue;
    const hereDoc = /<<'?(\w+)'?/.exec(line)?.[1];
    if (hereDoc !== undefined) {
      const end = lines.indexOf(hereDoc, i + 1);
      assert.ok(end > i, `the here-document of "${line}" ends with ${hereDoc}`);
      line = lines.slice(i, end + 1).join('\n');
      i = end;
    }
    commands.push({ line, expected: undefined, block });
  }
  return commands;
}

/**
 * A line of output as the README shows it and as the tour prints it, in one shape: names and hashes made at random
 * (a pod's suffix, a hook Job's rollout id, a template hash), node names, times and ages replaced by placeholders,
 * and runs of spaces (column widths follow the names) made one. ReplicaSet names stay: they hash the pod template.
 */
function shape(line: string): string {
  return line
    .replace(/\b(web-(?:migrate|smoke|notify))-[0-9a-f]{10}\b/g, '$1-<rollout>')
    .replace(/\b(web-[a-z0-9]{6,10})-[a-z0-9]{5}\b/g, '$1-<pod>')
    .replace(/\(template [0-9a-f]{10}\)/g, '(template <hash>)')
    .replace(/\bnode-\d+\b/g, 'node-<n>')
    .replace(/\b\d{4}-\d\d-\d\dT[\d:.]+Z\b/g, '<time>')
    .replace(/\b(\d+(\.\d+)?(ms|s|m|h|d))+\b/g, '<age>')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Whether the output matches the README's, line by line in shape: a README line `...` stands for any lines, and
 * `...` in a line for any text. With `more`, the output may go on after the README's last line (a watch).
 */
function matches(expected: readonly string[], actual: readonly string[], more = false): boolean {
  const patterns = expected.map((line) => (line === '...' ? undefined : new RegExp(`^${shape(line).split('...').map(escapeRegExp).join('.*')}$`)));
  const lines = actual.map(shape);
  const from = (p: number, a: number): boolean => {
    if (p === patterns.length) return more || a === lines.length;
    const pattern = patterns[p];
    if (pattern === undefined) {
      for (let skip = a; skip <= lines.length; skip++) if (from(p + 1, skip)) return true;
      return false;
    }
    return a < lines.length && pattern.test(lines[a] as string) && from(p + 1, a + 1);
  };
  return from(0, 0);
}

/** The line without its shell comment (the tour's commands have no `#` of their own). */
const withoutComment = (line: string): string => line.replace(/\s+#.*$/, '');

/** A command the tour runs in the background (`&`): a watch. */
const inBackground = (line: string): boolean => withoutComment(line).endsWith('&');

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Lines of output, without the empty last one. */
const linesOf = (output: string): string[] => output.replace(/\n$/, '').split('\n');

/** Commands whose output lists objects: rows in name order, which the README's names (made at random) cannot follow. */
const listsRows = (line: string): boolean => /^(kubectl get (?!.*(-w|-o ))|podops status\b)/.test(line);

/** Commands that only read: run again until their output is the README's, as a user runs them again. */
const onlyReads = (line: string): boolean => /^(kubectl (get|logs)\b|podops (status|rollout status|inspect)\b)/.test(line) || /^kubectl get .* \| podops inspect\b/.test(line);

interface Run {
  code: number;
  output: string;
}

describe('the README tour', { skip: skipWithoutKubectl }, () => {
  let stack: LocalStack;
  let dir: string;
  const stop = new AbortController();
  const variables: Record<string, string> = {};
  let background: { child: ChildProcess; output: () => string; exited: Promise<void> } | undefined;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'podops-tour-'));
    // The demo as `podops up` makes it; the simulated containers start, stop and sleep faster than by default.
    stack = await startLocalStack(
      { port: 0, kubeconfigPath: join(dir, 'kubeconfig'), demo: true, startDelayMs: 100, gracePeriodCapMs: 200, sleepScale: 0.1, log: () => {} },
      stop.signal,
    );
  });
  after(async () => {
    background?.child.kill();
    await background?.exited;
    stop.abort();
    await stack?.done;
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const environment = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: dir, KUBECONFIG: join(dir, 'kubeconfig'), ...variables });

  /** Runs a command line in bash, stdout and stderr in one stream as a terminal shows them. */
  const bash = (line: string, stdin?: string): { child: ChildProcess; done: Promise<Run>; output: () => string } => {
    const child = spawn('bash', ['-c', `exec 2>&1\n${line}`], { env: environment(), stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'inherit'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    if (stdin !== undefined) child.stdin!.end(stdin);
    const done = new Promise<Run>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve({ code: code ?? 1, output }));
    });
    return { child, done, output: () => output };
  };

  /** `podops ARGS` as the alias runs it, in this process: the arguments are the words bash makes of them. */
  const podops = async (args: string, stdin?: string): Promise<Run> => {
    const words = await bash(`printf '%s\\0' ${args}`).done;
    assert.equal(words.code, 0, `bash reads the arguments of podops ${args}`);
    const { code, stdout, stderr } = await runCli(words.output.split('\0').slice(0, -1), { env: { KUBECONFIG: join(dir, 'kubeconfig') }, ...(stdin !== undefined && { stdin }) });
    return { code, output: stdout + stderr };
  };

  const run = async (line: string): Promise<Run> => {
    const piped = /^(.*?) \| podops (.*)$/.exec(line);
    if (piped) {
      const input = await bash(piped[1] as string).done;
      assert.equal(input.code, 0, `${piped[1]}: ${input.output}`);
      return podops(piped[2] as string, input.output);
    }
    if (line.startsWith('podops ')) return podops(line.slice('podops '.length));
    return bash(line).done;
  };

  test('every step prints what the README shows, top to bottom', { timeout: 120_000 }, async (t) => {
    const commands = tourCommands(await readFile(README, 'utf8'));
    /** What the README shows the background watch print, compared once the rest of its block has run. */
    let watched: string[] | undefined;
    const began = Date.now();
    for (const [i, { line, expected, block }] of commands.entries()) {
      const where = `README tour: ${line.split('\n')[0]}`;
      t.diagnostic(`${((Date.now() - began) / 1000).toFixed(1)} s: ${line.split('\n')[0]}`);
      const assignment = /^([A-Z_][A-Z0-9_]*)=\$\((.*)\)$/.exec(line);
      if (line.startsWith('export KUBECONFIG=')) {
        // The kubeconfig of this stack is in the environment already.
      } else if (assignment) {
        const { code, output } = await bash(assignment[2] as string).done;
        assert.equal(code, 0, `${where}: ${output}`);
        assert.notEqual(output.trim(), '', `${where}: a value`);
        variables[assignment[1] as string] = output.trim();
      } else if (inBackground(line)) {
        assert.equal(background, undefined, `${where}: one background job at a time`);
        const job = bash(`exec ${withoutComment(line).replace(/\s*&$/, '')}`);
        background = { child: job.child, output: job.output, exited: job.done.then(() => undefined) };
        // A watch prints the object as it is at once: the rest of the block changes it.
        await until(where, job.output, (output) => output, (output) => output.includes('\n'));
        watched = expected;
      } else if (line === 'kill %1') {
        assert.ok(background, `${where}: a background job to stop`);
        background.child.kill();
        await background.exited;
        background = undefined;
      } else if (expected === undefined) {
        const { code, output } = await run(line);
        assert.equal(code, 0, `${where} exits with 0: ${output}`);
      } else {
        const fits = (output: string): boolean =>
          listsRows(line) ? matches([...expected].sort(byShape), linesOf(output).sort(byShape)) : matches(expected, linesOf(output));
        if (onlyReads(line)) await until(where, () => run(line), (r) => r.output, (r) => fits(r.output), expected);
        else {
          const { output } = await run(line);
          assert.ok(fits(output), mismatch(where, expected, output));
        }
      }
      if (watched !== undefined && commands[i + 1]?.block !== block) {
        const shown = watched;
        watched = undefined;
        const job = background!;
        await until(`${where} (the watch's output)`, job.output, (output) => output, (output) => matches(shown, collapsed(linesOf(output)), true), shown);
      }
    }
  });
});

const byShape = (a: string, b: string): number => (shape(a) < shape(b) ? -1 : shape(a) > shape(b) ? 1 : 0);

/** A watch prints a line per change of the object, also changes no column shows: each shape once in a row. */
const collapsed = (lines: readonly string[]): string[] => lines.filter((line, i) => i === 0 || shape(line) !== shape(lines[i - 1] as string));

const mismatch = (where: string, expected: readonly string[], output: string): string =>
  `${where}: the output is not the README's\n--- README (in shape)\n${expected.map(shape).join('\n')}\n--- printed (in shape)\n${linesOf(output).map(shape).join('\n')}\n--- printed\n${output}`;

/** Runs `read` until `done` holds of what it gives (40 s at most), as a user runs a command again until it shows what the README shows. */
async function until<T>(where: string, read: () => Promise<T> | T, text: (value: T) => string, done: (value: T) => boolean, expected?: readonly string[]): Promise<T> {
  const deadline = Date.now() + 40_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(expected ? mismatch(`${where} (for 40 s)`, expected, text(value)) : `${where}: not within 40 s: ${text(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}
