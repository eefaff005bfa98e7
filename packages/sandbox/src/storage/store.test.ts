import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../meta/object.ts';
import { Store, StorageError, type StoreEvent, type WriteOrigin } from './store.ts';
import { recordWrites } from './write-log.ts';

const obj = (name: string, namespace = 'ns'): KubeObject => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace, uid: `uid-${name}` } });

const origin: WriteOrigin = { user: 'admin', groups: ['system:masters'], userAgent: 'test/1.0', manager: 'test', verb: 'create', subresource: undefined };

function newStore(historySize = 10): Store {
  const store = new Store({ historySize, clock: () => 1000 });
  store.ensureResource('configmaps');
  store.ensureResource('pods');
  return store;
}

describe('Store', () => {
  test('one global, monotonic resourceVersion across resources', () => {
    const store = newStore();
    const a = store.create('configmaps', 'ns/a', obj('a'), origin);
    const b = store.create('pods', 'ns/b', obj('b'), origin);
    assert.equal(a.rv, 1);
    assert.equal(b.rv, 2);
    assert.equal(b.object.metadata.resourceVersion, '2');
    assert.equal(store.currentRv, 2);
  });

  test('conditional update and delete fail on a stale version; create fails on an existing key', () => {
    const store = newStore();
    store.create('configmaps', 'ns/a', obj('a'), origin);
    store.update('configmaps', 'ns/a', obj('a'), origin, 1);
    assert.throws(() => store.update('configmaps', 'ns/a', obj('a'), origin, 1), (e: unknown) => e instanceof StorageError && e.code === 'conflict' && e.currentRv === 2);
    assert.throws(() => store.delete('configmaps', 'ns/a', origin, 1), (e: unknown) => e instanceof StorageError && e.code === 'conflict');
    assert.throws(() => store.create('configmaps', 'ns/a', obj('a'), origin), (e: unknown) => e instanceof StorageError && e.code === 'exists');
    assert.throws(() => store.update('configmaps', 'ns/zz', obj('zz'), origin), (e: unknown) => e instanceof StorageError && e.code === 'notFound');
  });

  test('DELETED shows the last state with a new resourceVersion; the uid index forgets the object', () => {
    const store = newStore();
    const events: StoreEvent[] = [];
    store.subscribe((e) => events.push(e));
    store.create('configmaps', 'ns/a', obj('a'), origin);
    assert.deepEqual(store.locateUid('uid-a'), { resource: 'configmaps', key: 'ns/a' });
    const gone = store.delete('configmaps', 'ns/a', origin);
    assert.equal(gone.metadata.resourceVersion, '2');
    assert.deepEqual(events.map((e) => [e.type, e.rv]), [['ADDED', 1], ['DELETED', 2]]);
    assert.equal(events[1]?.previous?.metadata.resourceVersion, '1');
    assert.equal(store.locateUid('uid-a'), undefined);
  });

  test('lists come in key order and a prefix narrows to one namespace', () => {
    const store = newStore();
    for (const key of ['b/x', 'a/z', 'a/y', 'ab/q']) store.create('configmaps', key, obj(key.split('/')[1] ?? '', key.split('/')[0]), origin);
    assert.deepEqual(store.list('configmaps').map((e) => e.key), ['a/y', 'a/z', 'ab/q', 'b/x']);
    assert.deepEqual(store.list('configmaps', 'a/').map((e) => e.key), ['a/y', 'a/z']);
  });

  test('the event history replays after a version and reports its horizon once events fall out', () => {
    const store = newStore(3);
    for (let i = 0; i < 5; i++) store.create('configmaps', `ns/c${i}`, obj(`c${i}`), origin);
    assert.equal(store.watchHorizon('configmaps'), 2);
    assert.equal(store.eventsSince('configmaps', 1), undefined);
    assert.deepEqual(store.eventsSince('configmaps', 2)?.map((e) => e.rv), [3, 4, 5]);
    assert.deepEqual(store.eventsSince('configmaps', 4)?.map((e) => e.rv), [5]);
    assert.deepEqual(store.eventsSince('configmaps', 9), []);
  });

  test('resource listeners only hear their resource', () => {
    const store = newStore();
    const heard: string[] = [];
    const stop = store.subscribeResource('pods', (e) => heard.push(e.key));
    store.create('configmaps', 'ns/a', obj('a'), origin);
    store.create('pods', 'ns/p', obj('p'), origin);
    stop();
    store.create('pods', 'ns/q', obj('q'), origin);
    assert.deepEqual(heard, ['ns/p']);
  });
});

describe('write log', () => {
  test('records every write in order, per resource, bounded', () => {
    const store = newStore();
    const log = recordWrites(store, 20);
    store.create('configmaps', 'ns/a', obj('a'), origin);
    store.update('configmaps', 'ns/a', obj('a'), origin);
    store.create('pods', 'ns/p', obj('p'), origin);
    store.delete('configmaps', 'ns/a', origin);
    assert.deepEqual(log.records('configmaps').map((r) => [r.type, r.resourceVersion, r.name, r.namespace]), [
      ['ADDED', 1, 'a', 'ns'],
      ['MODIFIED', 2, 'a', 'ns'],
      ['DELETED', 4, 'a', 'ns'],
    ]);
    for (let i = 0; i < 30; i++) store.create('pods', `ns/x${i}`, obj(`x${i}`), origin);
    assert.ok(log.records().length <= 20);
    assert.ok(log.dropped > 0);
    assert.equal(log.records().at(-1)?.name, 'x29');
    log.stop();
  });

  test('each record names its writer, and a filter selects records by any of its fields', () => {
    const store = newStore();
    const log = recordWrites(store, 20);
    const controller: WriteOrigin = { user: 'system:serviceaccount:ns:ctl', groups: [], userAgent: 'ctl/2.0', manager: 'ctl', verb: 'patch', subresource: 'status' };
    store.create('configmaps', 'ns/a', obj('a'), origin);
    store.update('configmaps', 'ns/a', obj('a'), controller);
    store.create('configmaps', 'ns/b', obj('b'), origin);
    assert.deepEqual(log.records({ user: 'system:serviceaccount:ns:ctl' }).map((r) => [r.name, r.verb, r.manager, r.userAgent, r.subresource]), [['a', 'patch', 'ctl', 'ctl/2.0', 'status']]);
    assert.deepEqual(log.records({ subresource: '' }).map((r) => r.name), ['a', 'b']);
    assert.deepEqual(log.records({ after: 1, manager: 'test' }).map((r) => r.resourceVersion), [3]);
    assert.equal(log.records('configmaps').length, 3);
    assert.throws(() => log.records({ kind: 'ConfigMap' } as never), /unknown write log filter field "kind"/);
  });
});
