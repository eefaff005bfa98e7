import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { statusOf } from './status-error.test-support.ts';
import { goJsonSyntaxError } from './go-json.ts';
import { decodePatchBody, patchTypeOf } from './patch-body.ts';

describe('patch content types', () => {
  test('the four patch media types, parameters ignored', () => {
    assert.equal(patchTypeOf('application/json-patch+json'), 'json');
    assert.equal(patchTypeOf('application/merge-patch+json; charset=utf-8'), 'merge');
    assert.equal(patchTypeOf('application/strategic-merge-patch+json'), 'strategic');
    assert.equal(patchTypeOf('application/apply-patch+yaml'), 'apply');
    assert.equal(patchTypeOf('application/json'), undefined);
  });
});

describe('decoding patch bodies', () => {
  test('a malformed merge patch: 400 with the Go decoder message (reference H.3)', () => {
    assert.deepEqual(statusOf(() => decodePatchBody('merge', '[not json')), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "error decoding patch: invalid character 'o' in literal null (expecting 'u')",
      reason: 'BadRequest',
      code: 400,
    });
  });

  test('a malformed strategic merge patch carries the bare decoder message', () => {
    assert.equal(statusOf(() => decodePatchBody('strategic', '{bad json')).message, "invalid character 'b' looking for beginning of object key string");
  });

  test('an empty JSON patch body', () => {
    assert.equal(statusOf(() => decodePatchBody('json', '')).message, 'error decoding patch: unexpected end of JSON input');
  });

  test('valid bodies parse, from strings or bytes', () => {
    assert.deepEqual(decodePatchBody('json', new TextEncoder().encode('[{"op":"remove","path":"/a"}]')), [{ op: 'remove', path: '/a' }]);
    assert.deepEqual(decodePatchBody('merge', '{"metadata":{"labels":null}}'), { metadata: { labels: null } });
  });

  test('apply bodies are YAML (JSON is YAML too); YAML 1.1 booleans; empty is an empty object', () => {
    assert.deepEqual(decodePatchBody('apply', 'apiVersion: v1\nkind: ConfigMap\ndata:\n  a: "1"\n  on: yes\n'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      data: { a: '1', true: true },
    });
    assert.deepEqual(decodePatchBody('apply', '{"kind":"ConfigMap"}'), { kind: 'ConfigMap' });
    assert.deepEqual(decodePatchBody('apply', ''), {});
    assert.deepEqual(decodePatchBody('apply', 'time: 2024-01-02'), { time: '2024-01-02' });
  });

  test('malformed YAML is a 400', () => {
    const status = statusOf(() => decodePatchBody('apply', 'a: [\n'));
    assert.equal(status.code, 400);
    assert.match(status.message ?? '', /^error decoding YAML: error converting YAML to JSON: yaml: /);
  });
});

describe("Go's JSON syntax errors", () => {
  const cases: [string, string][] = [
    ['{bad json', "invalid character 'b' looking for beginning of object key string"],
    ['[not json', "invalid character 'o' in literal null (expecting 'u')"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['01', "invalid character '1' after top-level value"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12x4"', "invalid character 'x' in \\u hexadecimal character escape"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['{"a":', 'unexpected end of JSON input'],
    ['', 'unexpected end of JSON input'],
  ];
  for (const [body, message] of cases) {
    test(JSON.stringify(body), () => assert.equal(goJsonSyntaxError(body), message));
  }

  test('valid JSON has no error, whatever its shape', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => assert.equal(goJsonSyntaxError(JSON.stringify(value, null, 1)), undefined)));
  });

  test('the scanner agrees with JSON.parse on what is valid', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '1', '-', '.', 'e', 'n', 'u', 'l', ' ', 'a') }), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        assert.equal(goJsonSyntaxError(text) === undefined, valid);
      }),
    );
  });
});
