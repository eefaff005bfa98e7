// Upstream TestValidating, plus the annotation rule and deterministic ordering.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AVAILABLE_CONDITIONS_ANNOTATION } from '../api/protocol.ts';
import { L, PERM, pod } from '../../test/support/pods.ts';
import { validatePod } from './validate.ts';

const validate = (labels: Record<string, string>, annotations?: Record<string, string>) => validatePod(pod({ labels, annotations }));

describe('validatePod', () => {
  test('valid: operating + type', () => assert.deepEqual(validate({ [L('operating', 'a')]: '1', [L('operation-type', 'a')]: 'upgrade' }), []));
  test('valid: operating only', () => assert.deepEqual(validate({ [L('operating', 'a')]: '1' }), []));
  test('valid: type only', () => assert.deepEqual(validate({ [L('operation-type', 'a')]: 'upgrade' }), []));
  test('valid: ID 456 with only operating', () => assert.deepEqual(validate({ [L('operating', '456')]: '1' }), []));
  test('valid: pre-checked + permission', () =>
    assert.deepEqual(validate({ [L('pre-checked', 'a')]: '1', [PERM('upgrade')]: '1' }), []));

  test('invalid: pre-checked without permission names the permission prefix', () => {
    assert.deepEqual(validate({ [L('pre-checked', 'a')]: '1' }), [
      'not found the expected label prefixes: map[operation-permission.podopslifecycle.kusionstack.io:{}]',
    ]);
  });

  test('invalid: permission without pre-checked', () => {
    assert.deepEqual(validate({ [PERM('upgrade')]: '1' }), [
      'not found the expected label prefixes: map[pre-checked.podopslifecycle.kusionstack.io:{}]',
    ]);
  });

  test('invalid: a bare operating key', () => {
    assert.deepEqual(validate({ 'operating.podopslifecycle.kusionstack.io': '1' }), ['invalid label operating.podopslifecycle.kusionstack.io']);
  });

  test('invalid: a bare operation-type key', () => {
    assert.deepEqual(validate({ 'operation-type.podopslifecycle.kusionstack.io': 'x' }), [
      'invalid label operation-type.podopslifecycle.kusionstack.io',
    ]);
  });

  test('invalid: an ID containing a slash', () => {
    const key = 'operating.podopslifecycle.kusionstack.io/a/b';
    assert.deepEqual(validate({ [key]: '1', [L('operation-type', 'a')]: 'upgrade' }), [`invalid label ${key}`]);
  });

  test('operated and done-operation-type must come in pairs', () => {
    assert.deepEqual(validate({ [L('operated', 'a')]: '1' }), ['not found label done-operation-type.podopslifecycle.kusionstack.io/a']);
    assert.deepEqual(validate({ [L('done-operation-type', 'a')]: 'upgrade' }), ['not found label operated.podopslifecycle.kusionstack.io/a']);
  });

  test('the available-conditions annotation must be JSON', () => {
    const errors = validate({}, { [AVAILABLE_CONDITIONS_ANNOTATION]: '{"expectedFinalizers":' });
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /^invalid annotation pod\.kusionstack\.io\/available-conditions: /);
  });

  test('errors come in the order of sorted label keys, every time', () => {
    const labels = { [L('operated', 'b')]: '1', [L('done-operation-type', 'a')]: 'x' };
    assert.deepEqual(validate(labels), [
      'not found label operated.podopslifecycle.kusionstack.io/a',
      'not found label done-operation-type.podopslifecycle.kusionstack.io/b',
    ]);
  });

  test('pods without the control label are not validated', () => {
    assert.deepEqual(validatePod(pod({ controlled: false, labels: { [L('pre-checked', 'a')]: '1' } })), []);
  });
});
