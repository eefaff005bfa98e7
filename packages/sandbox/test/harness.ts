// Shared set-up of the sandbox conformance suite: a sandbox per test file, a @kubernetes/client-node
// KubeConfig for it, raw HTTP for exact status codes and bodies, and kubectl when it is installed.

import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accessSync, constants } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/index.ts';

export interface Harness {
  sandbox: Sandbox;
  kc: KubeConfig;
  kubeconfigPath: string;
  /** Raw HTTP against the sandbox: status code, headers and parsed (or text) body. */
  http(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<RawResponse>;
  /** Runs kubectl against the sandbox (asynchronously: the server lives in this process); killed after `timeoutMs` (30 s). */
  kubectl(args: string[], input?: string, timeoutMs?: number): Promise<KubectlResult>;
  stop(): Promise<void>;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

function findKubectl(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = join(dir, 'kubectl');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export const kubectlPath = findKubectl();

/** `skip` option for node:test when kubectl is missing (the reason is printed by the runner). */
export const skipWithoutKubectl: string | false = kubectlPath ? false : 'kubectl is not installed on this machine';

export async function startHarness(options: SandboxOptions = {}): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'podops-sandbox-test-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const sandbox = await startSandbox(options);
  await writeFile(kubeconfigPath, sandbox.kubeconfig);
  const kc = new KubeConfig();
  kc.loadFromString(sandbox.kubeconfig);
  return {
    sandbox,
    kc,
    kubeconfigPath,
    async http(method, path, body, headers = {}) {
      const init: RequestInit = { method, headers: { ...headers } };
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        (init.headers as Record<string, string>)['Content-Type'] ??= 'application/json';
      }
      const res = await fetch(`${sandbox.url}${path}`, init);
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text, json };
    },
    kubectl(args, input, timeoutMs = 30_000) {
      return new Promise((resolve) => {
        const child = execFile(
          kubectlPath ?? 'kubectl',
          [`--kubeconfig=${kubeconfigPath}`, `--cache-dir=${join(dir, 'cache')}`, ...args],
          { timeout: timeoutMs },
          (err, stdout, stderr) => {
            const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
            resolve({ code, stdout, stderr });
          },
        );
        if (input !== undefined) child.stdin?.end(input);
        else child.stdin?.end();
      });
    },
    async stop() {
      await sandbox.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface RawExchange {
  /** Everything the server sent, as text. */
  response: string;
  /** The status code of the first status line, if one came. */
  status: number | undefined;
  /** The server closed the connection (rather than leaving it idle for `idleMs`). */
  closed: boolean;
}

/**
 * Writes `bytes` on a fresh TCP connection to the sandbox (HTTP only) and collects what comes back
 * until the server closes the connection or stays silent for `idleMs`; for requests no HTTP client
 * would send. The connection is always closed afterwards.
 */
export function rawExchange(sandboxUrl: string, bytes: string | Buffer, idleMs = 300): Promise<RawExchange> {
  const { hostname, port } = new URL(sandboxUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      const response = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(response)?.[1];
      resolve({ response, status: status === undefined ? undefined : Number(status), closed });
    };
    const idle = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), idleMs);
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      idle();
    });
    socket.once('close', () => finish(true));
    socket.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? finish(true) : reject(err)));
    socket.once('connect', () => {
      socket.write(bytes);
      idle();
    });
  });
}

/** A pause that is itself the point (nothing is to happen meanwhile), never a wait for something: see eventually. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls until `check` returns a value other than undefined (or fails after `timeoutMs`). The default deadline is
 * generous: test files run side by side on a loaded machine, and a deadline ends a test that will never pass,
 * it times nothing.
 */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

/** The CustomResourceDefinition `gadgets.example.com` (namespaced, kind Gadget) with these versions. */
export const gadgetCrd = (versions: Record<string, unknown>[]): Record<string, unknown> & { metadata: { name: string } } => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' }, versions },
});

export const podManifest = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...((extra.metadata as object) ?? {}) },
  spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], ...((extra.spec as object) ?? {}) },
});
