// Certificate generation for the webhook server: a CA and a serving certificate signed by it (ECDSA P-256,
// cheap to generate and verify), as PEM. Made with node:crypto and a few lines of DER (der.ts): a certificate
// library would cost the operator about 7 MiB of resident memory for the few certificates it ever makes.

import { X509Certificate as NodeX509, createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { bitString, boolean, certificateSubject, explicit, implicit, namedBits, objectIdentifier, octetString, sequence, set, smallInteger, time, unsignedInteger, utf8String } from './der.ts';

const DAY_MS = 86_400_000;

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** KeyUsage bits (RFC 5280, 4.2.1.3). */
const KEY_USAGE = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 } as const;

export interface KeyPair {
  cert: string;
  key: string;
}

export interface ServingBundle {
  ca: KeyPair;
  serving: KeyPair;
}

interface CertificateRequest {
  subject: Uint8Array;
  issuer: Uint8Array;
  publicKey: KeyObject;
  signingKey: KeyObject;
  validityDays: number;
  now: number;
  extensions: Uint8Array[];
}

const name = (commonName: string): Uint8Array => sequence(set(sequence(objectIdentifier(OID.commonName), utf8String(commonName))));

const extension = (oid: string, critical: boolean, value: Uint8Array): Uint8Array =>
  sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));

/** RFC 5280's key identifier, method 1: the SHA-1 of the subjectPublicKey bits (here the EC point). */
function keyIdentifier(publicKey: KeyObject): Uint8Array {
  const { x = '', y = '' } = publicKey.export({ format: 'jwk' });
  return createHash('sha1').update(Buffer.concat([Uint8Array.of(4), Buffer.from(x, 'base64url'), Buffer.from(y, 'base64url')])).digest();
}

/** A positive 16-byte serial number. */
const serial = (): Uint8Array => {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x10;
  return bytes;
};

function certificate(request: CertificateRequest): string {
  const algorithm = sequence(objectIdentifier(OID.ecdsaWithSha256));
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(serial()),
    algorithm,
    request.issuer,
    sequence(time(new Date(request.now - 60_000)), time(new Date(request.now + request.validityDays * DAY_MS))),
    request.subject,
    request.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...request.extensions)),
  );
  const der = sequence(tbs, algorithm, bitString(sign('sha256', tbs, request.signingKey)));
  const body = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
}

const newKeys = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pkcs8 = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();

export async function generateCA(commonName: string, validityDays: number, now: number): Promise<KeyPair> {
  const keys = newKeys();
  const cert = certificate({
    subject: name(commonName),
    issuer: name(commonName),
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    validityDays,
    now,
    extensions: [
      extension(OID.basicConstraints, true, sequence(boolean(true), smallInteger(0))),
      extension(OID.keyUsage, true, namedBits([KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign])),
      extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(keys.publicKey))),
    ],
  });
  return { cert, key: pkcs8(keys.privateKey) };
}

/** A serving certificate for `hosts` (DNS names and IP addresses), signed by the CA. */
export function generateServing(ca: KeyPair, hosts: readonly string[], validityDays: number, now: number): Promise<KeyPair> {
  return issue(ca, hosts[0] ?? 'podops-webhook', hosts, 'serverAuth', validityDays, now);
}

/** A client certificate named `commonName` (e.g. the API server's, for calling the webhooks), signed by the CA. */
export function generateClientCertificate(ca: KeyPair, commonName: string, validityDays: number, now: number): Promise<KeyPair> {
  return issue(ca, commonName, [], 'clientAuth', validityDays, now);
}

/** A subjectAltName entry: dNSName [2] or iPAddress [7] (4 or 16 bytes). */
function altName(host: string): Uint8Array {
  if (isIP(host) === 4) return implicit(7, Uint8Array.from(host.split('.').map(Number)));
  if (isIP(host) === 6) return implicit(7, ipv6Bytes(host));
  return implicit(2, Buffer.from(host, 'ascii'));
}

function ipv6Bytes(address: string): Uint8Array {
  const [head = '', tail] = address.split('::');
  const groups = (part: string | undefined): string[] => (part ? part.split(':') : []);
  const fill = 8 - groups(head).length - groups(tail).length;
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array<string>(fill).fill('0'), ...groups(tail)];
  return Uint8Array.from(all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]));
}

async function issue(ca: KeyPair, commonName: string, hosts: readonly string[], usage: 'serverAuth' | 'clientAuth', validityDays: number, now: number): Promise<KeyPair> {
  const caCert = new NodeX509(ca.cert);
  const keys = newKeys();
  const cert = certificate({
    subject: name(commonName),
    issuer: certificateSubject(caCert.raw),
    publicKey: keys.publicKey,
    signingKey: createPrivateKey(ca.key),
    validityDays,
    now,
    extensions: [
      extension(OID.basicConstraints, true, sequence()),
      extension(OID.keyUsage, true, namedBits([KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment])),
      extension(OID.extKeyUsage, false, sequence(objectIdentifier(OID[usage]))),
      ...(hosts.length > 0 ? [extension(OID.subjectAltName, false, sequence(...hosts.map(altName)))] : []),
      // Names the signing key, so a verifier trusting several CAs (during a CA rotation) picks the right one.
      extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, keyIdentifier(caCert.publicKey)))),
    ],
  });
  return { cert, key: pkcs8(keys.privateKey) };
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
