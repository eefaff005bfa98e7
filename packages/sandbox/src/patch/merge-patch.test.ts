import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { statusOf } from './status-error.test-support.ts';
import { isJsonObject, jsonEqual, type JsonObject } from '../meta/object.ts';
import { applyMergePatch } from './merge-patch.ts';

const deployment = () => ({
  metadata: { name: 'h-dep', labels: { app: 'web', team: 'a' }, finalizers: ['example.com/a'] },
  spec: { template: { spec: { containers: [{ name: 'a', image: 'img-a' }, { name: 'b', image: 'img-b' }] } } },
});

describe('merge patch (reference H.1 and H.3)', () => {
  test('kubectl label: a label is added, another removed with null', () => {
    const after = applyMergePatch(deployment(), { metadata: { labels: { tier: 'front', team: null } } });
    assert.deepEqual(((after as JsonObject).metadata as JsonObject).labels, { app: 'web', tier: 'front' });
  });

  test('labels: null removes the whole map', () => {
    const after = applyMergePatch(deployment(), { metadata: { labels: null } }) as JsonObject;
    assert.deepEqual(after.metadata, { name: 'h-dep', finalizers: ['example.com/a'] });
  });

  test('kubectl annotate creates the annotations map', () => {
    const after = applyMergePatch(deployment(), { metadata: { annotations: { note: 'x' } } }) as JsonObject;
    assert.deepEqual((after.metadata as JsonObject).annotations, { note: 'x' });
  });

  test('lists are replaced: finalizers and containers', () => {
    const after = applyMergePatch(deployment(), {
      metadata: { finalizers: ['example.com/c'] },
      spec: { template: { spec: { containers: [{ name: 'b', image: 'img-b3' }] } } },
    });
    assert.deepEqual(after, {
      metadata: { name: 'h-dep', labels: { app: 'web', team: 'a' }, finalizers: ['example.com/c'] },
      spec: { template: { spec: { containers: [{ name: 'b', image: 'img-b3' }] } } },
    });
  });

  test('conditions are replaced, not merged by type', () => {
    const pod = { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'r1' }, { type: 'example.com/X', status: 'True' }] } };
    assert.deepEqual(applyMergePatch(pod, { status: { conditions: [{ type: 'Ready', status: 'True' }] } }), {
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
  });

  test('a value copied in loses its null members, even inside arrays', () => {
    const after = applyMergePatch({}, { spec: { a: null, list: [{ x: null, y: 1 }, null] } });
    assert.deepEqual(after, { spec: { list: [{ y: 1 }, null] } });
  });

  test('an array replacing an object is kept as sent', () => {
    const after = applyMergePatch({ spec: { a: 1 } }, { spec: [{ x: null }] });
    assert.deepEqual(after, { spec: [{ x: null }] });
  });

  test('the original is not modified', () => {
    const original = deployment();
    applyMergePatch(original, { metadata: { labels: null } });
    assert.deepEqual(original, deployment());
  });

  test('a body that is not an object is a 400 worded like the server', () => {
    assert.equal(
      statusOf(() => applyMergePatch(deployment(), [])).message,
      'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}',
    );
    assert.equal(statusOf(() => applyMergePatch(deployment(), 3)).message, 'error decoding patch: json: cannot unmarshal number into Go value of type map[string]interface {}');
    const nullBody = statusOf(() => applyMergePatch(deployment(), null));
    assert.deepEqual([nullBody.code, nullBody.reason, nullBody.message], [400, 'BadRequest', 'Invalid JSON Patch']);
  });
});

/** A merge patch turning `source` into `target` (targets hold no nulls, which merge patches cannot express). */
function diff(source: JsonObject, target: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const [key, value] of Object.entries(target)) {
    const before = source[key];
    if (isJsonObject(before) && isJsonObject(value)) {
      const inner = diff(before, value);
      if (Object.keys(inner).length) patch[key] = inner;
    } else if (!(key in source) || !jsonEqual(before, value)) {
      patch[key] = value;
    }
  }
  for (const key of Object.keys(source)) if (!(key in target)) patch[key] = null;
  return patch;
}

const key = fc.constantFrom('a', 'b', 'c', 'metadata', 'spec', 'x.y/z');
const scalar = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean());
const { document } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, fc.array(scalar, { maxLength: 3 }), tie('document')),
  document: fc.dictionary(key, tie('value'), { maxKeys: 4, noNullPrototype: true }),
}));

describe('merge patch properties', () => {
  test('applying the difference of two documents reproduces the target', () => {
    fc.assert(
      fc.property(document, document, (source, target) => {
        const s = source as JsonObject;
        const t = target as JsonObject;
        assert.deepEqual(applyMergePatch(s, diff(s, t)), t);
      }),
    );
  });

  test('an empty patch changes nothing', () => {
    fc.assert(fc.property(document, (source) => assert.deepEqual(applyMergePatch(source, {}), source)));
  });
});
