// The kubeconfig kubectl and @kubernetes/client-node load to reach the sandbox. The sandbox does
// not authenticate; the user entry carries a static token so clients send an Authorization header
// as they would to a real cluster.

import YAML from 'yaml';

export interface KubeconfigOptions {
  server: string;
  /** PEM of the CA that signed the serving certificate (TLS mode). */
  caCertificate?: string;
  name?: string;
}

export function renderKubeconfig(options: KubeconfigOptions): string {
  const name = options.name ?? 'podops-sandbox';
  const cluster: Record<string, unknown> = { server: options.server };
  if (options.caCertificate) cluster['certificate-authority-data'] = Buffer.from(options.caCertificate).toString('base64');
  // @kubernetes/client-node refuses a plain-http server unless TLS verification is explicitly off.
  else cluster['insecure-skip-tls-verify'] = true;
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: { token: 'podops-sandbox' } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
