// The container convention (docs/sandbox-nodes.md): what a simulated container does, decided from its
// command and args alone. `sleep S` runs S seconds and succeeds; a shell's `-c SCRIPT` is interpreted
// (./shell-run.ts) up to the first command it cannot run; anything else runs until it is stopped.
// What the script prints is the container's log.

import type { JsonObject } from '../meta/object.ts';
import { parseScript } from './shell-parse.ts';
import { runScript, sleepSeconds } from './shell-run.ts';

export interface ProgramWrite {
  /** Milliseconds after the container started (sleeps scaled). */
  atMs: number;
  text: string;
}

export interface ContainerProgram {
  /** How long the process runs before exiting by itself; undefined: until it is stopped. */
  runsForMs: number | undefined;
  /** Its exit code when it exits by itself. */
  exitCode: number;
  /** PID 1 ignores SIGTERM (a shell, sleep): stopping it kills it (exit 137) at the end of the grace period. */
  ignoresTerm: boolean;
  /** What it writes to stdout and stderr, in order. */
  output: ProgramWrite[];
}

const shells = new Set(['sh', 'bash', 'ash', 'dash', 'zsh']);

const basename = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map((v) => String(v)) : []);

/**
 * The kubelet's expansion of `$(NAME)` in command, args and env values, with the variables defined so
 * far: `$$` is a `$`, and a reference to an undefined variable stays as written.
 */
function expandReferences(text: string, vars: ReadonlyMap<string, string>): string {
  return text.replace(/\$\$|\$\(([^)]*)\)/g, (whole, name: string | undefined) => {
    if (name === undefined) return '$';
    return vars.get(name) ?? whole;
  });
}

/** The container's environment: the kubelet's HOSTNAME, then each `env` entry with a literal value. */
function environment(container: JsonObject, hostname: string): Map<string, string> {
  const vars = new Map([['HOSTNAME', hostname]]);
  for (const entry of Array.isArray(container.env) ? container.env : []) {
    const { name, value } = (entry ?? {}) as { name?: unknown; value?: unknown };
    if (typeof name !== 'string') continue;
    vars.set(name, expandReferences(typeof value === 'string' ? value : '', vars));
  }
  return vars;
}

interface Outcome {
  seconds: number;
  exitCode: number;
  writes: { atSeconds: number; text: string }[];
}

function outcomeOf(argv: readonly string[], env: ReadonlyMap<string, string>): { outcome: Outcome | undefined; scripted: boolean } {
  const [program = '', ...rest] = argv;
  const name = basename(program);
  if (name === 'sleep') {
    const s = sleepSeconds(rest[0]);
    return { outcome: s === undefined ? undefined : { seconds: s, exitCode: 0, writes: [] }, scripted: true };
  }
  if (shells.has(name)) {
    const flag = rest.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
    const script = flag >= 0 ? rest[flag + 1] : undefined;
    if (script === undefined) return { outcome: undefined, scripted: true };
    const parsed = parseScript(script);
    // The shell refuses a script it cannot parse before running any of it (exit 2).
    if (parsed.kind === 'syntax-error') return { outcome: { seconds: 0, exitCode: 2, writes: [] }, scripted: true };
    const errexit = rest.slice(0, flag + 1).some((a) => /^-[a-z]*e[a-z]*$/.test(a));
    const args = rest.slice(flag + 2);
    return { outcome: runScript(parsed.lists, { env, args: args.length ? args : [program], errexit }), scripted: true };
  }
  return { outcome: undefined, scripted: false };
}

/**
 * What a container does. `init` containers that would run until stopped exit 0 at once (init containers
 * are meant to finish); `sleepScale` scales every sleep; `hostname` is the pod's.
 */
export function containerProgram(container: JsonObject, sleepScale: number, init: boolean, hostname = ''): ContainerProgram {
  const env = environment(container, hostname);
  const argv = [...strings(container.command), ...strings(container.args)].map((arg) => expandReferences(arg, env));
  const { outcome, scripted } = outcomeOf(argv, env);
  const output = (outcome?.writes ?? []).map((w) => ({ atMs: w.atSeconds * 1000 * sleepScale, text: w.text }));
  if (outcome && Number.isFinite(outcome.seconds)) {
    return { runsForMs: outcome.seconds * 1000 * sleepScale, exitCode: outcome.exitCode, ignoresTerm: scripted, output };
  }
  if (init) return { runsForMs: 0, exitCode: 0, ignoresTerm: scripted, output };
  return { runsForMs: undefined, exitCode: 0, ignoresTerm: scripted, output };
}
