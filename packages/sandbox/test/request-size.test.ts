// A request body over the 3 MiB limit: the real server answers 413 RequestEntityTooLarge while the
// client may still be sending, then closes the connection; the client must read that answer, not a
// reset (raw HTTP and kubectl).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;
const ns = 'size';
const limit = 3 * 1024 * 1024;
const tooLarge = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Request entity too large: limit is 3145728',
  reason: 'RequestEntityTooLarge',
  code: 413,
};

before(async () => {
  h = await startHarness();
  assert.equal((await h.http('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
});
after(() => h.stop());

/** POSTs `body` with node:http, which keeps writing while it reads the answer. */
function post(path: string, body: Buffer): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${h.sandbox.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const configMapOfSize = (bytes: number): Buffer =>
  Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(bytes) } }));

test('a body over 3 MiB is answered 413 with the Status and Connection: close, read by a client still sending', async () => {
  for (const size of [limit + 1, 8 * 1024 * 1024]) {
    const res = await post(`/api/v1/namespaces/${ns}/configmaps`, configMapOfSize(size));
    assert.equal(res.status, 413);
    assert.equal(res.headers.connection, 'close');
    assert.deepEqual(JSON.parse(res.text), tooLarge);
  }
  // The server is unharmed, and nothing was stored.
  assert.equal((await h.http('GET', `/api/v1/namespaces/${ns}/configmaps/big`)).status, 404);
});

test('a body of 3 MiB less its envelope is read whole', async () => {
  const res = await post(`/api/v1/namespaces/${ns}/configmaps`, configMapOfSize(limit - 200));
  // Accepted by the body limit; the size of a ConfigMap is then the validator's business.
  assert.notEqual(res.status, 413);
});

test('kubectl create of a 3 MB object prints the 413, not EOF', { skip: skipWithoutKubectl }, async () => {
  const file = join(dirname(h.kubeconfigPath), 'big.json');
  await writeFile(file, configMapOfSize(3_200_000));
  const res = await h.kubectl(['create', '-n', ns, '-f', file]);
  assert.equal(res.code, 1);
  assert.equal(res.stderr.trim(), `Error from server (RequestEntityTooLarge): error when creating "${file}": Request entity too large: limit is 3145728`);
});
