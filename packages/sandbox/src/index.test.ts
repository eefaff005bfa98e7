// The seams part 2 builds on: admission plugins, in-process controllers and their client, and
// the write history.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError, failure } from './errors.ts';
import { startSandbox, type Sandbox, type WatchEvent } from './index.ts';

const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
let sandbox: Sandbox;
const json = { 'Content-Type': 'application/json' };

before(async () => {
  sandbox = await startSandbox({ recordWrites: 1000 });
});
after(() => sandbox.stop());

test('admission plugins mutate after defaulting and can deny; their warnings reach the client', async () => {
  const seen: string[] = [];
  const remove = sandbox.addAdmission({
    name: 'test',
    admit(a) {
      if (a.name === 'adm' || a.name === 'no') seen.push(`${a.operation} ${a.resource.resource} ${a.name} dryRun=${a.dryRun}`);
      if (a.operation === 'CREATE' && a.object) a.object.metadata.labels = { ...a.object.metadata.labels, admitted: 'yes' };
      return ['mutated by test'];
    },
    validate(a) {
      if (a.object?.metadata.labels?.deny === 'yes') throw new StatusError(failure(400, '', 'admission webhook "deny.example.com" denied the request: nope', undefined));
    },
  });
  const res = await fetch(`${sandbox.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: json, body: JSON.stringify({ metadata: { name: 'adm' } }) });
  assert.equal(res.status, 201);
  assert.equal(res.headers.get('warning'), '299 - "mutated by test"');
  assert.equal(((await res.json()) as { metadata: { labels: Record<string, string> } }).metadata.labels.admitted, 'yes');
  const denied = await fetch(`${sandbox.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: json, body: JSON.stringify({ metadata: { name: 'no', labels: { deny: 'yes' } } }) });
  assert.equal(denied.status, 400);
  await fetch(`${sandbox.url}/api/v1/namespaces/default/configmaps/adm`, { method: 'DELETE' });
  remove();
  assert.deepEqual(seen, ['CREATE configmaps adm dryRun=false', 'CREATE configmaps no dryRun=false', 'DELETE configmaps adm dryRun=false']);
});

test('in-process controllers see every change and write through the pipeline with their own identity', async () => {
  const events: string[] = [];
  const stop = sandbox.runController({
    name: 'echo',
    start(ctx) {
      return ctx.subscribe((e) => {
        if (e.resource !== 'configmaps' || e.type !== 'ADDED' || !e.key.startsWith('default/echo-')) return;
        events.push(e.key);
        if (e.key === 'default/echo-1') void ctx.client.create(configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'echo-2' }, data: { from: 'controller' } }, { namespace: 'default' });
      });
    },
  });
  const before = sandbox.requestCount({ verb: 'POST', resource: 'configmaps' });
  await sandbox.client().create(configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'echo-1' } }, { namespace: 'default' });
  // The controller's create is counted once it is answered, just after its event.
  const creates = (): number => sandbox.requestCount({ verb: 'POST', resource: 'configmaps' });
  for (const deadline = Date.now() + 5000; (events.length < 2 || creates() < before + 2) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 5));
  stop();
  assert.deepEqual(events, ['default/echo-1', 'default/echo-2']);
  assert.equal(creates(), before + 2);
  const echo2 = await sandbox.client().get(configmaps, 'echo-2', { namespace: 'default' });
  const managers = (echo2.metadata.managedFields as { manager: string }[]).map((m) => m.manager);
  assert.deepEqual(managers, ['kube-controller-manager']);
});

test('the local client watches with list semantics and returns copies', async () => {
  const client = sandbox.client();
  const seen: WatchEvent[] = [];
  const watch = await client.watch(configmaps, { namespace: 'default', query: { labelSelector: 'w=1', resourceVersion: String(sandbox.resourceVersion) } }, (e) => seen.push(e));
  await client.create(configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched', labels: { w: '1' } } }, { namespace: 'default' });
  await client.create(configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unwatched' } }, { namespace: 'default' });
  while (seen.length < 1) await new Promise((r) => setTimeout(r, 5));
  watch.stop();
  assert.deepEqual(seen.map((e) => [e.type, (e.object as { metadata: { name: string } }).metadata.name]), [['ADDED', 'watched']]);
  const copy = await client.get(configmaps, 'watched', { namespace: 'default' });
  copy.metadata.labels = { changed: 'locally' };
  assert.deepEqual((await client.get(configmaps, 'watched', { namespace: 'default' })).metadata.labels, { w: '1' });
});

test('the write history records stored writes with resourceVersions and times', async () => {
  await sandbox.client().create(configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hist' } }, { namespace: 'default' });
  await sandbox.client().delete(configmaps, 'hist', { namespace: 'default' });
  const records = sandbox.history?.records('configmaps').filter((r) => r.name === 'hist') ?? [];
  assert.deepEqual(records.map((r) => r.type), ['ADDED', 'DELETED']);
  assert.ok((records[1]?.resourceVersion ?? 0) > (records[0]?.resourceVersion ?? 0));
  assert.ok(typeof records[0]?.time === 'number');
});
