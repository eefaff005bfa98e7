// Certificate generation for the webhook server: a CA and a serving certificate signed by it (ECDSA P-256,
// cheap to generate and verify), as PEM.

import 'reflect-metadata';
import { X509Certificate as NodeX509, type webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';

type CryptoKey = webcrypto.CryptoKey;

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

export interface KeyPair {
  cert: string;
  key: string;
}

export interface ServingBundle {
  ca: KeyPair;
  serving: KeyPair;
}

async function exportKey(key: CryptoKey): Promise<string> {
  const der = await crypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

async function importKey(pem: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('pkcs8', x509.PemConverter.decode(pem)[0]!, ALGORITHM, true, ['sign']);
}

const serial = (): string => Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1');

export async function generateCA(commonName: string, validityDays: number, now: number): Promise<KeyPair> {
  const keys = await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + validityDays * DAY_MS),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString('pem'), key: await exportKey(keys.privateKey) };
}

/** A serving certificate for `hosts` (DNS names and IP addresses), signed by the CA. */
export function generateServing(ca: KeyPair, hosts: readonly string[], validityDays: number, now: number): Promise<KeyPair> {
  return issue(ca, hosts[0] ?? 'podops-webhook', hosts, x509.ExtendedKeyUsage.serverAuth, validityDays, now);
}

/** A client certificate named `commonName` (e.g. the API server's, for calling the webhooks), signed by the CA. */
export function generateClientCertificate(ca: KeyPair, commonName: string, validityDays: number, now: number): Promise<KeyPair> {
  return issue(ca, commonName, [], x509.ExtendedKeyUsage.clientAuth, validityDays, now);
}

async function issue(ca: KeyPair, commonName: string, hosts: readonly string[], usage: string, validityDays: number, now: number): Promise<KeyPair> {
  const caCert = new x509.X509Certificate(ca.cert);
  const keys = await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const names = hosts.map((host) => (isIP(host) ? { type: 'ip' as const, value: host } : { type: 'dns' as const, value: host }));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${commonName}`,
    issuer: caCert.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + validityDays * DAY_MS),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: await importKey(ca.key),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([usage]),
      ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
      // Names the signing key, so a verifier trusting several CAs (during a CA rotation) picks the right one.
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  });
  return { cert: cert.toString('pem'), key: await exportKey(keys.privateKey) };
}

export interface CertificateFacts {
  notAfter: number;
  /** DNS names and IP addresses of the subjectAltName. */
  hosts: string[];
  issuedBy(ca: string): boolean;
}

export function inspectCertificate(pem: string): CertificateFacts {
  const cert = new NodeX509(pem);
  const hosts = (cert.subjectAltName ?? '')
    .split(', ')
    .filter(Boolean)
    .map((entry) => entry.replace(/^(DNS|IP Address):/, ''));
  return {
    notAfter: Date.parse(cert.validTo),
    hosts,
    issuedBy: (ca) => {
      try {
        return cert.checkIssued(new NodeX509(ca)) && cert.verify(new NodeX509(ca).publicKey);
      } catch {
        return false;
      }
    },
  };
}
