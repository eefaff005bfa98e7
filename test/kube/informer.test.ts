// The informer against the sandbox API server, over HTTP only.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { accessFromKubeconfig, parseKubeconfig } from '../../src/kube/kubeconfig.ts';
import { startSandbox, type Sandbox } from '@podops/sandbox';
import { KubeClient, type KubeObject, type ListOptions, type ObjectList } from '../../src/kube/client.ts';
import { Informer } from '../../src/kube/informer.ts';
import { NAMESPACES, PODS, type ResourceType } from '../../src/kube/resources.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { freePort, waitFor } from '../support/wait.ts';

const pod = (name: string, labels: Record<string, string> = {}, namespace = 'default'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

/** Counts lists, to see relists happen. */
class CountingClient extends KubeClient {
  lists = 0;
  override list<T>(type: ResourceType, options?: ListOptions, signal?: AbortSignal): Promise<ObjectList<T>> {
    this.lists++;
    return super.list<T>(type, options, signal);
  }
}

describe('Informer', () => {
  let sandbox: Sandbox;
  let client: CountingClient;
  const running: AbortController[] = [];
  /** Runs an informer until the test file ends, even when an assertion fails first. */
  const start = (informer: Informer<KubeObject>): { stop: () => Promise<void> } => {
    const abort = new AbortController();
    running.push(abort);
    const done = informer.run(abort.signal);
    return { stop: async () => (abort.abort(), await done) };
  };
  before(async () => {
    sandbox = await startSandbox({ watchCacheSize: 20, bookmarkIntervalMs: 3_600_000 });
    client = new CountingClient(accessFromKubeconfig(parseKubeconfig('sandbox', sandbox.kubeconfig, '.')));
  });
  after(async () => {
    for (const abort of running) abort.abort();
    client.close();
    await sandbox.stop();
  });

  test('lists, then follows adds, updates and deletes; indexes stay current; managedFields are dropped', async () => {
    await client.create(PODS, pod('pre-existing', { app: 'web' }));
    const informer = new Informer<KubeObject>({ client, type: PODS, namespace: 'default' });
    informer.addIndexer('app', (o) => [(o.metadata.labels as Record<string, string> | undefined)?.app ?? ''].filter(Boolean));
    const seen: string[] = [];
    informer.addHandler({
      onAdd: (o) => seen.push(`add ${o.metadata.name}`),
      onUpdate: (_p, o) => seen.push(`update ${o.metadata.name}`),
      onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
    });
    const run = start(informer);
    await informer.waitForSync();
    assert.deepEqual(seen, ['add pre-existing']);
    assert.equal(informer.get('default', 'pre-existing')?.metadata.managedFields, undefined);

    await client.create(PODS, pod('b', { app: 'web' }));
    await client.patch(PODS, 'default', 'b', 'merge', { metadata: { labels: { app: 'api' } } });
    await client.delete(PODS, 'default', 'pre-existing', { gracePeriodSeconds: 0 });
    await waitFor(() => seen.length === 5, 'the events');
    // A real server sends MODIFIED (deletionTimestamp set) before DELETED, even for an immediate delete.
    assert.deepEqual(seen, ['add pre-existing', 'add b', 'update b', 'update pre-existing', 'delete pre-existing']);
    assert.deepEqual(informer.byIndex('app', 'api').map((o) => o.metadata.name), ['b']);
    assert.deepEqual(informer.byIndex('app', 'web'), []);
    await run.stop();
    await client.delete(PODS, 'default', 'b', { gracePeriodSeconds: 0 });
  });

  test('the namespace index: list(namespace) stays right through relabels, moves and deletes across namespaces', async () => {
    const namespaces = ['index-a', 'index-b', 'index-c'];
    for (const name of namespaces) await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const informer = new Informer<KubeObject>({ client, type: PODS, labelSelector: 'indexed=yes' });
    const run = start(informer);
    await informer.waitForSync();
    const role = (o: KubeObject | undefined): string | undefined => (o?.metadata.labels as Record<string, string> | undefined)?.role;
    /** Each namespace's pods as list(namespace) gives them (name:role), checked against a scan of the whole cache. */
    const listed = (): Record<string, string[]> =>
      Object.fromEntries(
        namespaces.map((namespace) => {
          const indexed = informer.list(namespace);
          assert.deepEqual(new Set(indexed), new Set(informer.list().filter((o) => o.metadata.namespace === namespace)), `the index of ${namespace} agrees with the cache`);
          return [namespace, indexed.map((o) => `${o.metadata.name}:${role(o)}`).sort()];
        }),
      );
    const relabel = (namespace: string, name: string, labels: Record<string, string | null>) => client.patch(PODS, namespace, name, 'merge', { metadata: { labels } });
    const remove = (namespace: string, name: string) => client.delete(PODS, namespace, name, { gracePeriodSeconds: 0 });

    await client.create(PODS, pod('one', { indexed: 'yes', role: 'web' }, 'index-a'));
    await client.create(PODS, pod('two', { indexed: 'yes', role: 'web' }, 'index-a'));
    await client.create(PODS, pod('one', { indexed: 'yes', role: 'api' }, 'index-b'));
    await client.create(PODS, pod('outside', { role: 'db' }, 'index-c'));
    await waitFor(() => informer.size === 3, 'the selected pods cached');
    assert.deepEqual(listed(), { 'index-a': ['one:web', 'two:web'], 'index-b': ['one:api'], 'index-c': [] });

    // Relabelled within the selection: the namespace lists the new object, not a stale copy.
    await relabel('index-a', 'one', { role: 'batch' });
    await waitFor(() => role(informer.get('index-a', 'one')) === 'batch', 'the relabel');
    // Relabelled out of the selection and into it: leaves its namespace's list, and joins one.
    await relabel('index-a', 'two', { indexed: null });
    await relabel('index-c', 'outside', { indexed: 'yes' });
    await waitFor(() => !informer.get('index-a', 'two') && informer.get('index-c', 'outside') !== undefined, 'pods to leave and join the selection');
    assert.deepEqual(listed(), { 'index-a': ['one:batch'], 'index-b': ['one:api'], 'index-c': ['outside:db'] });

    // Moved: deleted in one namespace and made again, same name, in another.
    await remove('index-b', 'one');
    await client.create(PODS, pod('one', { indexed: 'yes', role: 'api' }, 'index-c'));
    await remove('index-a', 'one');
    await waitFor(() => informer.size === 2 && informer.get('index-c', 'one') !== undefined, 'the move and the delete');
    assert.deepEqual(listed(), { 'index-a': [], 'index-b': [], 'index-c': ['one:api', 'outside:db'] });
    await run.stop();
    await Promise.all([remove('index-a', 'two'), remove('index-c', 'one'), remove('index-c', 'outside')]);
  });

  test('falling behind the watch cache: 410 Gone, relist, and handlers learn what changed meanwhile', async () => {
    const informer = new Informer<KubeObject>({ client, type: PODS, namespace: 'default' });
    const deleted: string[] = [];
    informer.addHandler({ onDelete: (o) => deleted.push(o.metadata.name ?? '') });
    const first = start(informer);
    await client.create(PODS, pod('stays'));
    await client.create(PODS, pod('goes'));
    await waitFor(() => informer.size === 2, 'both pods cached');
    await first.stop();

    // While the informer is stopped: more writes than the watch cache keeps, and a delete.
    await client.delete(PODS, 'default', 'goes', { gracePeriodSeconds: 0 });
    for (let i = 0; i < 30; i++) await client.patch(PODS, 'default', 'stays', 'merge', { metadata: { annotations: { n: String(i) } } });
    const listsBefore = client.lists;
    const second = start(informer);
    await waitFor(() => deleted.includes('goes'), 'the delete noticed by relisting');
    assert.ok(client.lists > listsBefore, 'relisted');
    assert.equal((informer.get('default', 'stays')?.metadata.annotations as Record<string, string>).n, '29');
    await second.stop();
    await client.delete(PODS, 'default', 'stays', { gracePeriodSeconds: 0 });
  });

  test('a watch ended by the server is resumed without a relist; a silent watch trips the watchdog', async () => {
    const informer = new Informer<KubeObject>({ client, type: PODS, namespace: 'default', watchTimeoutSeconds: 1, idleTimeoutMs: 60_000 });
    const run = start(informer);
    await informer.waitForSync();
    const lists = client.lists;
    await new Promise((resolve) => setTimeout(resolve, 2200));
    await client.create(PODS, pod('after-timeout'));
    await waitFor(() => informer.get('default', 'after-timeout') !== undefined, 'the event after the watch was resumed');
    assert.equal(client.lists, lists, 'resumed from the last resourceVersion');
    await run.stop();

    const watchdog = new Informer<KubeObject>({ client, type: PODS, namespace: 'default', watchTimeoutSeconds: 300, idleTimeoutMs: 150 });
    const watching = start(watchdog);
    await watchdog.waitForSync();
    const before = client.lists;
    await waitFor(() => client.lists >= before + 2, 'relists after silent watches');
    await watching.stop();
    await client.delete(PODS, 'default', 'after-timeout', { gracePeriodSeconds: 0 });
  });

  test('an unreachable server: the informer keeps retrying with backoff and syncs once the server answers', async () => {
    const port = await freePort();
    const clock = new FakeClock();
    const late = KubeClient.fromKubeconfigText(sandbox.kubeconfig.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${port}`));
    const informer = new Informer<KubeObject>({ client: late, type: PODS, namespace: 'default', clock });
    const run = start(informer);
    await waitFor(() => clock.pendingTimers() > 0, 'the first failure and its backoff');
    assert.equal(informer.hasSynced(), false);
    const server = await startSandbox({ port });
    try {
      await late.create(PODS, pod('on-the-late-server'));
      clock.advance(1300);
      await informer.waitForSync();
      assert.ok(informer.get('default', 'on-the-late-server'));
    } finally {
      await run.stop();
      late.close();
      await server.stop();
    }
  });

  test("assume: a write of this process is read back at once, until the watch brings that version or a newer one", async () => {
    await client.create(PODS, pod('assumed', { app: 'web', step: '0' }));
    const informer = new Informer<KubeObject>({ client, type: PODS, namespace: 'default', labelSelector: 'app=web' });
    informer.addIndexer('app', (o) => [(o.metadata.labels as Record<string, string>).app ?? '']);
    const updates: string[] = [];
    informer.addHandler({ onUpdate: (_p, o) => updates.push((o.metadata.labels as Record<string, string>).step ?? '') });
    const step = (o: KubeObject | undefined): string | undefined => (o?.metadata.labels as Record<string, string> | undefined)?.step;
    let run = start(informer);
    await informer.waitForSync();
    const original = informer.get('default', 'assumed')!;
    // Stopped, the cache cannot learn of the write from its watch.
    await run.stop();
    const written = await client.patch<KubeObject>(PODS, 'default', 'assumed', 'merge', { metadata: { labels: { step: '1' } } });
    assert.equal(step(informer.get('default', 'assumed')), '0');
    informer.assume(written);
    assert.equal(step(informer.get('default', 'assumed')), '1', 'get');
    assert.deepEqual(informer.list('default').map(step), ['1'], 'list');
    assert.deepEqual(informer.byIndex('app', 'web').map(step), ['1'], 'an index');
    assert.equal(informer.get('default', 'assumed')?.metadata.managedFields, undefined, 'transformed as cached objects are');
    assert.equal(updates.length, 0, 'handlers learn of it from the watch only');
    // An older version than the cached one is never assumed, nor an object the cache does not hold.
    informer.assume(original);
    assert.equal(step(informer.get('default', 'assumed')), '1');
    informer.assume({ ...written, metadata: { ...written.metadata, name: 'elsewhere', resourceVersion: '999999999' } });
    assert.equal(informer.get('default', 'elsewhere'), undefined);
    // Running again, the cache catches up and then moves past the assumed version.
    run = start(informer);
    await waitFor(() => updates.includes('1'), 'the watch to deliver the write');
    await client.patch(PODS, 'default', 'assumed', 'merge', { metadata: { labels: { step: '2' } } });
    await waitFor(() => step(informer.get('default', 'assumed')) === '2', 'a later write by someone else');
    await run.stop();
    await client.delete(PODS, 'default', 'assumed', { gracePeriodSeconds: 0 });
  });

  test('keep: objects it refuses are not cached, and one that stops being kept leaves as a delete', async () => {
    const kept = (o: KubeObject): boolean => (o.metadata.labels as Record<string, string> | undefined)?.keep === 'yes';
    await client.create(PODS, pod('kept-first', { keep: 'yes' }));
    await client.create(PODS, pod('refused-first', { keep: 'no' }));
    const informer = new Informer<KubeObject>({ client, type: PODS, namespace: 'default', keep: kept });
    const seen: string[] = [];
    informer.addHandler({ onAdd: (o) => seen.push(`add ${o.metadata.name}`), onDelete: (o) => seen.push(`delete ${o.metadata.name}`) });
    const run = start(informer);
    await informer.waitForSync();
    assert.deepEqual(seen, ['add kept-first']);
    await client.patch(PODS, 'default', 'kept-first', 'merge', { metadata: { labels: { keep: 'no' } } });
    await client.patch(PODS, 'default', 'refused-first', 'merge', { metadata: { labels: { keep: 'yes' } } });
    await waitFor(() => seen.length === 3, 'the changes');
    assert.deepEqual(seen, ['add kept-first', 'delete kept-first', 'add refused-first']);
    assert.deepEqual(informer.list().map((o) => o.metadata.name), ['refused-first']);
    await run.stop();
    await Promise.all(['kept-first', 'refused-first'].map((name) => client.delete(PODS, 'default', name, { gracePeriodSeconds: 0 })));
  });
});
