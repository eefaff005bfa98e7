// The kubeconfig kubectl and @kubernetes/client-node load to reach the sandbox: as YAML, and as the
// object client-node's `KubeConfig.loadFromOptions` takes (its field names, no dependency on it). The
// sandbox does not authenticate; the user entry carries a static token so clients send an Authorization
// header as they would to a real cluster, and `as` makes them impersonate a user of their own. A real
// control plane (./control-plane) authenticates its admin by a client certificate instead.

import YAML from 'yaml';

export interface KubeconfigOptions {
  server: string;
  /** PEM of the CA that signed the serving certificate (TLS mode). */
  caCertificate?: string;
  name?: string;
  /** The user to act as (`Impersonate-User`), e.g. `system:serviceaccount:default:my-controller`; default: the admin. */
  as?: string;
  /** PEM of a client certificate and its key, presented instead of the sandbox's token. */
  clientCertificate?: { cert: string; key: string };
}

/** What `new KubeConfig().loadFromOptions(…)` of @kubernetes/client-node takes. */
export interface KubeConfigLoadOptions {
  clusters: { name: string; server: string; skipTLSVerify: boolean; caData?: string }[];
  users: { name: string; token?: string; certData?: string; keyData?: string; impersonateUser?: string }[];
  contexts: { name: string; cluster: string; user: string; namespace: string }[];
  currentContext: string;
}

export function kubeConfigLoadOptions(options: KubeconfigOptions): KubeConfigLoadOptions {
  if (options.as !== undefined && !options.as) throw new Error('kubeconfig: `as` names the user to impersonate and may not be empty');
  const name = options.name ?? 'podops-sandbox';
  const base64 = (pem: string): string => Buffer.from(pem).toString('base64');
  const caData = options.caCertificate ? base64(options.caCertificate) : undefined;
  const credentials = options.clientCertificate
    ? { certData: base64(options.clientCertificate.cert), keyData: base64(options.clientCertificate.key) }
    : { token: 'podops-sandbox' };
  return {
    // @kubernetes/client-node refuses a plain-http server unless TLS verification is explicitly off.
    clusters: [{ name, server: options.server, skipTLSVerify: caData === undefined, ...(caData ? { caData } : {}) }],
    users: [{ name, ...credentials, ...(options.as ? { impersonateUser: options.as } : {}) }],
    contexts: [{ name, cluster: name, user: name, namespace: 'default' }],
    currentContext: name,
  };
}

export function renderKubeconfig(options: KubeconfigOptions): string {
  const config = kubeConfigLoadOptions(options);
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: config.clusters.map(({ name, server, skipTLSVerify, caData }) => ({
      name,
      cluster: caData ? { server, 'certificate-authority-data': caData } : { server, 'insecure-skip-tls-verify': skipTLSVerify },
    })),
    users: config.users.map(({ name, token, certData, keyData, impersonateUser }) => ({
      name,
      user: {
        ...(token === undefined ? {} : { token }),
        ...(certData === undefined ? {} : { 'client-certificate-data': certData, 'client-key-data': keyData }),
        ...(impersonateUser ? { as: impersonateUser } : {}),
      },
    })),
    contexts: config.contexts.map(({ name, ...context }) => ({ name, context })),
    'current-context': config.currentContext,
    preferences: {},
  });
}
