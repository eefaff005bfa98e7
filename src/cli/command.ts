// A `podops` subcommand. Commands get their streams injected so tests can drive them without a process.

import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface CommandIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  /** Wall-clock milliseconds (Date.now); injected so output with durations is testable. */
  now: () => number;
  /** Resolves when the user asks the command to stop (SIGINT/SIGTERM); long-running commands await it. */
  signal: AbortSignal;
}

/** A command's behaviour; its name and summary are in main.ts's table, so that listing them loads no command. */
export interface Command {
  usage: string;
  /** Returns the process exit code. */
  run(args: string[], io: CommandIO): Promise<number>;
}

/** A user error: printed as `podops <cmd>: <message>` with exit code 2, no stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
  /** The arguments are malformed: the message points to the command's --help. */
  readonly seeHelp: boolean;
  constructor(message: string, options: { seeHelp?: boolean } = {}) {
    super(message);
    this.seeHelp = options.seeHelp ?? false;
  }
}

/** A command needs a package this installation left out: printed as `podops <cmd>: <message>` with exit code 1. */
export class MissingPackageError extends Error {
  override name = 'MissingPackageError';
}

/** A failure the user can act on that is not about the arguments: printed as `podops <cmd>: <message>`, exit code 1. */
export class CommandError extends Error {
  override name = 'CommandError';
}

/**
 * The candidates a mistyped word may have meant, as kubectl (cobra) suggests them: those within two edits of it,
 * or that it begins, ignoring case.
 */
export function suggestionsFor(word: string, candidates: readonly string[]): string[] {
  const typed = word.toLowerCase();
  return candidates.filter((candidate) => editDistance(typed, candidate.toLowerCase()) <= 2 || (typed !== '' && candidate.toLowerCase().startsWith(typed)));
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length] as number;
}

/** `got "x"`, with what it may have meant: for a word that must be one of `expected`. */
export function gotWithSuggestion(word: string, expected: readonly string[]): string {
  const [suggestion] = suggestionsFor(word, expected);
  return `got "${word}"${suggestion ? `; did you mean "${suggestion}"?` : ''}`;
}

/**
 * For `import('@podops/sandbox').catch(sandboxNotInstalled)` in the commands that run the sandbox: it is a
 * devDependency of podops, so a production installation (the operator's image) has none, and those commands
 * say so and how to get it rather than fail with Node's module-not-found error.
 */
export function sandboxNotInstalled(err: unknown): never {
  if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && (err as Error).message.includes("'@podops/sandbox'")) {
    throw new MissingPackageError(
      'needs the sandbox package @podops/sandbox, which a production install leaves out: install it with npm install @podops/sandbox (in this repository, npm ci installs it)',
    );
  }
  throw err;
}

/** node:util parseArgs, with its complaints (unknown or malformed options) turned into UsageErrors. */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    if (!String((err as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS_')) throw err;
    throw new UsageError(argumentComplaint(config) ?? (err as Error).message, { seeHelp: true });
  }
}

/**
 * The first argument parseArgs refused, in a sentence of ours: its own messages speak of "positional arguments"
 * and quote unevenly. Its tokens are checked as its strict mode checks them; should a check of a later Node.js
 * be missing here, its own message is printed.
 */
function argumentComplaint(config: ParseArgsConfig): string | undefined {
  const options = config.options ?? {};
  for (const token of parseArgs({ ...config, strict: false, allowPositionals: true, tokens: true }).tokens) {
    if (token.kind === 'positional' && !config.allowPositionals) return `unexpected argument "${token.value}"`;
    if (token.kind !== 'option') continue;
    const { name, rawName, value } = token;
    const type = options[name]?.type;
    if (!type) return `unknown option "${rawName}"`;
    if (type === 'boolean') {
      if (value !== undefined) return `option ${rawName} takes no value, got "${value}"`;
    } else if (value === undefined) {
      return `option ${rawName} needs a value`;
    } else if (!token.inlineValue && value.length > 1 && value.startsWith('-')) {
      return `option ${rawName} needs a value, got the option-like "${value}"; write --${name}=${value} if that is the value`;
    }
  }
  return undefined;
}

/** Go-style durations as controller-runtime's flags take them: `500ms`, `15s`, `1m`; in milliseconds. */
export function durationFlag(flag: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(value);
  if (!match) throw new UsageError(`${flag} must be a duration such as 500ms, 15s or 1m, got "${value}"`);
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[match[2] as 'ms' | 's' | 'm'];
}

/** A port number option's value (0 included: a free port). */
export function parsePort(value: string, flag: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`${flag} must be a port number, got "${value}"`);
  return port;
}

/** A server's listen failure as a UsageError in words, naming the flag that changes the port. */
export function listenFailure(err: unknown, address: string, port: number, flag: string): never {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') throw new UsageError(`port ${port} on ${address} is in use: choose another with ${flag}`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') throw new UsageError(`cannot serve on ${address}:${port}: ${(err as Error).message}`);
  throw err;
}

/** An option in a command's --help: its flags, and its description (more lines continue it). */
export type OptionHelp = readonly [flags: string, description: string, ...continued: string[]];

/** Longer flags take a line of their own, so that one long flag does not push every description to the right. */
const INLINE_FLAGS = 24;

/** The option lines of a --help: every description starts in one column. */
export function optionsHelp(options: readonly OptionHelp[]): string {
  const width = Math.max(0, ...options.map(([flags]) => flags.length).filter((length) => length <= INLINE_FLAGS));
  const indent = ' '.repeat(2 + width + 2);
  return options
    .flatMap(([flags, ...description]) => {
      const lines = description.map((line) => `${indent}${line}`);
      return flags.length <= width ? [`  ${flags.padEnd(width)}  ${description[0]}`, ...lines.slice(1)] : [`  ${flags}`, ...lines];
    })
    .join('\n');
}
