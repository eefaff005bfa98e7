// Certificates for the optional TLS mode: a throwaway CA and a serving certificate for 127.0.0.1
// and localhost signed by it. The CA goes into the kubeconfig (certificate-authority-data) and
// into every namespace's kube-root-ca.crt.

import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

export interface ServingCertificates {
  caCertificate: string;
  certificate: string;
  privateKey: string;
}

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const day = 24 * 60 * 60 * 1000;

function pem(label: string, der: ArrayBuffer): string {
  const base64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${base64.trimEnd()}\n-----END ${label}-----\n`;
}

export async function generateServingCertificates(hosts: readonly string[]): Promise<ServingCertificates> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[1]);
  const crypto = webcrypto;
  const notBefore = new Date(Date.now() - day);
  const notAfter = new Date(Date.now() + 365 * day);
  const caKeys = await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=podops-sandbox-ca',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const serverKeys = await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const names = hosts.map((host) => (/^[\d.]+$|:/.test(host) ? { type: 'ip' as const, value: host } : { type: 'dns' as const, value: host }));
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=podops-sandbox',
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ],
  });
  const privateKey = await crypto.subtle.exportKey('pkcs8', serverKeys.privateKey);
  return { caCertificate: ca.toString('pem'), certificate: server.toString('pem'), privateKey: pem('PRIVATE KEY', privateKey) };
}
