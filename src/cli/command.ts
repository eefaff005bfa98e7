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

export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Returns the process exit code. */
  run(args: string[], io: CommandIO): Promise<number>;
}

/** A user error: printed as `podops <cmd>: <message>` with exit code 2, no stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** node:util parseArgs, with its complaints (unknown or malformed options) turned into UsageErrors. */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
