// The request-target as the real server reads it: never normalised, so a `.` or `..` name segment
// (raw or percent-encoded) reaches the registry and is refused there instead of addressing the
// parent; a namespace of that name is refused by the storage layer; a target Go cannot parse is
// refused by net/http before any handler runs. node:http sends the path exactly as given.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { rawExchange, startHarness, type Harness } from './harness.ts';

let h: Harness;
const ns = 'trav';

before(async () => {
  h = await startHarness();
  assert.equal((await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  assert.equal((await h.http('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'x' } })).status, 201);
});
after(() => h.stop());

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function send(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${h.sandbox.url}`, { method, path, headers: body === undefined ? {} : { 'Content-Type': contentType } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const badName = (name: string, why: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `Name parameter invalid: ${JSON.stringify(name)}: ${why}`,
  reason: 'BadRequest',
  code: 400,
});

const requests = (name: string): [string, unknown, string?][] => [
  ['GET', undefined],
  ['DELETE', undefined],
  ['PUT', { metadata: { name } }],
  ['PATCH', { data: { a: '1' } }, 'application/merge-patch+json'],
];

describe('a name segment of . or ..', () => {
  for (const [segment, name] of [
    ['..', '..'],
    ['%2e%2e', '..'],
    ['%2E%2e', '..'],
    ['.%2E', '..'],
    ['.', '.'],
    ['%2e', '.'],
  ] as const) {
    test(`configmaps/${segment}: 400 Name parameter invalid for GET, DELETE, PUT and PATCH; the namespace stays`, async () => {
      for (const [method, body, contentType] of requests(name)) {
        const res = await send(method, `/api/v1/namespaces/${ns}/configmaps/${segment}`, body, contentType);
        assert.equal(res.status, 400, `${method} ${segment}`);
        assert.deepEqual(res.json, badName(name, `may not be '${name}'`), `${method} ${segment}`);
      }
      assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}`)).json.status.phase, 'Active');
      assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status, 200);
    });
  }

  test('a cluster-scoped name, and the namespace itself', async () => {
    assert.deepEqual((await send('GET', '/api/v1/namespaces/..')).json, badName('..', "may not be '..'"));
    assert.deepEqual((await send('DELETE', '/api/v1/nodes/%2e')).json, badName('.', "may not be '.'"));
  });

  test('a name with an escaped % is refused the same way', async () => {
    assert.deepEqual((await send('GET', `/api/v1/namespaces/${ns}/configmaps/a%25b`)).json, badName('a%b', "may not contain '%'"));
  });

  test('an escaped slash separates segments, as in the decoded path: configmaps/x%2Fstatus is not a name', async () => {
    assert.equal((await send('GET', `/api/v1/namespaces/${ns}/configmaps/x%2Fstatus`)).status, 404);
  });
});

describe('a namespace segment of . or ..', () => {
  test('the registry key has a dot segment, which etcd refuses: 500 invalid key, no reason', async () => {
    for (const segment of ['..', '%2e%2E']) {
      for (const [method, body, contentType] of requests('x')) {
        const res = await send(method, `/api/v1/namespaces/${segment}/configmaps/x`, body, contentType);
        assert.equal(res.status, 500, `${method} ${segment}`);
        assert.deepEqual(res.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'invalid key: "/configmaps/../x"', code: 500 });
      }
    }
    // Services are kept under services/specs.
    const svc = await send('GET', '/api/v1/namespaces/./services/s');
    assert.equal(svc.json.message, 'invalid key: "/services/specs/./s"');
    assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/x`)).status, 200);
  });

  test('the name is checked first', async () => {
    assert.deepEqual((await send('GET', '/api/v1/namespaces/../configmaps/..')).json, badName('..', "may not be '..'"));
  });
});

describe('a request-target Go cannot parse', () => {
  const goBadRequest = 'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request';

  test('an escape that does not decode is a plain-text 400 from net/http, and the connection closes', async () => {
    for (const target of ['/api/v1/namespaces/%zz/pods', '/api/v1/namespaces/default/configmaps/%', '/api/v1/namespaces/a%2/pods', '/%ff%zz']) {
      const res = await rawExchange(h.sandbox.url, `GET ${target} HTTP/1.1\r\nHost: sandbox\r\n\r\n`);
      assert.equal(res.response, goBadRequest, target);
      assert.ok(res.closed, target);
    }
  });

  test('an escape that decodes to invalid UTF-8 is a name like any other', async () => {
    assert.equal((await send('GET', `/api/v1/namespaces/${ns}/configmaps/%ff`)).status, 404);
  });

  test('absolute-form targets are read for their path; one whose host does not parse is a 400', async () => {
    const absolute = await rawExchange(h.sandbox.url, `GET http://sandbox/api/v1/namespaces/${ns}/configmaps/.. HTTP/1.1\r\nHost: sandbox\r\nConnection: close\r\n\r\n`);
    assert.equal(absolute.status, 400);
    assert.match(absolute.response, /Name parameter invalid: \\"..\\": may not be '..'/);
    const badHost = await rawExchange(h.sandbox.url, 'GET http://[/api/v1 HTTP/1.1\r\nHost: sandbox\r\n\r\n');
    assert.equal(badHost.response, goBadRequest);
  });
});
