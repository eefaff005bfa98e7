import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { StatusError } from '../errors.ts';
import { formatLabelSelector, matchesLabels, parseLabelSelector, parseLabelSelectorOrThrow } from './labels.ts';

const parses = (s: string) => parseLabelSelectorOrThrow(s).requirements;

/** The 400 body's message for a selector the server rejects. */
function rejection(selector: string): string {
  try {
    parseLabelSelector(selector);
  } catch (e) {
    assert.ok(e instanceof StatusError);
    assert.equal(e.status.code, 400);
    assert.equal(e.status.reason, 'BadRequest');
    assert.equal(e.status.details, undefined);
    return e.status.message ?? '';
  }
  assert.fail(`${selector} was accepted`);
}

describe('label selector strings', () => {
  test('every operator, with whitespace, sorted by key', () => {
    assert.deepEqual(parses(' z in (b, a) , y notin (c),x=1,w==2, v != 3,u,!t, s>5, r<7'), [
      { key: 'r', operator: 'lt', values: ['7'] },
      { key: 's', operator: 'gt', values: ['5'] },
      { key: 't', operator: '!', values: [] },
      { key: 'u', operator: 'exists', values: [] },
      { key: 'v', operator: '!=', values: ['3'] },
      { key: 'w', operator: '==', values: ['2'] },
      { key: 'x', operator: '=', values: ['1'] },
      { key: 'y', operator: 'notin', values: ['c'] },
      { key: 'z', operator: 'in', values: ['a', 'b'] },
    ]);
  });

  test('empty values and keywords used as values', () => {
    assert.deepEqual(parses('a='), [{ key: 'a', operator: '=', values: [''] }]);
    assert.deepEqual(parses('a in ()'), [{ key: 'a', operator: 'in', values: [''] }]);
    assert.deepEqual(parses('a in (,b)'), [{ key: 'a', operator: 'in', values: ['', 'b'] }]);
    assert.deepEqual(parses('a in (in,notin)'), [{ key: 'a', operator: 'in', values: ['in', 'notin'] }]);
    assert.deepEqual(parses(''), []);
    assert.deepEqual(parses('   '), []);
  });

  test('the reference error for an unparseable requirement', () => {
    assert.equal(rejection('bad selector!!'), "unable to parse requirement: found 'selector', expected: in, notin, =, ==, !=, gt, lt");
  });

  test('other parse errors, worded as the real parser words them', () => {
    assert.equal(rejection('a,'), "found '', expected: identifier after ','");
    assert.equal(rejection('a b'), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
    assert.equal(rejection('a=b c'), "found 'c', expected: ',' or 'end of string'");
    assert.equal(rejection('(a)'), "found '(', expected: !, identifier, or 'end of string'");
    assert.equal(rejection('a in b'), "unable to parse requirement: found 'b' expected: '('");
    assert.equal(rejection('a in (b'), "unable to parse requirement: found '', expected: ',' or ')'");
    assert.equal(rejection('a in (b c)'), "unable to parse requirement: found 'c', expected: ',' or ')'");
    assert.equal(rejection('a=('), "unable to parse requirement: found '(', expected: identifier");
    assert.equal(rejection('!'), "unable to parse requirement: found '', expected: identifier");
  });

  test('invalid keys and values', () => {
    assert.equal(
      rejection('bad_key_=x'),
      "unable to parse requirement: <nil>: Invalid value: \"bad_key_\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
    assert.equal(
      rejection('a=b_'),
      "unable to parse requirement: values[0][a]: Invalid value: \"b_\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
    assert.equal(rejection('a>b'), 'unable to parse requirement: values[0]: Invalid value: "b": for \'Gt\', \'Lt\' operators, the value must be an integer');
  });

  test('matching', () => {
    const labels = { app: 'web', tier: 'front', n: '10' };
    const matches = (s: string): boolean => matchesLabels(parseLabelSelectorOrThrow(s), labels);
    assert.equal(matches('app=web'), true);
    assert.equal(matches('app==web,tier'), true);
    assert.equal(matches('app!=web'), false);
    assert.equal(matches('missing!=x'), true);
    assert.equal(matches('app in (api,web)'), true);
    assert.equal(matches('app notin (web)'), false);
    assert.equal(matches('missing notin (web)'), true);
    assert.equal(matches('!missing'), true);
    assert.equal(matches('!app'), false);
    assert.equal(matches('n>9,n<11'), true);
    assert.equal(matches('app>1'), false);
    assert.equal(matches(''), true);
  });

  test('formatting round-trips through the parser', () => {
    const key = fc.constantFrom('a', 'app', 'example.com/x', 'k8s.io/tier');
    const value = fc.constantFrom('', 'v', 'web', 'x-1');
    const requirement = fc.oneof(
      fc.record({ key, operator: fc.constantFrom('=' as const, '==' as const, '!=' as const), values: value.map((v) => [v]) }),
      fc.record({ key, operator: fc.constantFrom('in' as const, 'notin' as const), values: fc.uniqueArray(value, { minLength: 1, maxLength: 3 }).map((v) => v.sort()) }),
      fc.record({ key, operator: fc.constantFrom('exists' as const, '!' as const), values: fc.constant([] as string[]) }),
    );
    fc.assert(
      fc.property(fc.uniqueArray(requirement, { selector: (r) => r.key, maxLength: 4 }), (requirements) => {
        const sorted = requirements.map((r) => ({ ...r })).sort((a, b) => (a.key < b.key ? -1 : 1));
        assert.deepEqual(parseLabelSelectorOrThrow(formatLabelSelector({ requirements: sorted, matchesNothing: false })).requirements, sorted);
      }),
    );
  });
});
