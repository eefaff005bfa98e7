// The control plane's processes: each binary runs in a process group of its own (so a stop reaches whatever
// it forked, and a Ctrl-C in the terminal does not cut a stop short), with its output in a log file of the
// control plane's directory. A guardian, a small shell started once per control plane, holds a pipe from this
// process and kills every group it was told of when that pipe closes: a test process that exits, crashes or
// is killed with SIGKILL leaves no etcd or kube-apiserver behind, and no directory of theirs.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';

/** How long a process has between SIGTERM and SIGKILL. */
const terminationGraceMs = 5000;

// Reads process group ids, one per line (a leading '-' takes one back), until end of input, then kills what
// is left and removes the directory ($1). Signals that would end it early are ignored: it is the last one standing.
const guardianScript = `trap '' INT TERM HUP
groups=' '
while read -r id; do
  case "$id" in -*) groups=$(printf '%s' "$groups" | sed "s/ \${id#-} / /") ;; *) groups="$groups$id " ;; esac
done
for id in $groups; do kill -s KILL -- "-$id" 2>/dev/null; done
rm -rf -- "$1"
exit 0`;

export interface ManagedProcess {
  readonly name: string;
  readonly logPath: string;
  /** Rejects once the process exits (the message has the end of its log); stays pending while it runs. */
  readonly exited: Promise<never>;
  /** The end of its log, for error messages. */
  logTail(): Promise<string>;
}

export class ProcessGroup {
  readonly #dir: string;
  readonly #guardian: ChildProcess;
  readonly #children: { process: ChildProcess; name: string; done: Promise<void> }[] = [];

  /** Processes of `dir`, which the guardian removes if this process ends without `stop()`. */
  constructor(dir: string) {
    this.#dir = dir;
    this.#guardian = spawn('/bin/sh', ['-c', guardianScript, 'guardian', dir], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    this.#guardian.on('error', () => {});
    // Neither the guardian nor its pipe keeps this process alive: its end is what the guardian waits for.
    this.#guardian.unref();
    (this.#guardian.stdin as Socket | null)?.unref();
  }

  /** Starts `binary` with `args`; its output goes to `<dir>/<name>.log`. */
  start(name: string, binary: string, args: readonly string[]): ManagedProcess {
    const logPath = join(this.#dir, `${name}.log`);
    const log = openSync(logPath, 'a');
    let child: ChildProcess;
    try {
      child = spawn(binary, args, { stdio: ['ignore', log, log], detached: true });
    } finally {
      closeSync(log);
    }
    child.unref();
    if (child.pid !== undefined) this.#guardian.stdin?.write(`${child.pid}\n`);
    const logTail = async (): Promise<string> => (await readFile(logPath, 'utf8').catch(() => '')).slice(-4000);
    const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const exited = new Promise<never>((_, reject) => {
      child.once('error', (err) => reject(new Error(`${name} could not start (${binary}): ${err.message}`)));
      child.once('exit', (code, signal) => {
        void logTail().then((tail) => reject(new Error(`${name} exited (${signal ?? `code ${code}`}); the end of its log (${logPath}):\n${tail}`)));
      });
    });
    exited.catch(() => {});
    this.#children.push({ process: child, name, done: Promise.race([done, exited.catch(() => {})]) });
    return { name, logPath, exited, logTail };
  }

  /** Stops the processes, the last started first: SIGTERM to each group, SIGKILL after a grace period. */
  async stop(): Promise<void> {
    for (const { process: child, done } of this.#children.reverse()) {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) continue;
      signalGroup(child.pid, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), terminationGraceMs);
      await done;
      clearTimeout(timer);
      // Whatever the process forked and left behind goes with its group.
      signalGroup(child.pid, 'SIGKILL');
      this.#guardian.stdin?.write(`-${child.pid}\n`);
    }
    this.#children.length = 0;
    this.#guardian.stdin?.end();
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}
