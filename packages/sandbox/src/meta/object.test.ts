import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { cloneJson } from './object.ts';

describe('cloneJson', () => {
  test('gives what a JSON round trip gives, for any JSON-like value', () => {
    const value = fc.letrec((tie) => ({
      any: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(null, undefined, true, false, 0, -1.5, Number.NaN, Number.POSITIVE_INFINITY),
        fc.string(),
        fc.array(tie('any')),
        fc.dictionary(fc.oneof(fc.string(), fc.constant('__proto__')), tie('any')),
      ),
    })).any;
    fc.assert(
      fc.property(value, (v) => {
        if (v === undefined) return;
        assert.equal(JSON.stringify(cloneJson(v)), JSON.stringify(v));
        assert.deepEqual(cloneJson(v), JSON.parse(JSON.stringify(v)));
      }),
    );
  });

  test('a copy shares nothing mutable with the original', () => {
    const original = { metadata: { labels: { a: '1' } }, items: [{ x: 1 }] };
    const copy = cloneJson(original);
    copy.metadata.labels.a = '2';
    (copy.items[0] as { x: number }).x = 2;
    assert.deepEqual(original, { metadata: { labels: { a: '1' } }, items: [{ x: 1 }] });
  });

  test('a "__proto__" member stays a member and does not become the prototype', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const copy = cloneJson(parsed);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(Object.keys(copy), ['__proto__']);
    assert.equal((copy as { polluted?: boolean }).polluted, undefined);
  });

  test('frozen values (immutable encodings) are shared, not copied', () => {
    const encoding = Object.freeze({ 'f:a': Object.freeze({}) });
    const copy = cloneJson({ fieldsV1: encoding, other: {} });
    assert.equal(copy.fieldsV1, encoding);
  });
});
