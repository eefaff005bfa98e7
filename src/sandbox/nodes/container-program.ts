// The container convention (docs/sandbox-nodes.md): what a simulated container does, decided from its
// command and args alone. `sleep S` runs S seconds and succeeds; a shell's `-c SCRIPT` is interpreted
// when it only uses `exit`, `sleep`, `true`, `false`, `:`, `echo` and `printf`; anything else runs
// until it is stopped.

import type { JsonObject } from '../meta/object.ts';

export interface ContainerProgram {
  /** How long the process runs before exiting by itself; undefined: until it is stopped. */
  runsForMs: number | undefined;
  /** Its exit code when it exits by itself. */
  exitCode: number;
  /** PID 1 ignores SIGTERM (a shell, sleep): stopping it kills it (exit 137) at the end of the grace period. */
  ignoresTerm: boolean;
}

const shells = new Set(['sh', 'bash', 'ash', 'dash', 'zsh']);
const noOps = new Set([':', 'true', 'echo', 'printf']);

const basename = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map((v) => String(v)) : []);

/** GNU sleep's duration: seconds, with an optional s/m/h/d suffix; Infinity for `infinity`. */
function sleepSeconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (text === 'infinity' || text === 'inf') return Infinity;
  const match = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(text);
  if (!match) return undefined;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

interface Outcome {
  seconds: number;
  exitCode: number;
}

/** Words of one statement, with simple quotes removed. */
const words = (statement: string): string[] =>
  (statement.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((w) => (/^(['"]).*\1$/.test(w) ? w.slice(1, -1) : w));

/** Runs a script's statements in order; undefined when one is not part of the convention. */
function interpretScript(script: string): Outcome | undefined {
  const parts = script.split(/(&&|\|\||;|\n)/);
  let seconds = 0;
  let status = 0;
  let operator = ';';
  for (let i = 0; i < parts.length; i += 2) {
    const statement = (parts[i] ?? '').trim();
    const next = parts[i + 1] ?? ';';
    if (statement === '') {
      operator = next;
      continue;
    }
    const skip = (operator === '&&' && status !== 0) || (operator === '||' && status === 0);
    operator = next;
    if (skip) continue;
    const [verb = '', ...rest] = words(statement);
    if (verb === 'exit') {
      const code = rest[0] === undefined ? status : Number(rest[0]);
      if (!Number.isInteger(code)) return undefined;
      return { seconds, exitCode: ((code % 256) + 256) % 256 };
    }
    if (verb === 'sleep') {
      const s = sleepSeconds(rest[0]);
      if (s === undefined) return undefined;
      seconds += s;
      status = 0;
    } else if (verb === 'false') status = 1;
    else if (noOps.has(verb)) status = 0;
    else return undefined;
  }
  return { seconds, exitCode: status };
}

function outcomeOf(argv: readonly string[]): { outcome: Outcome | undefined; scripted: boolean } {
  const [program = '', ...rest] = argv;
  const name = basename(program);
  if (name === 'sleep') {
    const s = sleepSeconds(rest[0]);
    return { outcome: s === undefined ? undefined : { seconds: s, exitCode: 0 }, scripted: true };
  }
  if (shells.has(name)) {
    const flag = rest.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
    const script = flag >= 0 ? rest[flag + 1] : undefined;
    return { outcome: script === undefined ? undefined : interpretScript(script), scripted: true };
  }
  return { outcome: undefined, scripted: false };
}

/**
 * What a container does. `init` containers that would run until stopped exit 0 at once (init containers
 * are meant to finish); `sleepScale` scales every sleep.
 */
export function containerProgram(container: JsonObject, sleepScale: number, init: boolean): ContainerProgram {
  const argv = [...strings(container.command), ...strings(container.args)];
  const { outcome, scripted } = outcomeOf(argv);
  if (outcome && Number.isFinite(outcome.seconds)) {
    return { runsForMs: outcome.seconds * 1000 * sleepScale, exitCode: outcome.exitCode, ignoresTerm: scripted };
  }
  if (init) return { runsForMs: 0, exitCode: 0, ignoresTerm: scripted };
  return { runsForMs: undefined, exitCode: 0, ignoresTerm: scripted };
}
