#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KubeconfigError } from '../kube/kubeconfig.ts';
import { UsageError, type Command, type CommandIO } from './command.ts';
import { inspectCommand } from './commands/inspect.ts';
import { beginCommand, finishCommand, undoCommand } from './commands/lifecycle-ops.ts';
import { statusCommand } from './commands/status.ts';
import { upCommand } from './commands/up.ts';
import { manifestsCommand } from './commands/manifests.ts';
import { operatorCommand } from './commands/operator.ts';
import { rolloutCommand } from './commands/rollout.ts';
import { sandboxCommand } from './commands/sandbox.ts';

export const commands: readonly Command[] = [
  upCommand,
  inspectCommand,
  statusCommand,
  beginCommand,
  finishCommand,
  undoCommand,
  rolloutCommand,
  operatorCommand,
  manifestsCommand,
  sandboxCommand,
];

function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'podops: graceful, checkable and traceable pod operations for Kubernetes',
    '',
    'Usage: podops <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `podops <command> --help` for the options of a command.',
    '',
  ].join('\n');
}

export async function main(argv: string[], io: CommandIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(help());
    return name ? 0 : 2;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(`podops: unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`podops ${command.name}: ${err.message}\n`);
      return 2;
    }
    if (err instanceof KubeconfigError) {
      io.stderr.write(`podops ${command.name}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // A promise nobody awaited failed: a bug, but one that leaves no half-done state behind, so a long-running
  // server logs it and keeps serving rather than exiting (Node's default) and failing every webhook call.
  process.on('unhandledRejection', (reason) => {
    process.stderr.write(`${JSON.stringify({ level: 50, time: new Date().toISOString(), msg: 'unhandled promise rejection', err: reason instanceof Error ? { message: reason.message, stack: reason.stack } : String(reason) })}\n`);
  });
  const io: CommandIO = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    now: Date.now,
    signal: controller.signal,
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
      // A command stopped by a signal has closed what it opened; a handle left behind (a socket a peer keeps
      // open) must not keep the process alive past the pod's grace period.
      if (controller.signal.aborted) setTimeout(() => process.exit(code), 2000).unref();
    },
    (err: unknown) => {
      process.stderr.write(`podops: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
