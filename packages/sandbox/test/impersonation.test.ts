// Impersonation (Impersonate-User, -Group, -Uid, -Extra-*): the request acts as the named user, as
// kube-apiserver's filter makes it, through raw HTTP, a client-node kubeconfig user's `as`, and kubectl --as.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { UserInfo } from '../src/index.ts';
import { skipWithoutKubectl, startHarness, type Harness } from './harness.ts';

let h: Harness;
/** The userInfo admission saw for each ConfigMap created, by name. */
const seen = new Map<string, UserInfo>();

before(async () => {
  h = await startHarness({ recordWrites: true });
  h.sandbox.addAdmission({
    name: 'record-user',
    admit(a) {
      if (a.resource.resource === 'configmaps' && a.operation === 'CREATE') seen.set(a.name || (a.object?.metadata.name ?? ''), a.userInfo);
    },
  });
});
after(() => h.stop());

const create = (name: string, headers: Record<string, string>) => h.http('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name } }, headers);

/** node:http, which sends a header given several values as several lines (fetch joins them) and a path as written. */
function send(method: string, path: string, headers: OutgoingHttpHeaders, body?: unknown): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const { hostname, port } = new URL(h.sandbox.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

test('without Impersonate-* headers a request is the admin', async () => {
  assert.equal((await create('plain', {})).status, 201);
  assert.deepEqual(seen.get('plain'), { username: 'admin', groups: ['system:masters', 'system:authenticated'] });
});

test('Impersonate-User, -Group, -Uid and -Extra-* make the user; system:authenticated is added', async () => {
  assert.equal((await create('alice', { 'Impersonate-User': 'alice' })).status, 201);
  assert.deepEqual(seen.get('alice'), { username: 'alice', groups: ['system:authenticated'] });

  const res = await send(
    'POST',
    '/api/v1/namespaces/default/configmaps',
    {
      'Impersonate-User': 'bob',
      'Impersonate-Group': ['devs', 'ops'],
      'Impersonate-Uid': 'u-1',
      'Impersonate-Extra-Scopes': ['read', 'write'],
      'Impersonate-Extra-example.com%2fteam': 'blue',
    },
    { metadata: { name: 'bob' } },
  );
  assert.equal(res.status, 201);
  assert.deepEqual(seen.get('bob'), { username: 'bob', uid: 'u-1', groups: ['devs', 'ops', 'system:authenticated'], extra: { scopes: ['read', 'write'], 'example.com/team': ['blue'] } });
});

test('a service account gets its groups unless groups are given; system:anonymous is unauthenticated', async () => {
  await create('sa', { 'Impersonate-User': 'system:serviceaccount:apps:builder' });
  assert.deepEqual(seen.get('sa')?.groups, ['system:serviceaccounts', 'system:serviceaccounts:apps', 'system:authenticated']);
  await create('sa-groups', { 'Impersonate-User': 'system:serviceaccount:apps:builder', 'Impersonate-Group': 'custom' });
  assert.deepEqual(seen.get('sa-groups')?.groups, ['custom', 'system:authenticated']);
  await create('anonymous', { 'Impersonate-User': 'system:anonymous' });
  assert.deepEqual(seen.get('anonymous'), { username: 'system:anonymous', groups: ['system:unauthenticated'] });
});

test('groups, extra or a uid without a user: a plain-text 500, as the filter answers', async () => {
  const res = await send('GET', '/api/v1/namespaces?limit=1&x=<a>', { 'Impersonate-Group': 'devs', 'Impersonate-Uid': 'u-2' });
  assert.equal(res.status, 500);
  assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.equal(res.text, 'Internal Server Error: "/api/v1/namespaces?limit=1&amp;x=&lt;a&gt;": requested [{Group  devs    } {UID  u-2  authentication.k8s.io/v1  }] without impersonating a user\n');
});

test("client-node sends the kubeconfig user's `as`", async () => {
  const kc = new KubeConfig();
  kc.loadFromOptions(h.sandbox.kubeConfigOptionsAs('carol'));
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'carol' } } });
  assert.deepEqual(seen.get('carol'), { username: 'carol', groups: ['system:authenticated'] });
  assert.deepEqual(h.sandbox.history?.records({ name: 'carol' }).map((r) => r.user), ['carol']);
  assert.throws(() => h.sandbox.kubeConfigOptionsAs(''), /kubeConfigOptionsAs needs the username to act as/);
});

test('kubectl --as and --as-group', { skip: skipWithoutKubectl }, async () => {
  const out = await h.kubectl(['create', 'configmap', 'dave', '--as=dave', '--as-group=devs']);
  assert.equal(out.code, 0, out.stderr);
  assert.deepEqual(seen.get('dave'), { username: 'dave', groups: ['devs', 'system:authenticated'] });
});
