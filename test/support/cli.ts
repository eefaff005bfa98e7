// Runs `podops` commands in-process with captured streams.

import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli/main.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(args: string[], options: { stdin?: string; now?: number; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await main(args, {
    stdout,
    stderr,
    stdin: Readable.from([options.stdin ?? '']),
    env: options.env ?? {},
    now: () => options.now ?? Date.now(),
    signal: new AbortController().signal,
  });
  return { code, stdout: out, stderr: err };
}
