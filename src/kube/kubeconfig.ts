// Where the API server is and how to authenticate to it, from kubeconfig files or the in-cluster service
// account, as kubectl and client-go resolve them: files of $KUBECONFIG merged (the first file to set a
// name wins), paths relative to the file that names them, certificate and key data or files, bearer
// tokens and token files (re-read, so rotated service-account tokens are picked up), basic auth,
// impersonation, and exec credential plugins (client.authentication.k8s.io v1 and v1beta1, cached until
// their expiry). podops reads kubeconfigs itself because @kubernetes/client-node, which does this too,
// costs the operator about 85 MB of resident memory for code it would not otherwise run.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

type Entry = Record<string, unknown>;

/** A kubeconfig's named entries and current context, with every file path made absolute. */
export interface Kubeconfig {
  /** The file it was read from, for errors; merged files are listed as in $KUBECONFIG. */
  source: string;
  clusters: Map<string, Entry>;
  users: Map<string, Entry>;
  contexts: Map<string, Entry>;
  currentContext: string | undefined;
}

/** Where to connect and how to authenticate: what a client needs from a kubeconfig context. */
export interface ClusterAccess {
  server: URL;
  /** The namespace of the context (or of the in-cluster service account). */
  namespace: string | undefined;
  /** Resolves the TLS options and headers of the next requests; called again as they may change. */
  credentials: Credentials;
}

export class KubeconfigError extends Error {
  override readonly name = 'KubeconfigError';
}

/**
 * The YAML parser, loaded on first use: an operator in a cluster reads its ServiceAccount, not a kubeconfig, and
 * the parser would cost it about 8 MiB of resident memory for nothing.
 */
let yamlModule: typeof Yaml | undefined;
const yaml = (): typeof Yaml => (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof Yaml);

/** A JSON kubeconfig (JSON is YAML) without loading the YAML parser; undefined when the text is not JSON. */
function parseJson(text: string): unknown {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Why a file could not be read, in words (`no such file or directory`), not Node's error code. */
export function fileErrorText(err: unknown): string {
  const words: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EISDIR: 'it is a directory',
    ENOTDIR: 'a part of the path is not a directory',
    ELOOP: 'too many levels of symbolic links',
    ENAMETOOLONG: 'the file name is too long',
  };
  const code = (err as NodeJS.ErrnoException).code;
  return (code && words[code]) ?? (err as Error).message;
}

/** A YAML error on one line: its message and position, without the code frame the yaml library appends. */
export function yamlErrorText(err: unknown): string {
  const linePos = (err as { linePos?: [{ line: number; col: number }] }).linePos;
  if (!(err instanceof Error) || !err.name.startsWith('YAML') || !linePos) return (err as Error).message;
  const { line, col } = linePos[0];
  const position = ` at line ${line}, column ${col}`;
  return `${err.message.slice(0, err.message.indexOf(position))} (line ${line}, column ${col})`;
}

const isEntry = (v: unknown): v is Entry => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const pathFields: Record<'clusters' | 'users', string[]> = {
  clusters: ['certificate-authority'],
  users: ['client-certificate', 'client-key', 'tokenFile'],
};

/** Parses one kubeconfig; `source` names it in errors, `baseDir` anchors its relative paths. */
export function parseKubeconfig(source: string, yamlText: string, baseDir: string): Kubeconfig {
  let doc = parseJson(yamlText);
  try {
    doc ??= yaml().parse(yamlText);
  } catch (err) {
    throw new KubeconfigError(`invalid kubeconfig ${source}: ${yamlErrorText(err)}`);
  }
  if (doc === null || doc === undefined) doc = {};
  if (!isEntry(doc)) throw new KubeconfigError(`invalid kubeconfig ${source}: expected a mapping at the top level`);
  const named = (list: string, field: string): Map<string, Entry> => {
    const out = new Map<string, Entry>();
    const items = doc[list] ?? [];
    if (!Array.isArray(items)) throw new KubeconfigError(`invalid kubeconfig ${source}: ${list} must be a list`);
    for (const [i, item] of items.entries()) {
      const name = isEntry(item) ? text(item.name) : undefined;
      if (!isEntry(item) || !name) throw new KubeconfigError(`invalid kubeconfig ${source}: ${list}[${i}] has no name`);
      const body = item[field] ?? {};
      if (!isEntry(body)) throw new KubeconfigError(`invalid kubeconfig ${source}: ${list}[${i}] (${name}) has no ${field} mapping`);
      const entry: Entry = { ...body };
      for (const key of (pathFields as Record<string, string[]>)[list] ?? []) {
        const path = text(entry[key]);
        if (path && !isAbsolute(path)) entry[key] = resolve(baseDir, path);
      }
      const exec = entry.exec;
      if (list === 'users' && isEntry(exec)) {
        const command = text(exec.command);
        // A command with a path separator is relative to the kubeconfig; a bare name is looked up in PATH.
        if (command && command.includes('/') && !isAbsolute(command)) entry.exec = { ...exec, command: resolve(baseDir, command) };
      }
      if (!out.has(name)) out.set(name, entry);
    }
    return out;
  };
  return {
    source,
    clusters: named('clusters', 'cluster'),
    users: named('users', 'user'),
    contexts: named('contexts', 'context'),
    currentContext: text(doc['current-context']),
  };
}

/** Merges kubeconfigs as kubectl does: the first to define a name, and the first current-context, win. */
export function mergeKubeconfigs(configs: readonly Kubeconfig[]): Kubeconfig {
  const merged: Kubeconfig = { source: configs.map((c) => c.source).join(delimiter), clusters: new Map(), users: new Map(), contexts: new Map(), currentContext: undefined };
  for (const config of configs) {
    for (const kind of ['clusters', 'users', 'contexts'] as const) {
      for (const [name, entry] of config[kind]) if (!merged[kind].has(name)) merged[kind].set(name, entry);
    }
    merged.currentContext ??= config.currentContext;
  }
  return merged;
}

export function readKubeconfigFile(path: string): Kubeconfig {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    throw new KubeconfigError(`cannot read kubeconfig ${path}: ${fileErrorText(err)}`, { cause: err });
  }
  return parseKubeconfig(path, content, dirname(resolve(path)));
}

/** The context's cluster and user, as a ClusterAccess. */
export function accessFromKubeconfig(config: Kubeconfig, contextName?: string): ClusterAccess {
  // An empty file or some other YAML (a manifest, a values file) given for a kubeconfig: say so, rather than
  // that it lacks a current-context.
  if (config.clusters.size === 0 && config.contexts.size === 0) throw new KubeconfigError(`${config.source} is not a kubeconfig: it defines no clusters and no contexts`);
  const name = contextName ?? config.currentContext;
  if (!name) throw new KubeconfigError(`kubeconfig ${config.source} has no current-context; pass --context or set one (kubectl config use-context NAME)`);
  const context = config.contexts.get(name);
  if (!context) throw new KubeconfigError(`context "${name}" is not in kubeconfig ${config.source} (known: ${[...config.contexts.keys()].join(', ') || 'none'})`);
  const clusterName = text(context.cluster);
  const cluster = clusterName ? config.clusters.get(clusterName) : undefined;
  if (!cluster) throw new KubeconfigError(`context "${name}" names cluster "${clusterName ?? ''}", which is not in kubeconfig ${config.source}`);
  const userName = text(context.user);
  const user = userName ? config.users.get(userName) : {};
  if (!user) throw new KubeconfigError(`context "${name}" names user "${userName}", which is not in kubeconfig ${config.source}`);
  const serverText = text(cluster.server);
  if (!serverText) throw new KubeconfigError(`cluster "${clusterName}" has no server`);
  let server: URL;
  try {
    server = new URL(serverText);
  } catch {
    throw new KubeconfigError(`cluster "${clusterName}" has an invalid server URL: ${serverText}`);
  }
  if (text(cluster['proxy-url'])) throw new KubeconfigError(`cluster "${clusterName}" sets proxy-url, which podops does not support`);
  if (isEntry(user['auth-provider'])) {
    const provider = user['auth-provider'];
    const idToken = isEntry(provider.config) ? text(provider.config['id-token']) : undefined;
    if (provider.name !== 'oidc' || !idToken) {
      throw new KubeconfigError(`user "${userName}" uses auth-provider "${String(provider.name)}", which podops does not support; use an exec credential plugin`);
    }
  }
  return { server, namespace: text(context.namespace), credentials: new Credentials(cluster, user, server) };
}

/** The default loading rules: $KUBECONFIG (merged), else ~/.kube/config, else the in-cluster account. */
export function loadDefaultAccess(env: NodeJS.ProcessEnv = process.env, contextName?: string): ClusterAccess {
  const listed = (env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (listed.length) return accessFromKubeconfig(mergeKubeconfigs(listed.map(readKubeconfigFile)), contextName);
  const home = join(env.HOME ?? homedir(), '.kube', 'config');
  let config: Kubeconfig;
  try {
    config = readKubeconfigFile(home);
  } catch (err) {
    if (!(err instanceof KubeconfigError && (err.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT')) throw err;
    if (env.KUBERNETES_SERVICE_HOST) return inClusterAccess(env);
    throw new KubeconfigError(`no kubeconfig: KUBECONFIG is not set and ${home} does not exist; pass --kubeconfig`);
  }
  return accessFromKubeconfig(config, contextName);
}

export const serviceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

/** rest.InClusterConfig: the service host and port from the environment, the mounted token, CA and namespace. */
export function inClusterAccess(env: NodeJS.ProcessEnv = process.env, dir = serviceAccountDir): ClusterAccess {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new KubeconfigError('not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set');
  const server = new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}`);
  let namespace: string | undefined;
  try {
    namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim() || undefined;
  } catch {
    namespace = undefined;
  }
  const cluster = { 'certificate-authority': join(dir, 'ca.crt') };
  return { server, namespace, credentials: new Credentials(cluster, { tokenFile: join(dir, 'token') }, server) };
}

export interface ResolvedCredentials {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized: boolean;
  servername?: string;
  headers: Record<string, string>;
}

interface ExecResult {
  token?: string;
  cert?: Buffer;
  key?: Buffer;
  expiresAt: number;
}

const readData = (what: string, data: unknown, file: unknown): Buffer | undefined => {
  const inline = text(data);
  if (inline) return Buffer.from(inline, 'base64');
  const path = text(file);
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (err) {
    throw new KubeconfigError(`cannot read ${what} ${path}: ${fileErrorText(err)}`);
  }
};

/** A context's credentials; files are read at each resolve, exec plugins run when their credential expired. */
export class Credentials {
  readonly #cluster: Entry;
  readonly #user: Entry;
  readonly #server: URL;
  #exec: ExecResult | undefined;

  constructor(cluster: Entry, user: Entry, server: URL) {
    this.#cluster = cluster;
    this.#user = user;
    this.#server = server;
  }

  async resolve(now = Date.now()): Promise<ResolvedCredentials> {
    const cluster = this.#cluster;
    const user = this.#user;
    const insecure = cluster['insecure-skip-tls-verify'] === true;
    const out: ResolvedCredentials = { rejectUnauthorized: !insecure, headers: {} };
    const ca = readData('certificate-authority', cluster['certificate-authority-data'], cluster['certificate-authority']);
    if (ca && !insecure) out.ca = ca;
    const servername = text(cluster['tls-server-name']);
    if (servername) out.servername = servername;
    out.cert = readData('client-certificate', user['client-certificate-data'], user['client-certificate']);
    out.key = readData('client-key', user['client-key-data'], user['client-key']);
    const token = text(user.token) ?? (text(user.tokenFile) ? readData('tokenFile', undefined, user.tokenFile)?.toString('utf8').trim() : undefined);
    if (token) out.headers.Authorization = `Bearer ${token}`;
    const provider = user['auth-provider'];
    if (!token && isEntry(provider) && isEntry(provider.config)) out.headers.Authorization = `Bearer ${String(provider.config['id-token'])}`;
    const username = text(user.username);
    if (!out.headers.Authorization && username) {
      out.headers.Authorization = `Basic ${Buffer.from(`${username}:${text(user.password) ?? ''}`).toString('base64')}`;
    }
    if (isEntry(user.exec) && !out.headers.Authorization && !out.cert) {
      const credential = await this.#execCredential(user.exec, now);
      if (credential.token) out.headers.Authorization = `Bearer ${credential.token}`;
      if (credential.cert) out.cert = credential.cert;
      if (credential.key) out.key = credential.key;
    }
    const as = text(user.as);
    if (as) out.headers['Impersonate-User'] = as;
    const groups = user['as-groups'];
    if (Array.isArray(groups) && groups.length) out.headers['Impersonate-Group'] = groups.map(String).join(', ');
    return out;
  }

  /** The server refused the credential (401): an exec plugin is asked again at the next resolve. */
  invalidate(): void {
    this.#exec = undefined;
  }

  async #execCredential(exec: Entry, now: number): Promise<ExecResult> {
    if (this.#exec && this.#exec.expiresAt > now) return this.#exec;
    const apiVersion = text(exec.apiVersion);
    if (apiVersion !== 'client.authentication.k8s.io/v1' && apiVersion !== 'client.authentication.k8s.io/v1beta1') {
      throw new KubeconfigError(`exec plugin: apiVersion "${apiVersion ?? ''}" is not supported (client.authentication.k8s.io/v1 or v1beta1)`);
    }
    const command = text(exec.command);
    if (!command) throw new KubeconfigError('exec plugin: no command');
    if (exec.interactiveMode === 'Always') throw new KubeconfigError(`exec plugin ${command} needs a terminal (interactiveMode Always); podops runs without one`);
    const spec: Entry = { interactive: false };
    if (exec.provideClusterInfo === true) {
      const cluster: Entry = { server: this.#server.toString() };
      if (text(this.#cluster['tls-server-name'])) cluster['tls-server-name'] = this.#cluster['tls-server-name'];
      if (this.#cluster['insecure-skip-tls-verify'] === true) cluster['insecure-skip-tls-verify'] = true;
      const ca = readData('certificate-authority', this.#cluster['certificate-authority-data'], this.#cluster['certificate-authority']);
      if (ca) cluster['certificate-authority-data'] = ca.toString('base64');
      spec.cluster = cluster;
    }
    const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify({ apiVersion, kind: 'ExecCredential', spec }) };
    for (const item of Array.isArray(exec.env) ? exec.env : []) if (isEntry(item) && text(item.name)) env[String(item.name)] = String(item.value ?? '');
    const args = Array.isArray(exec.args) ? exec.args.map(String) : [];
    const stdout = await new Promise<string>((done, fail) => {
      execFile(command, args, { env, maxBuffer: 1 << 20 }, (err, out, stderr) => {
        if (!err) return done(out);
        const hint = text(exec.installHint) ? `\n${String(exec.installHint)}` : '';
        const detail = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'executable not found' : stderr.trim() || err.message;
        fail(new KubeconfigError(`exec plugin ${command} failed: ${detail}${hint}`));
      });
    });
    let credential: unknown;
    try {
      credential = JSON.parse(stdout);
    } catch {
      throw new KubeconfigError(`exec plugin ${command} printed no ExecCredential JSON`);
    }
    const status = isEntry(credential) ? credential.status : undefined;
    if (!isEntry(credential) || credential.kind !== 'ExecCredential' || !isEntry(status)) {
      throw new KubeconfigError(`exec plugin ${command} printed no ExecCredential with a status`);
    }
    if (credential.apiVersion !== apiVersion) {
      throw new KubeconfigError(`exec plugin ${command} answered ${String(credential.apiVersion)}, but ${apiVersion} was asked for`);
    }
    const token = text(status.token);
    const cert = text(status.clientCertificateData);
    const key = text(status.clientKeyData);
    if (!token && !(cert && key)) throw new KubeconfigError(`exec plugin ${command}: the ExecCredential has neither a token nor a client certificate and key`);
    const expiry = text(status.expirationTimestamp) ? Date.parse(String(status.expirationTimestamp)) : Infinity;
    this.#exec = {
      ...(token && { token }),
      ...(cert && key && { cert: Buffer.from(cert), key: Buffer.from(key) }),
      expiresAt: Number.isNaN(expiry) ? Infinity : expiry,
    };
    return this.#exec;
  }
}
