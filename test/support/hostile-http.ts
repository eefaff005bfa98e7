// Malformed HTTP for the servers' hostile-input tests: raw bytes over TCP or TLS, and a corpus of request
// lines, headers and bodies that a client library would never send.

import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface RawTarget {
  host: string;
  port: number;
  /** Trust root for TLS; plain TCP without it. */
  ca?: string;
  /** Client certificate for servers that ask for one. */
  cert?: string;
  key?: string;
}

export const targetOf = (address: string, tls?: { ca: string; cert?: string; key?: string }): RawTarget => {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon);
  return { host: host === '0.0.0.0' ? '127.0.0.1' : host, port: Number(address.slice(colon + 1)), ...tls };
};

/** Opens a connection, resolving once it is usable (after the TLS handshake). */
export function open(target: RawTarget): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket: Socket = target.ca
      ? tlsConnect({ host: target.host, port: target.port, ca: target.ca, ...(target.cert && { cert: target.cert, key: target.key }) }, () => resolve(socket))
      : tcpConnect({ host: target.host, port: target.port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Sends `bytes` and collects what comes back until the server closes or `quietMs` pass without data; the
 * status code of the first response line, if any.
 */
export async function sendRaw(target: RawTarget, bytes: string | Buffer, quietMs = 500): Promise<{ status: number | undefined; text: string }> {
  const socket = await open(target);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout;
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
      resolve({ status: status === undefined ? undefined : Number(status), text });
    };
    const quiet = (): void => {
      clearTimeout(timer);
      timer = setTimeout(finish, quietMs);
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      quiet();
    });
    socket.on('error', finish);
    socket.on('close', finish);
    quiet();
    socket.write(bytes);
  });
}

/** Request heads and bodies no well-behaved client sends, each named for the test's message. */
export function hostileRequests(path: string): [string, string | Buffer][] {
  const json = '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}';
  return [
    ['an absolute-form target that is not a URL', 'GET http://[ HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['an absolute-form POST that is not a URL', `POST http://[${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}`],
    ['a target that is neither a path nor a URL', 'GET %zz HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['an undecodable escape in the path', `POST ${path}%zz HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}`],
    ['the asterisk form', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['an unknown method', `BREW ${path} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['an unknown protocol version', `GET ${path} HTTP/9.9\r\nHost: x\r\n\r\n`],
    ['a NUL byte in the path', `GET /\u0000x HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['a header line without a colon', `POST ${path} HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n`],
    ['100 KB of headers', `POST ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`],
    ['a Content-Length that is not a number', `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`],
    ['two different Content-Lengths', `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`],
    ['Content-Length with chunked encoding', `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
    ['a malformed chunk size', `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
    ['a truncated chunked body', `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"kind"`],
    ['a body shorter than its Content-Length', `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n${json}`],
    ['a body that is not JSON', `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\nnot json!`],
    ['invalid UTF-8 in the body', Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\n`), Buffer.from([0xff, 0xfe, 0xc0, 0x80])])],
    ['JSON nested 100,000 deep', (() => {
      const body = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
      return `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    })()],
    ['bytes that are not HTTP', Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x01, 0x00])],
  ];
}

/**
 * Keys that a plain object answers from its prototype (`constructor`, `toString`), or that set its prototype
 * (`__proto__`): request text used as a key must never reach one.
 */
export const PROTOTYPE_KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

/**
 * AdmissionReviews no API server sends, each named for the test's message: kinds that are members of
 * Object.prototype, as a kind and as a subresource.
 */
export function hostileReviews(): [string, string][] {
  const review = (kind: string, subResource?: string): string =>
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'hostile', kind: { group: '', version: 'v1', kind }, resource: { group: '', version: 'v1', resource: 'pods' }, ...(subResource && { subResource }), namespace: 'default', name: 'x', operation: 'CREATE', object: { metadata: { name: 'x' } } },
    });
  return PROTOTYPE_KEYS.flatMap((key): [string, string][] => [
    [`the kind ${key}`, review(key)],
    [`the subresource Pod/${key}`, review('Pod', key)],
  ]);
}

/** A review of a kind of `length` characters that no other call returns (a fresh metric label, were it used as one). */
export function uniqueKindReview(i: number, length = 200): string {
  const kind = `Forged${i}`.padEnd(length, 'x');
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: `unique-${i}`, kind: { group: 'forged.example.com', version: 'v1', kind }, resource: { group: 'forged.example.com', version: 'v1', resource: 'forgeds' }, namespace: 'default', name: 'x', operation: 'CREATE', object: { metadata: { name: 'x' } } },
  });
}
