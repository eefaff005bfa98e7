// Verifying a webhook's serving certificate as Go's crypto/tls and crypto/x509 do, so failures read
// as the real server reports them: the leaf's validity period first, then the host name (SANs only,
// never the Common Name), then the chain to the caBundle, which is the only trust root. Node's TLS
// socket does the chain check; this module turns its verdict into Go's words.

import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { isIP } from 'node:net';

/** Go's `x509: certificate signed by unknown authority` family of OpenSSL verdicts. */
const unknownAuthorityCodes = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

const pemBlock = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM bundle that parse (x509.CertPool.AppendCertsFromPEM skips the others). */
export function bundleCertificates(pem: string): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (const block of pem.match(pemBlock) ?? []) {
    try {
      out.push(new X509Certificate(block));
    } catch {
      // not a certificate: skipped, as Go skips it
    }
  }
  return out;
}

/** time.RFC3339 in UTC, as Go formats the validity error. */
const rfc3339 = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `CN=a\nO=b` (Node's rendering of a distinguished name) → its attributes. */
function nameAttribute(dn: string, attribute: string): string | undefined {
  for (const line of dn.split('\n')) if (line.startsWith(`${attribute}=`)) return line.slice(attribute.length + 1);
  return undefined;
}

function canonicalIP(ip: string): string {
  return isIP(ip) === 6 ? new URL(`http://[${ip}]`).hostname.slice(1, -1) : ip;
}

function subjectAltNames(cert: X509Certificate): { dns: string[]; ips: string[] } {
  const dns: string[] = [];
  const ips: string[] = [];
  for (const entry of (cert.subjectAltName ?? '').split(', ')) {
    if (entry.startsWith('DNS:')) dns.push(entry.slice(4));
    else if (entry.startsWith('IP Address:')) ips.push(canonicalIP(entry.slice(11)));
  }
  return { dns, ips };
}

/** Go's matchHostnames: case-insensitive, a leading `*` label matches exactly one label. */
function matchesHostname(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase().replace(/\.$/, '').split('.');
  const h = host.toLowerCase().replace(/\.$/, '').split('.');
  if (p.length !== h.length || p.some((label) => label === '')) return false;
  return p.every((label, i) => (i === 0 && label === '*') || label === h[i]);
}

/** x509.HostnameError, or undefined when the certificate is valid for `host`. */
function hostnameError(cert: X509Certificate, host: string): string | undefined {
  const { dns, ips } = subjectAltNames(cert);
  if (isIP(host)) {
    if (ips.includes(canonicalIP(host))) return undefined;
    if (ips.length === 0) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
    return `x509: certificate is valid for ${ips.join(', ')}, not ${host}`;
  }
  if (dns.some((name) => matchesHostname(name, host))) return undefined;
  if (dns.length === 0) {
    const cn = nameAttribute(cert.subject, 'CN');
    if (cn !== undefined && matchesHostname(cn, host)) return 'x509: certificate relies on legacy Common Name field, use SANs instead';
    return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  }
  return `x509: certificate is valid for ${dns.join(', ')}, not ${host}`;
}

/** The signature error Go reports for a candidate CA whose key did not sign the certificate. */
function signatureFailure(ca: X509Certificate): string {
  switch (ca.publicKey.asymmetricKeyType) {
    case 'ec':
      return 'x509: ECDSA verification failure';
    case 'ed25519':
      return 'x509: Ed25519 verification failure';
    default:
      return 'crypto/rsa: verification error';
  }
}

/** UnknownAuthorityError, with the hint Go adds when a CA of the same name did not sign the certificate. */
function unknownAuthority(leaf: X509Certificate, roots: readonly X509Certificate[]): string {
  const message = 'x509: certificate signed by unknown authority';
  const impostor = roots.find((ca) => ca.subject === leaf.issuer && !leaf.verify(ca.publicKey));
  if (!impostor) return message;
  const name =
    nameAttribute(impostor.subject, 'CN') ?? nameAttribute(impostor.subject, 'O') ?? `serial:${BigInt(`0x${impostor.serialNumber}`).toString()}`;
  return `${message} (possibly because of ${JSON.stringify(signatureFailure(impostor))} while trying to verify candidate authority certificate ${JSON.stringify(name)})`;
}

/**
 * Go's verdict on the server's certificate, or undefined when it is trusted for `host`. The socket
 * was opened with rejectUnauthorized false, so Node's verdict is in `authorized`/`authorizationError`.
 */
export function verifyServerCertificate(socket: TLSSocket, host: string, roots: readonly X509Certificate[], now: number): string | undefined {
  const leaf = socket.getPeerX509Certificate();
  if (!leaf) return 'tls: server did not send a certificate';
  const prefix = 'tls: failed to verify certificate: ';
  const notBefore = new Date(leaf.validFrom);
  const notAfter = new Date(leaf.validTo);
  if (now > notAfter.getTime()) return `${prefix}x509: certificate has expired or is not yet valid: current time ${rfc3339(new Date(now))} is after ${rfc3339(notAfter)}`;
  if (now < notBefore.getTime()) return `${prefix}x509: certificate has expired or is not yet valid: current time ${rfc3339(new Date(now))} is before ${rfc3339(notBefore)}`;
  const wrongHost = hostnameError(leaf, host);
  if (wrongHost) return prefix + wrongHost;
  if (socket.authorized) return undefined;
  const code = String(socket.authorizationError ?? '');
  if (unknownAuthorityCodes.has(code)) return prefix + unknownAuthority(leaf, roots);
  if (code === 'INVALID_PURPOSE') return `${prefix}x509: certificate specifies an incompatible key usage`;
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return `${prefix}x509: certificate has expired or is not yet valid`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return undefined;
  return `${prefix}x509: ${code.toLowerCase().replaceAll('_', ' ')}`;
}
