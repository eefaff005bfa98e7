// Malformed HTTP over raw sockets: bad request lines and targets, broken headers, oversized headers,
// invalid framing and bodies. None may be answered with a 5xx, and after each the server must still
// answer an ordinary request.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rawExchange, startHarness, type Harness } from './harness.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(() => h.stop());

const configMaps = '/api/v1/namespaces/default/configmaps';
const post = (headers: string, body: string): string => `POST ${configMaps} HTTP/1.1\r\nHost: sandbox\r\n${headers}\r\n${body}`;

const corpus: [name: string, bytes: string | Buffer, answer?: number][] = [
  ['a request line without a target', 'GET HTTP/1.1\r\nHost: sandbox\r\n\r\n', 400],
  ['an absolute-form target with a broken host', 'GET http://[ HTTP/1.1\r\nHost: sandbox\r\n\r\n', 400],
  ['an absolute-form target', 'GET http://sandbox/version HTTP/1.1\r\nHost: sandbox\r\nConnection: close\r\n\r\n', 200],
  ['a target that is no path', 'GET %zz HTTP/1.1\r\nHost: sandbox\r\n\r\n', 400],
  ['a relative target', 'GET api/v1 HTTP/1.1\r\nHost: sandbox\r\n\r\n', 400],
  ['an escape that does not decode', 'GET /api/v1/namespaces/%zz/pods HTTP/1.1\r\nHost: sandbox\r\n\r\n', 400],
  ['a control character in the target', 'GET /api/v1/\x01 HTTP/1.1\r\nHost: sandbox\r\n\r\n', 400],
  ['an unknown protocol version', 'GET /version HTTP/9.9\r\nHost: sandbox\r\n\r\n'],
  ['not HTTP at all', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n', 400],
  ['a method with a space in it', 'GE T /version HTTP/1.1\r\nHost: sandbox\r\n\r\n', 400],
  ['a header line without a colon', 'GET /version HTTP/1.1\r\nHost: sandbox\r\nNoColonHere\r\n\r\n', 400],
  ['a header name with a space', 'GET /version HTTP/1.1\r\nHost: sandbox\r\nBad Header: x\r\n\r\n', 400],
  ['headers over 1 MiB', `GET /version HTTP/1.1\r\nHost: sandbox\r\nX-Big: ${'a'.repeat(1100 * 1024)}\r\n\r\n`, 431],
  ['headers of 100 KiB, within Go limit', `GET /version HTTP/1.1\r\nHost: sandbox\r\nX-Big: ${'a'.repeat(100 * 1024)}\r\nConnection: close\r\n\r\n`, 200],
  ['a Content-Length that is no number', post('Content-Type: application/json\r\nContent-Length: abc\r\n', '{}'), 400],
  ['a negative Content-Length', post('Content-Type: application/json\r\nContent-Length: -5\r\n', '{}'), 400],
  ['two different Content-Lengths', post('Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n', '{}'), 400],
  ['a Content-Length and chunked framing together', post('Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n', '{}'), 400],
  ['a Content-Length longer than the body, then silence', post('Content-Type: application/json\r\nContent-Length: 100\r\n', '{"metadata":')],
  ['a truncated chunked body, then silence', post('Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n', '5\r\n{"met')],
  ['a chunk size that is no number', post('Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n', 'zz\r\n{}\r\n0\r\n\r\n')],
  ['a body that is not JSON', post('Content-Type: application/json\r\nContent-Length: 9\r\nConnection: close\r\n', 'not json!'), 400],
  ['a body that is binary', Buffer.concat([Buffer.from(post('Content-Type: application/json\r\nContent-Length: 4\r\nConnection: close\r\n', '')), Buffer.from([0, 0xff, 0xfe, 1])]), 400],
  ['a good request followed by garbage on the same connection', `GET /version HTTP/1.1\r\nHost: sandbox\r\n\r\n\x00\x01garbage\r\n\r\n`, 200],
  ['a YAML body that is not YAML', post('Content-Type: application/yaml\r\nContent-Length: 7\r\nConnection: close\r\n', '{: [}\t]'), 400],
  ['a body of an unknown media type', post('Content-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n', '{}'), 415],
  ['a patch without a content type', `PATCH ${configMaps}/x HTTP/1.1\r\nHost: sandbox\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`, 415],
];

for (const [name, bytes, answer] of corpus) {
  test(name, async () => {
    const res = await rawExchange(h.sandbox.url, bytes);
    assert.ok(res.status === undefined || res.status < 500, `answered ${res.response.slice(0, 200)}`);
    if (answer !== undefined) assert.equal(res.status, answer, res.response.slice(0, 200));
    const version = await fetch(`${h.sandbox.url}/version`);
    assert.equal(version.status, 200);
    assert.equal((await h.http('GET', `${configMaps}`)).status, 200);
  });
}

test('many malformed requests on one connection after a good one', async () => {
  const res = await rawExchange(h.sandbox.url, `GET /version HTTP/1.1\r\nHost: sandbox\r\n\r\nGET /%zz HTTP/1.1\r\nHost: sandbox\r\n\r\nGET /version HTTP/1.1\r\n\r\n`);
  assert.match(res.response, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{[\s\S]*\}HTTP\/1\.1 400 Bad Request\r\n/);
  assert.ok(res.closed);
});
