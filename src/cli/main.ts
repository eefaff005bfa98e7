#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApiError, ConnectionError } from '../kube/client.ts';
import { KubeconfigError } from '../kube/kubeconfig.ts';
import { podopsVersion } from '../kube/version.ts';
import { CommandError, MissingPackageError, UsageError, suggestionsFor, type Command, type CommandIO } from './command.ts';
import { terminalSafe, terminalSafeStream } from './terminal-text.ts';

/**
 * The commands, each loaded when it runs: `podops operator` in a pod would otherwise also carry the sandbox,
 * the demo and every other command in its memory.
 */
export const commands: readonly { name: string; summary: string; load: () => Promise<Command> }[] = [
  { name: 'up', summary: 'run podops on this machine: sandbox cluster, operator, examples and a demo', load: async () => (await import('./commands/up.ts')).upCommand },
  { name: 'inspect', summary: 'show the lifecycles of a pod (JSON or YAML from a file or stdin)', load: async () => (await import('./commands/inspect.ts')).inspectCommand },
  { name: 'status', summary: 'list controlled pods with their lifecycle phases and what they wait for', load: async () => (await import('./commands/status.ts')).statusCommand },
  { name: 'begin', summary: 'begin a lifecycle on a pod (an operation controller in the terminal)', load: async () => (await import('./commands/lifecycle-ops.ts')).beginCommand },
  { name: 'finish', summary: 'finish a lifecycle once podops allows the operation', load: async () => (await import('./commands/lifecycle-ops.ts')).finishCommand },
  { name: 'undo', summary: 'cancel a lifecycle in any phase', load: async () => (await import('./commands/lifecycle-ops.ts')).undoCommand },
  { name: 'conformance', summary: 'check that the installed implementation (podops or Kuperator) follows the protocol', load: async () => (await import('./commands/conformance.ts')).conformanceCommand },
  { name: 'dashboard', summary: 'serve a live web page of pods, lifecycles, rules, rollouts and events (this machine only)', load: async () => (await import('./commands/dashboard.ts')).dashboardCommand },
  { name: 'rollout', summary: "show the hooks of a workload's rollout, retry its failed hooks, or roll it back", load: async () => (await import('./commands/rollout.ts')).rolloutCommand },
  { name: 'operator', summary: 'run the operator (controllers and admission webhooks) against a cluster', load: async () => (await import('./commands/operator.ts')).operatorCommand },
  { name: 'manifests', summary: 'print the Kubernetes objects that install podops', load: async () => (await import('./commands/manifests.ts')).manifestsCommand },
  { name: 'sandbox', summary: 'run an embedded Kubernetes-compatible API server (for kubectl and the operator)', load: async () => (await import('./commands/sandbox.ts')).sandboxCommand },
];

function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'podops: graceful, checkable and traceable pod operations for Kubernetes',
    '',
    'Usage: podops <command> [options]',
    '       podops --version',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `podops <command> --help` for the options of a command.',
    '',
  ].join('\n');
}

/**
 * The exit code of a failure the user can act on (printed as one line), or undefined for a bug (thrown on). An
 * API server's refusal (forbidden, not found, invalid) is the cluster's answer, said in its words.
 */
function expectedFailure(err: unknown): number | undefined {
  if (err instanceof UsageError) return 2;
  if (err instanceof KubeconfigError || err instanceof ConnectionError || err instanceof MissingPackageError || err instanceof CommandError || err instanceof ApiError) return 1;
  return undefined;
}

/** The answer to a command name podops does not have: what it may have meant, as kubectl answers. */
function unknownCommand(name: string): string {
  const suggestions = suggestionsFor(name, commands.map((c) => c.name));
  const didYouMean = suggestions.length ? `\nDid you mean this?\n${suggestions.map((s) => `\t${s}\n`).join('')}` : '';
  return `podops: unknown command "${name}"\n${didYouMean}\nRun 'podops --help' for the commands.\n`;
}

/**
 * Runs a command; every line it prints goes through the terminal filter (strings from the cluster must not
 * drive the user's terminal: see terminal-text.ts).
 */
export async function main(argv: string[], commandIO: CommandIO): Promise<number> {
  const io: CommandIO = { ...commandIO, stdout: terminalSafeStream(commandIO.stdout), stderr: terminalSafeStream(commandIO.stderr) };
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(help());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout.write(`podops ${podopsVersion()}\n`);
    return 0;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.stderr.write(unknownCommand(name));
    return 2;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    const code = expectedFailure(err);
    if (code === undefined) throw err;
    const seeHelp = err instanceof UsageError && err.seeHelp ? ` (see podops ${name} --help)` : '';
    io.stderr.write(`podops ${name}: ${(err as Error).message}${seeHelp}\n`);
    return code;
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
      process.stderr.write(terminalSafe(`podops: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`));
      process.exitCode = 1;
    },
  );
}
