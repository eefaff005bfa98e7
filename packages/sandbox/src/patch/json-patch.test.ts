import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Status } from '../errors.ts';
import { statusOf } from './status-error.test-support.ts';
import { applyJsonPatch, maxJsonPatchOperations } from './json-patch.ts';

type Json = Record<string, unknown>;

const genericInvalid: Status = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server rejected our request due to an error in our request',
  reason: 'Invalid',
  details: {},
  code: 422,
};

const pod = (): Json => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'j1', labels: { 'example.com/team': 'a', app: 'web' }, finalizers: ['example.com/a', 'example.com/b'] },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});
const metadataOf = (o: unknown): Json => (o as Json).metadata as Json;

describe('JSON patch: the cases of reference H.2', () => {
  test('remove with `~1` escaping `/`', () => {
    const after = applyJsonPatch(pod(), [{ op: 'remove', path: '/metadata/labels/example.com~1team' }]);
    assert.deepEqual(metadataOf(after).labels, { app: 'web' });
  });

  test('an unescaped `/` addresses a path that does not exist: the generic 422', () => {
    assert.deepEqual(statusOf(() => applyJsonPatch(pod(), [{ op: 'remove', path: '/metadata/labels/example.com/team' }])), genericInvalid);
  });

  test('remove of a missing key: 422', () => {
    assert.deepEqual(statusOf(() => applyJsonPatch(pod(), [{ op: 'remove', path: '/metadata/labels/nonexistent' }])), genericInvalid);
  });

  test('a failed test: 422', () => {
    assert.deepEqual(statusOf(() => applyJsonPatch(pod(), [{ op: 'test', path: '/metadata/name', value: 'other' }])), genericInvalid);
  });

  test('add under a missing parent: 422', () => {
    assert.deepEqual(statusOf(() => applyJsonPatch(pod(), [{ op: 'add', path: '/metadata/annotations/x', value: 'y' }])), genericInvalid);
  });

  test('an unknown op: 422', () => {
    assert.deepEqual(statusOf(() => applyJsonPatch(pod(), [{ op: 'bogus', path: '/metadata/name' }])), genericInvalid);
  });

  test('replace at an index and add at `-`', () => {
    const after = applyJsonPatch(pod(), [
      { op: 'replace', path: '/metadata/finalizers/0', value: 'example.com/z' },
      { op: 'add', path: '/metadata/finalizers/-', value: 'example.com/c' },
    ]);
    assert.deepEqual(metadataOf(after).finalizers, ['example.com/z', 'example.com/b', 'example.com/c']);
  });

  test('a body that is an object, not an array: 400', () => {
    assert.deepEqual(statusOf(() => applyJsonPatch(pod(), { op: 'add' })), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
      reason: 'BadRequest',
      code: 400,
    });
  });
});

describe('JSON patch: RFC 6902 operations', () => {
  test('add to an object sets the key, add into an array inserts', () => {
    const after = applyJsonPatch(pod(), [
      { op: 'add', path: '/metadata/labels/tier', value: 'front' },
      { op: 'add', path: '/metadata/finalizers/1', value: 'example.com/mid' },
      { op: 'add', path: '/metadata/finalizers/3', value: 'example.com/end' },
    ]);
    assert.deepEqual(metadataOf(after).labels, { 'example.com/team': 'a', app: 'web', tier: 'front' });
    assert.deepEqual(metadataOf(after).finalizers, ['example.com/a', 'example.com/mid', 'example.com/b', 'example.com/end']);
  });

  test('add past the end of an array fails', () => {
    assert.deepEqual(statusOf(() => applyJsonPatch(pod(), [{ op: 'add', path: '/metadata/finalizers/3', value: 'x' }])), genericInvalid);
  });

  test('move and copy', () => {
    const after = applyJsonPatch(pod(), [
      { op: 'copy', from: '/metadata/labels/app', path: '/metadata/labels/copied' },
      { op: 'move', from: '/metadata/labels/example.com~1team', path: '/metadata/annotations' },
    ]);
    assert.deepEqual(metadataOf(after).labels, { app: 'web', copied: 'web' });
    assert.equal(metadataOf(after).annotations, 'a');
  });

  test('move from a missing key fails', () => {
    assert.deepEqual(statusOf(() => applyJsonPatch(pod(), [{ op: 'move', from: '/metadata/nope', path: '/metadata/x' }])), genericInvalid);
  });

  test('test compares whole values, whatever their key order', () => {
    const after = applyJsonPatch(pod(), [{ op: 'test', path: '/spec/containers/0', value: { image: 'nginx', name: 'c' } }]);
    assert.deepEqual(after, pod());
  });

  test('`~0` decodes to `~` and `~01` to `~1`', () => {
    const doc = { metadata: { annotations: { 'a~b': '1', 'a~1b': '2' } } };
    const after = applyJsonPatch(doc, [
      { op: 'remove', path: '/metadata/annotations/a~0b' },
      { op: 'replace', path: '/metadata/annotations/a~01b', value: '3' },
    ]);
    assert.deepEqual(after, { metadata: { annotations: { 'a~1b': '3' } } });
  });

  test('operations apply in order and a failure discards all of them', () => {
    const original = pod();
    assert.throws(() => applyJsonPatch(original, [{ op: 'add', path: '/metadata/labels/x', value: '1' }, { op: 'remove', path: '/nope' }]));
    assert.deepEqual(original, pod());
  });

  test('a null patch is a no-op', () => {
    assert.deepEqual(applyJsonPatch(pod(), null), pod());
  });
});

describe('JSON patch: evanphx/json-patch v4 behaviour the server has', () => {
  test('negative indexes count from the end', () => {
    const after = applyJsonPatch(pod(), [{ op: 'remove', path: '/metadata/finalizers/-1' }]);
    assert.deepEqual(metadataOf(after).finalizers, ['example.com/a']);
  });

  test('replace of a missing object key adds it', () => {
    const after = applyJsonPatch(pod(), [{ op: 'replace', path: '/metadata/namespace', value: 'ns' }]);
    assert.equal(metadataOf(after).namespace, 'ns');
  });

  test('replace of a missing array index fails', () => {
    assert.deepEqual(statusOf(() => applyJsonPatch(pod(), [{ op: 'replace', path: '/metadata/finalizers/5', value: 'x' }])), genericInvalid);
  });

  test('test of a missing key passes against null', () => {
    assert.deepEqual(applyJsonPatch(pod(), [{ op: 'test', path: '/metadata/namespace', value: null }]), pod());
  });

  test('add without a value adds null', () => {
    const after = applyJsonPatch(pod(), [{ op: 'add', path: '/metadata/labels/x' }]);
    assert.equal((metadataOf(after).labels as Json).x, null);
  });

  test('replace of the whole document', () => {
    assert.deepEqual(applyJsonPatch(pod(), [{ op: 'replace', path: '', value: { kind: 'Other' } }]), { kind: 'Other' });
  });

  test('a path without a leading slash skips its first segment', () => {
    const after = applyJsonPatch({ a: 1 }, [{ op: 'add', path: 'ignored/b', value: 2 }]);
    assert.deepEqual(after, { a: 1, b: 2 });
  });
});

describe('JSON patch: body shape errors (400) and size limit (413)', () => {
  test('an operation field of the wrong type', () => {
    assert.equal(
      statusOf(() => applyJsonPatch(pod(), [{ op: 1, path: '/x' }])).message,
      'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string',
    );
  });

  test('an element that is not an object', () => {
    assert.equal(statusOf(() => applyJsonPatch(pod(), ['add'])).message, 'error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp');
  });

  test('more than 10000 operations', () => {
    const ops = Array.from({ length: maxJsonPatchOperations + 1 }, () => ({ op: 'test', path: '/kind', value: 'Pod' }));
    assert.deepEqual(statusOf(() => applyJsonPatch(pod(), ops)), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
      reason: 'RequestEntityTooLarge',
      code: 413,
    });
  });
});
