// The certificates and keys of a control plane of its own, made in-process: a cluster CA with the API
// server's serving certificate (loopback and the names of the `kubernetes` Service) and two clients, the
// admin (group system:masters) and kube-controller-manager; a front-proxy CA and its client, which the
// API server's aggregation layer expects; and the service-account signing key pair.

import { generateKeyPairSync } from 'node:crypto';
import { clientExtensions, createCertificateAuthority, servingExtensions } from '../tls/certificates.ts';

export interface KeyAndCertificate {
  cert: string;
  key: string;
}

export interface ControlPlanePki {
  ca: KeyAndCertificate;
  apiServer: KeyAndCertificate;
  admin: KeyAndCertificate;
  controllerManager: KeyAndCertificate;
  frontProxyCa: string;
  frontProxyClient: KeyAndCertificate;
  serviceAccount: { publicKey: string; privateKey: string };
}

/** The first address of the service range: the `kubernetes` Service's cluster IP. */
export const serviceClusterIPRange = '10.0.0.0/24';
const kubernetesServiceIP = '10.0.0.1';

const validityDays = 30;

export async function createControlPlanePki(): Promise<ControlPlanePki> {
  const ca = await createCertificateAuthority('podops-control-plane-ca', validityDays);
  const frontProxy = await createCertificateAuthority('podops-control-plane-front-proxy-ca', validityDays);
  const serviceNames = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
  const [apiServer, admin, controllerManager, frontProxyClient] = await Promise.all([
    ca.sign('CN=kube-apiserver', servingExtensions(['127.0.0.1', 'localhost', kubernetesServiceIP, ...serviceNames])),
    ca.sign('CN=admin, O=system:masters', clientExtensions()),
    ca.sign('CN=system:kube-controller-manager', clientExtensions()),
    frontProxy.sign('CN=front-proxy-client', clientExtensions()),
  ]);
  const serviceAccount = generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  return {
    ca: { cert: ca.certificate, key: ca.privateKey },
    apiServer,
    admin,
    controllerManager,
    frontProxyCa: frontProxy.certificate,
    frontProxyClient,
    serviceAccount,
  };
}
