// How to reach an API server from a kubeconfig: its server URL, the CA to trust, and the credentials (a
// client certificate or a bearer token, inline or in files), from the current context, as kubectl reads
// them. Exec plugins and auth providers are not supported: their clusters are reached with a kubeconfig
// of a client certificate or a token (a service account's).

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import YAML from 'yaml';

export interface Connection {
  /** e.g. `https://127.0.0.1:6443`, without a trailing slash. */
  readonly server: string;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
  readonly insecureSkipTLSVerify: boolean;
}

type Named = { name?: unknown; [entry: string]: unknown };
const record = (value: unknown): Record<string, unknown> => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const named = (list: unknown, name: unknown, entry: string, what: string): Record<string, unknown> => {
  const found = (Array.isArray(list) ? (list as Named[]) : []).find((item) => record(item).name === name);
  if (!found) throw new Error(`kubeconfig: no ${what} named ${JSON.stringify(name)}`);
  return record(found[entry]);
};

/** The connection of the kubeconfig's current context; `path` is where it came from (relative file names are resolved from there). */
export function connectionFromKubeconfig(text: string, path?: string): Connection {
  let config: Record<string, unknown>;
  try {
    config = record(YAML.parse(text));
  } catch (err) {
    throw new Error(`kubeconfig${path ? ` ${path}` : ''} is not YAML: ${(err as Error).message}`, { cause: err });
  }
  const base = path ? dirname(path) : process.cwd();
  const context = named(config.contexts, config['current-context'], 'context', 'context');
  const cluster = named(config.clusters, context.cluster, 'cluster', 'cluster');
  const user = context.user === undefined ? {} : named(config.users, context.user, 'user', 'user');
  const inlineOrFile = (data: unknown, file: unknown): string | undefined => {
    if (typeof data === 'string' && data) return Buffer.from(data, 'base64').toString();
    if (typeof file === 'string' && file) return readFileSync(resolve(base, file), 'utf8');
    return undefined;
  };
  if (typeof cluster.server !== 'string' || !cluster.server) throw new Error('kubeconfig: the current cluster has no server');
  if (user.exec !== undefined || user['auth-provider'] !== undefined) throw new Error('kubeconfig: exec plugins and auth providers are not supported; use a client certificate or a token');
  const token = typeof user.token === 'string' && user.token ? user.token : typeof user.tokenFile === 'string' ? readFileSync(resolve(base, user.tokenFile), 'utf8').trim() : undefined;
  return {
    server: cluster.server.replace(/\/+$/, ''),
    ca: inlineOrFile(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: inlineOrFile(user['client-certificate-data'], user['client-certificate']),
    key: inlineOrFile(user['client-key-data'], user['client-key']),
    token,
    insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
  };
}
