// Certificates for the optional TLS mode: a throwaway CA and a serving certificate for 127.0.0.1 and
// localhost signed by it. The CA goes into the kubeconfig (certificate-authority-data) and into every
// namespace's kube-root-ca.crt. The tests' webhook servers get their certificates from the same CA maker.

import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

export interface ServingCertificates {
  caCertificate: string;
  certificate: string;
  privateKey: string;
}

/** A certificate authority of one's own: its certificate, and certificates it signs. */
export interface CertificateAuthority {
  /** PEM of the CA certificate. */
  readonly certificate: string;
  /** PEM (PKCS#8) of its private key, for a component that signs with it (kube-controller-manager's CSR signer). */
  readonly privateKey: string;
  /** A leaf certificate for `subject` (`CN=…`) with `extensions` besides its basic constraints and authority key id; PEM, with its PKCS#8 key. */
  sign(subject: string, extensions: x509.Extension[]): Promise<{ cert: string; key: string }>;
}

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const day = 24 * 60 * 60 * 1000;

function pem(label: string, der: ArrayBuffer): string {
  const base64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${base64.trimEnd()}\n-----END ${label}-----\n`;
}

/** A new CA (`CN=<commonName>`, valid from a day ago for `validityDays`); its certificates are valid as long. */
export async function createCertificateAuthority(commonName: string, validityDays: number): Promise<CertificateAuthority> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[1]);
  const notBefore = new Date(Date.now() - day);
  const notAfter = new Date(Date.now() + validityDays * day);
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${commonName}`,
    notBefore,
    notAfter,
    keys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  let serial = 1;
  return {
    certificate: ca.toString('pem'),
    privateKey: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
    async sign(subject, extensions) {
      const leafKeys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
      serial++;
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial.toString(16).padStart(2, '0'),
        subject,
        issuer: ca.subject,
        notBefore,
        notAfter,
        publicKey: leafKeys.publicKey,
        signingKey: keys.privateKey,
        signingAlgorithm: algorithm,
        extensions: [new x509.BasicConstraintsExtension(false, undefined, true), await x509.AuthorityKeyIdentifierExtension.create(ca), ...extensions],
      });
      return { cert: cert.toString('pem'), key: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey)) };
    },
  };
}

/** What a client certificate carries (the subject's CN is the user, its O entries the groups). */
export function clientExtensions(): x509.Extension[] {
  return [
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
  ];
}

/** What a serving certificate for `hosts` (IP addresses or DNS names) carries. */
export function servingExtensions(hosts: readonly string[]): x509.Extension[] {
  const names = hosts.map((host) => (/^[\d.]+$|:/.test(host) ? { type: 'ip' as const, value: host } : { type: 'dns' as const, value: host }));
  return [
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    new x509.SubjectAlternativeNameExtension(names),
  ];
}

export async function generateServingCertificates(hosts: readonly string[]): Promise<ServingCertificates> {
  const ca = await createCertificateAuthority('podops-sandbox-ca', 365);
  const { cert, key } = await ca.sign('CN=podops-sandbox', servingExtensions(hosts));
  return { caCertificate: ca.certificate, certificate: cert, privateKey: key };
}
