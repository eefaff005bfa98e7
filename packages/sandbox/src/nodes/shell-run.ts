// Running a parsed `sh -c SCRIPT` in simulated time: `exit`, `sleep`, `true`, `false`, `:`, `echo`,
// `printf`, `set -e`/`+e`, `export` and variable assignments; `$?`, positional parameters and the
// container's environment in expansions, with field splitting of unquoted ones; `&&`, `||` and
// errexit as POSIX words them. Output written to the container's stdout or stderr is kept with the
// moment it was written. A command of any other kind is a process the sandbox cannot run: the script
// stops there and runs until the container is stopped.

import { echo, printf } from './shell-builtins.ts';
import type { AndOrList, Command, Redirect, Word, WordPart } from './shell-parse.ts';

export interface ShellWrite {
  /** Seconds after the script started (before any sleep scaling). */
  atSeconds: number;
  text: string;
}

export interface ShellOutcome {
  /** Seconds the script runs; Infinity when it reaches something that never ends. */
  seconds: number;
  exitCode: number;
  writes: ShellWrite[];
}

export interface ShellContext {
  /** The container's environment (the kubelet's variables and `env`). */
  env: ReadonlyMap<string, string>;
  /** `$0`, then `$1`…: the arguments after the script. */
  args: readonly string[];
  /** `-e` given on the command line (`sh -ec …`). */
  errexit: boolean;
}

/** GNU sleep's duration: seconds, with an optional s/m/h/d suffix; Infinity for `infinity`. */
export function sleepSeconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (text === 'infinity' || text === 'inf') return Infinity;
  const match = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(text);
  if (!match) return undefined;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/;

class Shell {
  readonly #vars: Map<string, string>;
  readonly #args: readonly string[];
  #errexit: boolean;
  #status = 0;
  #seconds = 0;
  readonly #writes: ShellWrite[] = [];

  constructor(ctx: ShellContext) {
    this.#vars = new Map(ctx.env);
    this.#args = ctx.args;
    this.#errexit = ctx.errexit;
  }

  #param(name: string): string | undefined {
    if (name === '?') return String(this.#status);
    if (name === '$') return '1';
    if (name === '#') return String(Math.max(0, this.#args.length - 1));
    if (name === '@' || name === '*') return this.#args.slice(1).join(' ');
    if (name === '-') return this.#errexit ? 'e' : '';
    if (/^\d$/.test(name)) return name === '0' ? (this.#args[0] ?? 'sh') : this.#args[Number(name)];
    return this.#vars.get(name);
  }

  #expandPart(part: WordPart): string {
    if (part.kind === 'text') return part.text;
    const value = this.#param(part.name);
    const arg = (): string => part.arg.map((p) => this.#expandPart(p)).join('');
    switch (part.op) {
      case '':
        return value ?? '';
      case 'length':
        return String((value ?? '').length);
      case ':-':
        return value ? value : arg();
      case '-':
        return value ?? arg();
      case ':+':
        return value ? arg() : '';
      case '+':
        return value === undefined ? '' : arg();
    }
  }

  /** A word's fields: unquoted expansions split on blanks; a word of nothing but empty unquoted expansions vanishes. */
  #fields(word: Word): string[] {
    const fields: string[] = [];
    let current: string | undefined;
    for (const part of word) {
      const text = this.#expandPart(part);
      if (part.kind === 'text' || part.quoted) {
        current = (current ?? '') + text;
        continue;
      }
      const pieces = text.split(/[ \t\n]+/);
      pieces.forEach((piece, i) => {
        if (i > 0) {
          if (current !== undefined) fields.push(current);
          current = undefined;
        }
        if (piece !== '') current = (current ?? '') + piece;
      });
    }
    if (current !== undefined) fields.push(current);
    return fields;
  }

  /** Output goes to the log unless stdout is sent to a file (stderr is logged too). */
  #logged(redirects: readonly Redirect[]): boolean {
    let logged = true;
    for (const r of redirects) {
      const target = this.#fields(r.target).join(' ');
      if (r.op === '&>' || (r.fd === 1 && ['>', '>>', '>|', '<>'].includes(r.op))) logged = false;
      else if (r.fd === 1 && r.op === '>&') logged = /^[12]$/.test(target);
    }
    return logged;
  }

  #write(text: string, redirects: readonly Redirect[]): void {
    if (text && this.#logged(redirects)) this.#writes.push({ atSeconds: this.#seconds, text });
  }

  /** Runs one command; 'exit' ends the script, 'blocked' means it never ends. */
  #run(command: Command): 'exit' | 'blocked' | undefined {
    if (command.kind === 'unsupported') return 'blocked';
    const words = command.words.map((w) => this.#fields(w));
    const assignments: [string, string][] = [];
    let first = 0;
    for (; first < command.words.length; first++) {
      const word = command.words[first] as Word;
      const head = word[0];
      const match = head?.kind === 'text' && !head.quoted ? assignment.exec(head.text) : null;
      if (!match) break;
      const value = [{ ...head, text: (head as { text: string }).text.slice(match[0].length) }, ...word.slice(1)]
        .map((p) => this.#expandPart(p as WordPart))
        .join('');
      assignments.push([match[1] as string, value]);
    }
    const argv = words.slice(first).flat();
    const [verb, ...rest] = argv;
    if (verb === undefined) {
      for (const [name, value] of assignments) this.#vars.set(name, value);
      this.#status = 0;
      return undefined;
    }
    switch (verb) {
      case 'exit': {
        const code = rest[0] === undefined ? this.#status : Number(rest[0]);
        if (!Number.isInteger(code)) return 'blocked';
        this.#status = ((code % 256) + 256) % 256;
        return 'exit';
      }
      case 'sleep': {
        const durations = rest.map(sleepSeconds);
        if (!durations.length || durations.some((d) => d === undefined)) return 'blocked';
        this.#seconds += durations.reduce((a: number, b) => a + (b as number), 0);
        if (!Number.isFinite(this.#seconds)) return 'blocked';
        this.#status = 0;
        return undefined;
      }
      case 'true':
      case ':':
        this.#status = 0;
        return undefined;
      case 'false':
        this.#status = 1;
        return undefined;
      case 'echo':
      case 'printf': {
        const result = verb === 'echo' ? echo(rest) : printf(rest);
        this.#write(result.text, command.redirects);
        this.#status = result.status;
        return undefined;
      }
      case 'set':
        for (const option of rest) {
          if (/^[-+][a-zA-Z]+$/.test(option) && option.includes('e')) this.#errexit = option.startsWith('-');
        }
        this.#status = 0;
        return undefined;
      case 'export':
        for (const item of rest) {
          const eq = item.indexOf('=');
          if (eq > 0) this.#vars.set(item.slice(0, eq), item.slice(eq + 1));
        }
        this.#status = 0;
        return undefined;
      default:
        return 'blocked';
    }
  }

  run(lists: readonly AndOrList[]): ShellOutcome {
    for (const list of lists) {
      let ran = -1;
      for (let i = 0; i < list.length; i++) {
        const { op, command } = list[i] as AndOrList[number];
        if ((op === '&&' && this.#status !== 0) || (op === '||' && this.#status === 0)) continue;
        const result = this.#run(command);
        if (result === 'blocked') return this.#outcome(Infinity);
        if (result === 'exit') return this.#outcome(this.#seconds);
        ran = i;
      }
      // errexit ignores a failure of any command of an AND-OR list but the last.
      if (this.#errexit && this.#status !== 0 && ran === list.length - 1) return this.#outcome(this.#seconds);
    }
    return this.#outcome(this.#seconds);
  }

  #outcome(seconds: number): ShellOutcome {
    return { seconds, exitCode: this.#status, writes: this.#writes };
  }
}

export function runScript(lists: readonly AndOrList[], ctx: ShellContext): ShellOutcome {
  return new Shell(ctx).run(lists);
}
