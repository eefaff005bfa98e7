import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../errors.ts';
import { labelSelectorFromObject, labelSelectorMatches, validateLabelSelector } from './label-selector.ts';
import { LabelSelectorError } from './labels.ts';

describe('LabelSelector objects', () => {
  test('validation of matchLabels and matchExpressions', () => {
    const errors = validateLabelSelector(
      {
        matchLabels: { 'bad key!': 'v' },
        matchExpressions: [
          { key: 'a', operator: 'In' },
          { key: 'b', operator: 'Exists', values: ['x'] },
          { key: 'c', operator: 'Bogus' },
          { key: 'd', operator: 'In', values: ['bad value!'] },
        ],
      },
      'spec.selector',
    ).map(fieldErrorString);
    assert.equal(errors.length, 5);
    assert.ok(errors[0]?.startsWith('spec.selector.matchLabels: Invalid value: "bad key!": name part must consist'));
    assert.deepEqual(errors.slice(1, 4), [
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector.matchExpressions[2].operator: Invalid value: "Bogus": not a valid selector operator',
    ]);
    assert.ok(errors[4]?.startsWith('spec.selector.matchExpressions[3].values[0]: Invalid value: "bad value!": a valid label must be'));
  });

  test('invalid label values can be tolerated', () => {
    assert.deepEqual(validateLabelSelector({ matchExpressions: [{ key: 'd', operator: 'In', values: ['bad value!'] }] }, 's', { allowInvalidLabelValueInSelector: true }), []);
  });

  test('a missing selector matches nothing, an empty one everything', () => {
    assert.equal(labelSelectorMatches(undefined, { a: '1' }), false);
    assert.equal(labelSelectorMatches({}, { a: '1' }), true);
    assert.equal(labelSelectorMatches({ matchLabels: { a: '1' }, matchExpressions: [{ key: 'b', operator: 'DoesNotExist' }] }, { a: '1' }), true);
    assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, { a: '1' }), false);
  });

  test('conversion errors carry the real wording', () => {
    assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }), new LabelSelectorError('"Bogus" is not a valid label selector operator'));
    assert.throws(
      () => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
      new LabelSelectorError("values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty"),
    );
  });
});
