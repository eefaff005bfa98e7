// Upstream utils_test (TestLifecycle) for the operation API, the AllowOps delay semantics, and the
// client-bound form against a server that admits writes through the mutation and validation.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidLabelError, PREPARING_TO_DELETE_LABEL, SERVICE_AVAILABLE_LABEL } from '../api/protocol.ts';
import { L, NOW, PERM, pod } from '../../test/support/pods.ts';
import { ConflictError, FakePodServer } from '../../test/support/fake-pod-server.ts';
import {
  allowOps,
  begin,
  finish,
  hasLifecycle,
  isDuringOps,
  lifecycleCount,
  lifecycleIdFor,
  OperationTypeConflictError,
  undo,
  whenBeginDelete,
  type LifecycleAdapter,
} from './operation.ts';
import { OperationClient } from './operation-client.ts';

const adapter = (id: string, type: string, extra: Partial<LifecycleAdapter> = {}): LifecycleAdapter => ({ id, type, allowMultiType: false, ...extra });

describe('begin / finish / undo (pure)', () => {
  test('begin on a fresh pod sets operating and operation-type, leaving the input untouched', () => {
    const input = pod();
    const { pod: begun, changed } = begin(adapter('id-1', 'type-1'), input, NOW);
    assert.equal(changed, true);
    assert.equal(begun.metadata.labels?.[L('operating', 'id-1')], NOW.toString());
    assert.equal(begun.metadata.labels?.[L('operation-type', 'id-1')], 'type-1');
    assert.equal(input.metadata.labels?.[L('operating', 'id-1')], undefined);
  });

  test('begin on a pod already begun changes nothing', () => {
    const once = begin(adapter('id-1', 'type-1'), pod(), NOW).pod;
    assert.equal(begin(adapter('id-1', 'type-1'), once, NOW + 1n).changed, false);
  });

  test('another ID with the same type and allowMultiType=false: the upstream error', () => {
    const other = begin(adapter('id-2', 'type-1'), pod(), NOW).pod;
    assert.throws(
      () => begin(adapter('id-1', 'type-1'), other, NOW),
      (err: unknown) =>
        err instanceof OperationTypeConflictError &&
        err.message === 'operationType type-1 exists: [operation-type.podopslifecycle.kusionstack.io/id-2]',
    );
  });

  test('another ID with the same type and allowMultiType=true: begins', () => {
    const other = begin(adapter('id-2', 'type-1'), pod(), NOW).pod;
    assert.equal(begin(adapter('id-1', 'type-1', { allowMultiType: true }), other, NOW).changed, true);
  });

  test('begin overwrites a different type on the same ID', () => {
    const typed = pod({ labels: { [L('operation-type', 'id-1')]: 'old' } });
    assert.equal(begin(adapter('id-1', 'new'), typed, NOW).pod.metadata.labels?.[L('operation-type', 'id-1')], 'new');
  });

  test('whenBegin runs; isDuringOps holds; finish runs whenFinish and ends isDuringOps', () => {
    const calls: string[] = [];
    const a = adapter('id-1', 'type-1', {
      whenBegin: () => (calls.push('begin'), false),
      whenFinish: (p) => {
        calls.push('finish');
        p.metadata.annotations = { done: 'yes' };
        return true;
      },
    });
    const begun = begin(a, pod(), NOW).pod;
    assert.equal(isDuringOps(a, begun), true);
    const finished = finish(a, begun, NOW);
    assert.deepEqual(calls, ['begin', 'finish']);
    assert.equal(finished.changed, true);
    assert.equal(isDuringOps(a, finished.pod), false);
    assert.equal(finished.pod.metadata.labels?.[L('operation-type', 'id-1')], 'type-1', 'the webhook converts the type, not finish');
    assert.equal(finished.pod.metadata.annotations?.done, 'yes');
  });

  test('isDuringOps still holds once the webhook has added operate, and allowOps agrees', () => {
    const a = adapter('id-1', 'type-1');
    const operating = pod({
      labels: {
        [L('operating', 'id-1')]: '1',
        [L('operation-type', 'id-1')]: 'type-1',
        [L('pre-checked', 'id-1')]: '2',
        [PERM('type-1')]: '2',
        [L('operate', 'id-1')]: '3',
      },
    });
    assert.equal(isDuringOps(a, operating), true);
    assert.equal(allowOps(a, 0, operating, NOW).allowed, true);
    assert.equal(isDuringOps(adapter('id-1', 'other-type'), operating), false, 'another type on the same ID is not this operation');
  });

  test('undo sets undo-operation-type to the adapter type', () => {
    assert.equal(undo(adapter('id-1', 'type-1'), pod()).pod.metadata.labels?.[L('undo-operation-type', 'id-1')], 'type-1');
  });

  test('whenBeginDelete adds preparing-to-delete only if absent', () => {
    const a = adapter('pod-delete', 'delete', { whenBegin: whenBeginDelete });
    const begun = begin(a, pod(), NOW).pod;
    assert.equal(begun.metadata.labels?.[PREPARING_TO_DELETE_LABEL], NOW.toString());
    assert.equal(begin(a, begun, NOW + 5n).changed, false);
  });

  test('lifecycle IDs longer than 63 characters become 0x + FNV-1a hex', () => {
    assert.equal(lifecycleIdFor('short'), 'short');
    // FNV-1a 32 of 64 'a's, computed independently (Python).
    assert.equal(lifecycleIdFor('a'.repeat(64)), '0xd96f0f85');
  });
});

describe('hasLifecycle and lifecycleCount', () => {
  const ids = (labels: Record<string, string>) => pod({ labels });

  test('an ID has a lifecycle from begin until final cleanup: operating, then operate, then operated', () => {
    assert.equal(hasLifecycle('a', pod()), false);
    assert.equal(hasLifecycle('a', ids({ [L('operating', 'a')]: '1' })), true);
    assert.equal(hasLifecycle('a', ids({ [L('operate', 'a')]: '1' })), true, 'finished while another ID still operates');
    assert.equal(hasLifecycle('a', ids({ [L('operated', 'a')]: '1', [L('done-operation-type', 'a')]: 'x', [L('completing', 'a')]: '2' })), true);
  });

  test('other IDs, a lone type label and a cleaned-up pod are no lifecycle of this ID', () => {
    assert.equal(hasLifecycle('a', ids({ [L('operating', 'b')]: '1' })), false);
    assert.equal(hasLifecycle('a', ids({ [L('operation-type', 'a')]: 'x', [L('undo-operation-type', 'a')]: 'x' })), false);
    assert.equal(hasLifecycle('a', ids({ [SERVICE_AVAILABLE_LABEL]: '3' })), false);
    assert.equal(hasLifecycle('ab', ids({ [L('operating', 'abc')]: '1' })), false, 'IDs are matched whole');
  });

  test('lifecycleCount counts IDs, including two of the same type, and not lone type labels', () => {
    assert.equal(lifecycleCount(pod()), 0);
    const labels = {
      [L('operating', 'a')]: '1',
      [L('operation-type', 'a')]: 'update',
      [L('operated', 'b')]: '1',
      [L('done-operation-type', 'b')]: 'update',
      [L('operation-type', 'c')]: 'update',
    };
    assert.equal(lifecycleCount(ids(labels)), 2);
  });

  test('lifecycleCount refuses a malformed lifecycle key rather than miscounting', () => {
    assert.throws(() => lifecycleCount(ids({ 'operate.podopslifecycle.kusionstack.io': '1' })), InvalidLabelError);
  });
});

describe('allowOps', () => {
  const a = adapter('id-1', 'type-1');
  const operating = { [L('operating', 'id-1')]: '1', [L('operation-type', 'id-1')]: 'type-1' };
  const operateAt = (at: bigint) => pod({ labels: { ...operating, [L('operate', 'id-1')]: at.toString() } });

  test('not during ops, or not yet operate: not allowed', () => {
    assert.deepEqual(allowOps(a, 0, pod(), NOW), { allowed: false });
    assert.deepEqual(allowOps(a, 0, pod({ labels: operating }), NOW), { allowed: false });
  });

  test('operate with no delay: allowed', () => assert.deepEqual(allowOps(a, 0, operateAt(NOW), NOW), { allowed: true }));

  test('during the delay: not allowed, requeue after the rest (never allowed=true)', () => {
    assert.deepEqual(allowOps(a, 10, operateAt(NOW), NOW + 4_000_000_000n), { allowed: false, requeueAfterMs: 6000 });
  });

  test('after the delay: allowed', () => assert.deepEqual(allowOps(a, 10, operateAt(NOW), NOW + 10_000_000_000n), { allowed: true }));

  test('an unparsable operate timestamp allows, as upstream', () => {
    assert.deepEqual(allowOps(a, 10, pod({ labels: { ...operating, [L('operate', 'id-1')]: 'garbage' } }), NOW), { allowed: true });
  });
});

describe('OperationClient', () => {
  test('begin writes through the webhook: pre-check appears in the same write', async () => {
    const server = new FakePodServer();
    const created = await server.create(pod({ name: 'p' }));
    const client = new OperationClient(server, { now: () => server.now() });
    const { pod: begun, updated } = await client.begin(adapter('id-1', 'type-1'), created);
    assert.equal(updated, true);
    assert.ok(begun.metadata.labels?.[L('pre-check', 'id-1')]);
  });

  test('a conflict is retried from a fresh read', async () => {
    const server = new FakePodServer();
    const created = await server.create(pod({ name: 'p' }));
    await server.update({ ...created, metadata: { ...created.metadata, annotations: { touched: 'yes' } } });
    const client = new OperationClient(server, { now: () => server.now(), retry: { steps: 3, delayMs: 1 } });
    const { pod: begun } = await client.begin(adapter('id-1', 'type-1'), created);
    assert.equal(begun.metadata.annotations?.touched, 'yes');
    assert.ok(begun.metadata.labels?.[L('operating', 'id-1')]);
  });

  test('conflicts beyond the retry budget surface to the caller', async () => {
    const server = new FakePodServer();
    const created = await server.create(pod({ name: 'p' }));
    const stale = { ...created, metadata: { ...created.metadata, resourceVersion: '0' } };
    const alwaysStale = { ...server, get: async () => stale, update: server.update.bind(server), isConflict: server.isConflict.bind(server) };
    const client = new OperationClient(alwaysStale, { retry: { steps: 2, delayMs: 1 } });
    await assert.rejects(client.begin(adapter('id-1', 'type-1'), stale), ConflictError);
  });

  test('isDuringOps holds after the webhook promotes the begun lifecycle to operate', async () => {
    const server = new FakePodServer();
    const client = new OperationClient(server, { now: () => server.now() });
    const a = adapter('id-1', 'type-1');
    const begun = (await client.begin(a, await server.create(pod({ name: 'p' })))).pod;
    // The lifecycle controller's PreCheck pass; with no service-ready condition yet, the webhook goes straight to operate.
    const checked = await server.update({
      ...begun,
      metadata: { ...begun.metadata, labels: { ...begun.metadata.labels, [L('pre-checked', 'id-1')]: '5', [PERM('type-1')]: '5' } },
    });
    assert.ok(checked.metadata.labels?.[L('operate', 'id-1')], 'the webhook added operate');
    assert.equal(isDuringOps(a, checked), true);
    assert.equal(allowOps(a, 0, checked, server.now()).allowed, true);
    assert.equal(isDuringOps(a, (await client.finish(a, checked)).pod), false);
  });

  test('beginWithCleaningOld undoes the old lifecycle first and begins with fresh timestamps', async () => {
    const server = new FakePodServer();
    const client = new OperationClient(server, { now: () => server.now() });
    const a = adapter('collaset', 'update');
    const first = (await client.begin(a, await server.create(pod({ name: 'p' })))).pod;
    const oldOperating = first.metadata.labels?.[L('operating', 'collaset')];
    const { pod: restarted, updated } = await client.beginWithCleaningOld(a, first);
    assert.equal(updated, true);
    assert.notEqual(restarted.metadata.labels?.[L('operating', 'collaset')], oldOperating);
    assert.equal(restarted.metadata.labels?.[L('undo-operation-type', 'collaset')], undefined);
    assert.equal(server.writes.update, 3, 'begin, undo, begin');
  });
});
