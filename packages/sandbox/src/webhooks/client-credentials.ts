// The client certificates kube-apiserver presents to admission webhooks, configured with
// --admission-control-config-file: an AdmissionConfiguration whose MutatingAdmissionWebhook and
// ValidatingAdmissionWebhook plugins each name a kubeconfig (WebhookAdmissionConfiguration
// kubeConfigFile). That kubeconfig's users are named after the webhook's host, as
// util/webhook.defaultAuthenticationInfoResolver looks them up: `<service>.<namespace>.svc:<port>`
// for a Service, the URL's `host:port` (port 443 when the URL names none); then `*.<domain>`
// wildcards; then, when the port is 443, both again without it; then `*`; then the user of the
// current context; else no certificate. Files are read once, at start, as the real server reads them.

import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import YAML from 'yaml';
import { isJsonObject, type JsonObject } from '../meta/object.ts';
import { asArray, asObject, asString } from '../validation/json.ts';

export type AdmissionWebhookPlugin = 'MutatingAdmissionWebhook' | 'ValidatingAdmissionWebhook';

/** PEM of a client certificate (chain) and its private key. */
export interface ClientCertificate {
  cert: string;
  key: string;
}

/** The certificate `plugin` presents to the webhook at `hostPort` (`svc.ns.svc:443`, `[::1]:8443`), if any. */
export type ClientCertificates = (plugin: AdmissionWebhookPlugin, hostPort: string) => ClientCertificate | undefined;

const configGroupVersion = 'apiserver.config.k8s.io/v1';
const plugins: readonly AdmissionWebhookPlugin[] = ['MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook'];

/** A kubeconfig's users by name (a user without a certificate still matches), and the current context's user. */
interface WebhookKubeconfig {
  users: Map<string, ClientCertificate | undefined>;
  currentUser: string | undefined;
}

function checkKind(document: unknown, kind: string, where: string): JsonObject {
  const object = asObject(document);
  if (object.apiVersion !== configGroupVersion || object.kind !== kind) {
    throw new Error(`${where}: expected apiVersion ${configGroupVersion}, kind ${kind}; got ${JSON.stringify(object.apiVersion ?? '')}, ${JSON.stringify(object.kind ?? '')}`);
  }
  return object;
}

const readYaml = async (path: string): Promise<unknown> => YAML.parse(await readFile(path, 'utf8')) as unknown;

/** client-certificate-data (base64 PEM) or client-certificate (a path, relative to the kubeconfig). */
async function pemOf(user: JsonObject, field: 'client-certificate' | 'client-key', dir: string): Promise<string | undefined> {
  const data = asString(user[`${field}-data`]);
  if (data) return Buffer.from(data, 'base64').toString('utf8');
  const file = asString(user[field]);
  return file ? readFile(resolve(dir, file), 'utf8') : undefined;
}

async function loadKubeconfig(path: string): Promise<WebhookKubeconfig> {
  const kubeconfig = asObject(await readYaml(path));
  const dir = dirname(path);
  const users = new Map<string, ClientCertificate | undefined>();
  for (const entry of asArray(kubeconfig.users).filter(isJsonObject)) {
    const user = asObject(entry.user);
    const [cert, key] = await Promise.all([pemOf(user, 'client-certificate', dir), pemOf(user, 'client-key', dir)]);
    if ((cert === undefined) !== (key === undefined)) throw new Error(`${path}: user ${JSON.stringify(entry.name)} needs both a client certificate and its key`);
    users.set(asString(entry.name), cert !== undefined && key !== undefined ? { cert, key } : undefined);
  }
  const current = asArray(kubeconfig.contexts)
    .filter(isJsonObject)
    .find((c) => c.name === kubeconfig['current-context']);
  return { users, currentUser: asString(asObject(current?.context).user) || undefined };
}

/** The plugin's WebhookAdmissionConfiguration, inline or at `path` (relative to the AdmissionConfiguration's directory). */
async function pluginConfiguration(entry: JsonObject, baseDir: string): Promise<JsonObject | undefined> {
  if (isJsonObject(entry.configuration)) return entry.configuration;
  const path = asString(entry.path);
  return path ? asObject(await readYaml(resolve(baseDir, path))) : undefined;
}

/** `a.b.svc:443` → `a.b.svc:443`, `*.b.svc:443`, `*.svc:443`. */
function namesFor(target: string): string[] {
  const steps = target.split('.');
  return [target, ...steps.slice(1).map((_, i) => `*.${steps.slice(i + 1).join('.')}`)];
}

/** net.SplitHostPort: `[::1]:443` → `::1`, `443`. */
function splitHostPort(hostPort: string): { host: string; port: string } {
  const colon = hostPort.lastIndexOf(':');
  const host = hostPort.slice(0, colon);
  return { host: host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host, port: hostPort.slice(colon + 1) };
}

function certificateFor(kubeconfig: WebhookKubeconfig, hostPort: string): ClientCertificate | undefined {
  const { host, port } = splitHostPort(hostPort);
  const names = [...namesFor(hostPort), ...(port === '443' ? namesFor(host) : []), '*', ...(kubeconfig.currentUser ? [kubeconfig.currentUser] : [])];
  const name = names.find((n) => kubeconfig.users.has(n));
  return name === undefined ? undefined : kubeconfig.users.get(name);
}

/**
 * Reads an AdmissionConfiguration (apiserver.config.k8s.io/v1), given as its parsed content whose
 * relative `path`s are resolved against `baseDir`, and the kubeconfigs it names.
 */
export async function loadClientCertificates(admissionConfiguration: unknown, baseDir: string): Promise<ClientCertificates> {
  const config = checkKind(admissionConfiguration, 'AdmissionConfiguration', 'admission control configuration');
  const kubeconfigs = new Map<AdmissionWebhookPlugin, WebhookKubeconfig>();
  for (const entry of asArray(config.plugins).filter(isJsonObject)) {
    const plugin = plugins.find((p) => p === entry.name);
    const configuration = plugin && (await pluginConfiguration(entry, baseDir));
    if (!plugin || !configuration) continue;
    const kubeConfigFile = asString(checkKind(configuration, 'WebhookAdmissionConfiguration', plugin).kubeConfigFile);
    if (!isAbsolute(kubeConfigFile)) throw new Error(`${plugin}: kubeConfigFile: Invalid value: ${JSON.stringify(kubeConfigFile)}: must be an absolute file path`);
    kubeconfigs.set(plugin, await loadKubeconfig(kubeConfigFile));
  }
  return (plugin, hostPort) => {
    const kubeconfig = kubeconfigs.get(plugin);
    return kubeconfig && certificateFor(kubeconfig, hostPort);
  };
}

/** loadClientCertificates of the file --admission-control-config-file names. */
export async function loadClientCertificatesFile(path: string): Promise<ClientCertificates> {
  return loadClientCertificates(await readYaml(path), dirname(resolve(path)));
}
