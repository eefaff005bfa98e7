// LabelSelector semantics of apimachinery's LabelSelectorAsSelector, and selector strings as
// labels.Selector.String() prints them (they appear in labelCheck reject reasons).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileLabelSelector, labelSelectorMatches, LabelSelectorError, labelValueProblem, qualifiedNameProblem } from './selector.ts';

describe('label selector matching', () => {
  test('nil selects nothing; an empty selector selects everything', () => {
    assert.equal(labelSelectorMatches(undefined, { a: 'b' }), false);
    assert.equal(labelSelectorMatches(null, {}), false);
    assert.equal(labelSelectorMatches({}, { a: 'b' }), true);
    assert.equal(labelSelectorMatches({ matchLabels: {}, matchExpressions: [] }, undefined), true);
  });

  test('matchLabels needs every pair', () => {
    const selector = { matchLabels: { app: 'web', tier: 'front' } };
    assert.equal(labelSelectorMatches(selector, { app: 'web', tier: 'front', extra: 'x' }), true);
    assert.equal(labelSelectorMatches(selector, { app: 'web' }), false);
    assert.equal(labelSelectorMatches(selector, { app: 'web', tier: 'back' }), false);
  });

  test('In, NotIn, Exists, DoesNotExist; NotIn and DoesNotExist match a missing key', () => {
    const match = (operator: string, values: string[] | undefined, labels: Record<string, string>) =>
      labelSelectorMatches({ matchExpressions: [{ key: 'env', operator, ...(values ? { values } : {}) }] }, labels);
    assert.equal(match('In', ['prod', 'staging'], { env: 'prod' }), true);
    assert.equal(match('In', ['prod'], { env: 'dev' }), false);
    assert.equal(match('In', ['prod'], {}), false);
    assert.equal(match('NotIn', ['prod'], { env: 'dev' }), true);
    assert.equal(match('NotIn', ['prod'], {}), true);
    assert.equal(match('NotIn', ['prod'], { env: 'prod' }), false);
    assert.equal(match('Exists', undefined, { env: '' }), true);
    assert.equal(match('Exists', undefined, {}), false);
    assert.equal(match('DoesNotExist', undefined, {}), true);
    assert.equal(match('DoesNotExist', undefined, { env: 'x' }), false);
  });

  test('label keys are own properties only', () => {
    assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'constructor', operator: 'Exists' }] }, {}), false);
  });

  test('text: requirements sorted by key, values sorted, kubectl syntax', () => {
    const selector = compileLabelSelector({
      matchLabels: { 'app.custom/ready': 'true' },
      matchExpressions: [
        { key: 'zone', operator: 'NotIn', values: ['b', 'a'] },
        { key: 'app.custom/forbidden', operator: 'DoesNotExist' },
        { key: 'env', operator: 'In', values: ['prod'] },
        { key: 'tier', operator: 'Exists' },
      ],
    });
    assert.equal(selector.text, '!app.custom/forbidden,app.custom/ready=true,env in (prod),tier,zone notin (a,b)');
    assert.equal(compileLabelSelector({}).text, '');
  });

  test('bad selectors are refused with the place and the reason', () => {
    const refuse = (selector: Parameters<typeof compileLabelSelector>[0], message: string) =>
      assert.throws(() => compileLabelSelector(selector), (err: unknown) => err instanceof LabelSelectorError && err.message === message);
    refuse({ matchExpressions: [{ key: 'a', operator: 'Equals', values: ['b'] }] }, 'matchExpressions[0]: "Equals" is not a valid label selector operator');
    for (const operator of ['constructor', 'toString', '__proto__']) refuse({ matchExpressions: [{ key: 'a', operator }] }, `matchExpressions[0]: "${operator}" is not a valid label selector operator`);
    refuse({ matchExpressions: [{ key: 'a', operator: 'In' }] }, 'matchExpressions[0]: values must be non-empty for operator In');
    refuse({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, 'matchExpressions[0]: values must be empty for operator Exists');
    refuse(
      { matchLabels: { 'bad key': 'x' } },
      `matchLabels["bad key"]: invalid label key "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
    refuse(
      { matchLabels: { app: 'not valid!' } },
      `matchLabels["app"]: invalid label value "not valid!": a valid label value must be empty or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  });
});

describe('qualified names and label values', () => {
  test('valid keys and values', () => {
    for (const key of ['app', 'app.kubernetes.io/name', 'a_b.c-d', 'x'.repeat(63)]) assert.equal(qualifiedNameProblem(key), undefined, key);
    for (const value of ['', 'true', 'v1.2_3-x']) assert.equal(labelValueProblem(value), undefined, value);
  });

  test('invalid keys and values', () => {
    assert.equal(qualifiedNameProblem(''), 'name part must be non-empty');
    assert.equal(qualifiedNameProblem('/a'), 'prefix part must be non-empty');
    assert.equal(qualifiedNameProblem('x'.repeat(64)), 'name part must be no more than 63 characters');
    assert.match(qualifiedNameProblem('UPPER.io/a') ?? '', /^prefix part must be a lowercase RFC 1123 subdomain/);
    assert.match(qualifiedNameProblem('a/b/c') ?? '', /^a qualified name/);
    assert.equal(labelValueProblem('x'.repeat(64)), 'must be no more than 63 characters');
    assert.match(labelValueProblem('-x') ?? '', /^a valid label value/);
  });
});
