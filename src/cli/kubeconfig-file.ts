// `podops up` and `podops sandbox` write a kubeconfig for the cluster they start (.podops/kubeconfig by default).
// A second one in the same checkout would overwrite the file of the first, which still runs: kubectl would then
// talk to the second, and once it stops to nothing. So before writing, the file's current owner is checked.

import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { parse } from 'yaml';
import { CommandError } from './command.ts';

/** The context name of the kubeconfigs the sandbox writes. */
const SANDBOX_CONTEXT = 'podops-sandbox';
const PROBE_TIMEOUT_MS = 1000;

/** Whether something accepts connections at the server's address. */
function answers(server: URL): Promise<boolean> {
  const port = Number(server.port || (server.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const socket = connect({ host: server.hostname.replace(/^\[|\]$/g, ''), port });
    const done = (open: boolean): void => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Refuses to write the kubeconfig at `path` when another podops up or podops sandbox still serves it, or when it
 * is a kubeconfig of another cluster (overwriting it would lose it). A file a stopped instance left is fine.
 * `command` is how the user starts the command, for the hint.
 */
export async function claimKubeconfig(path: string, command: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return;
  }
  let config: { 'current-context'?: unknown; clusters?: { cluster?: { server?: unknown } }[] } | undefined;
  try {
    config = parse(text) as typeof config;
  } catch {
    config = undefined;
  }
  const context = config?.['current-context'];
  if (context !== SANDBOX_CONTEXT) {
    if (typeof context === 'string' || Array.isArray(config?.clusters)) {
      throw new CommandError(`${path} is a kubeconfig ${command} did not write (its current context is ${JSON.stringify(context ?? '')}), which it would overwrite: give it another file with --kubeconfig PATH`);
    }
    return;
  }
  const server = config?.clusters?.[0]?.cluster?.server;
  let url: URL;
  try {
    url = new URL(String(server));
  } catch {
    return;
  }
  if (await answers(url)) {
    throw new CommandError(
      `another podops up or podops sandbox is running with ${path}: its API server ${url.origin} answers. Stop that one first, or start this one with a kubeconfig of its own: --kubeconfig PATH (npm start -- --kubeconfig PATH)`,
    );
  }
}
