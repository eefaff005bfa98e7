// The authenticated mode of the webhooks, for clusters whose kube-apiserver flags you set: the API server
// presents a client certificate to podops' webhooks, and podops serves no one else (--webhook-client-ca-file),
// so no review can be forged by whoever reaches the webhook port.
//
// Where the keys live: a CA of its own (not the cluster's, which also signs every kubelet's client certificate)
// issues the API server's certificate. Its key stays in the directory of `podops manifests --webhook-client-auth`
// on the administrator's machine, to issue the next certificate: never in the cluster, where whoever could read
// the Secret (or a stolen podops token) could mint a certificate podops accepts. The cluster gets only the CA's
// certificate, in the Secret the operator reads it from. The API server's certificate and key go into the
// kubeconfig its AdmissionConfiguration points to, on the control-plane nodes.

import { X509Certificate } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { generateCA, generateClientCertificate, inspectCertificate, type KeyPair } from '../webhook/certificates.ts';

/** The common name of the API server's certificate, and the one name the operator accepts. */
export const WEBHOOK_CLIENT_NAME = 'kube-apiserver-webhook-client';
/** Where the API server reads the files, unless told otherwise (kubeadm keeps its own under /etc/kubernetes). */
export const DEFAULT_APISERVER_CONFIG_DIR = '/etc/kubernetes/podops';

const CA_DAYS = 3650;
const CLIENT_DAYS = 365;
/** A client certificate with less left than this is issued again. */
const RENEW_BEFORE_DAYS = 30;
const DAY_MS = 86_400_000;

export const WEBHOOK_CLIENT_FILES = {
  caCert: 'webhook-client-ca.crt',
  caKey: 'webhook-client-ca.key',
  kubeconfig: 'webhook-client.kubeconfig',
  admissionConfiguration: 'admission-configuration.yaml',
  helmValues: 'helm-values.yaml',
} as const;

/**
 * The kubeconfig of the API server's webhook client: one user, named after the host the API server calls for
 * podops' webhook Service (`<service>.<namespace>.svc`, without the port 443), so the certificate is presented
 * to podops only: a wildcard user would present it to every webhook of the cluster, which could replay it.
 */
export function webhookClientKubeconfig(host: string, client: KeyPair): Record<string, unknown> {
  const base64 = (text: string): string => Buffer.from(text).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Config',
    users: [{ name: host, user: { 'client-certificate-data': base64(client.cert), 'client-key-data': base64(client.key) } }],
  };
}

/** kube-apiserver's --admission-control-config-file: both webhook plugins use the kubeconfig at `kubeconfigPath`. */
export function admissionConfiguration(kubeconfigPath: string): Record<string, unknown> {
  const plugin = (name: string) => ({
    name,
    configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: kubeconfigPath },
  });
  return { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [plugin('ValidatingAdmissionWebhook'), plugin('MutatingAdmissionWebhook')] };
}

export interface WebhookClientAuthFiles {
  /** The CA the operator trusts (PEM): what goes into the cluster. */
  caCert: string;
  /** Whether the CA was made now (otherwise the directory's was kept). */
  newCA: boolean;
  /** Whether the API server's certificate was issued now (otherwise the directory's was still good). */
  newClientCertificate: boolean;
  /** The client certificate's expiry. */
  notAfter: Date;
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The client certificate of an existing kubeconfig, when its CA issued it and it has a while left. */
async function currentClient(path: string, ca: KeyPair, now: number): Promise<KeyPair | undefined> {
  const text = await readIfPresent(path);
  if (text === undefined) return undefined;
  const user = (parse(text) as { users?: { user?: Record<string, string> }[] } | null)?.users?.[0]?.user;
  const cert = user?.['client-certificate-data'] && Buffer.from(user['client-certificate-data'], 'base64').toString();
  const key = user?.['client-key-data'] && Buffer.from(user['client-key-data'], 'base64').toString();
  if (!cert || !key) return undefined;
  const facts = inspectCertificate(cert);
  return facts.issuedBy(ca.cert) && facts.notAfter - now > RENEW_BEFORE_DAYS * DAY_MS ? { cert, key } : undefined;
}

/**
 * Writes into `dir` what kube-apiserver needs to present its client certificate to podops' webhooks (the
 * AdmissionConfiguration, and the kubeconfig it names as `<apiserverDir>/webhook-client.kubeconfig`), the
 * CA that issued it (its key kept for the next run), and Helm values that install the operator requiring it.
 * Run again, it keeps the CA and a client certificate with more than 30 days left: the files change only when
 * something is due.
 */
export async function writeWebhookClientAuth(dir: string, options: { webhookHost: string; apiserverDir: string; now: number }): Promise<WebhookClientAuthFiles> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = (name: keyof typeof WEBHOOK_CLIENT_FILES): string => join(dir, WEBHOOK_CLIENT_FILES[name]);
  const secret = async (name: keyof typeof WEBHOOK_CLIENT_FILES, text: string): Promise<void> => {
    await writeFile(path(name), text, { mode: 0o600 });
    await chmod(path(name), 0o600);
  };
  const [caCert, caKey] = [await readIfPresent(path('caCert')), await readIfPresent(path('caKey'))];
  if ((caCert === undefined) !== (caKey === undefined)) {
    throw new Error(`${dir} holds only one of ${WEBHOOK_CLIENT_FILES.caCert} and ${WEBHOOK_CLIENT_FILES.caKey}: restore the other, or remove both to make a new CA`);
  }
  const ca = caCert !== undefined && caKey !== undefined ? { cert: caCert, key: caKey } : await generateCA('podops-webhook-client-ca', CA_DAYS, options.now);
  const newCA = caCert === undefined;
  if (newCA) {
    await writeFile(path('caCert'), ca.cert);
    await secret('caKey', ca.key);
  }
  const kept = newCA ? undefined : await currentClient(path('kubeconfig'), ca, options.now);
  const client = kept ?? (await generateClientCertificate(ca, WEBHOOK_CLIENT_NAME, CLIENT_DAYS, options.now));
  if (!kept) await secret('kubeconfig', stringify(webhookClientKubeconfig(options.webhookHost, client)));
  await writeFile(path('admissionConfiguration'), stringify(admissionConfiguration(join(options.apiserverDir, WEBHOOK_CLIENT_FILES.kubeconfig))));
  await writeFile(path('helmValues'), stringify({ webhookClientAuth: { caCert: ca.cert, names: WEBHOOK_CLIENT_NAME } }));
  return { caCert: ca.cert, newCA, newClientCertificate: !kept, notAfter: new Date(new X509Certificate(client.cert).validTo) };
}
