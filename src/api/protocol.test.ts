// The wire strings must be Kuperator's byte for byte, and the key parsers must read back what the
// builders write, and nothing else.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ID_LABEL_WORDS,
  InvalidLabelError,
  LAST_POD_STATUS_ANNOTATION,
  POD_OPERATING_LABEL,
  POD_POST_CHECKING_LABEL,
  POD_PREPARING_LABEL,
  POD_PRE_CHECKING_LABEL,
  RESOURCE_CONSIST_CLEAN_FINALIZER,
  UPDATE_INCLUDED_LABEL,
  idLabelKey,
  isOperationPermissionKey,
  legacyResourceConsistCleanFinalizer,
  operationPermissionKey,
  parseIdLabelKey,
} from './protocol.ts';

describe('protocol strings, as Kuperator spells them', () => {
  test('pod-level phase labels, CollaSet keys and the legacy clean finalizer are the upstream strings', () => {
    assert.deepEqual(
      [POD_PRE_CHECKING_LABEL, POD_PREPARING_LABEL, POD_OPERATING_LABEL, POD_POST_CHECKING_LABEL],
      [
        'podopslifecycle.kusionstack.io/pre-checking',
        'podopslifecycle.kusionstack.io/preparing',
        'podopslifecycle.kusionstack.io/operating',
        'podopslifecycle.kusionstack.io/post-checking',
      ],
    );
    assert.equal(LAST_POD_STATUS_ANNOTATION, 'collaset.kusionstack.io/last-pod-status');
    assert.equal(UPDATE_INCLUDED_LABEL, 'collaset.kusionstack.io/update-included');
    assert.equal(legacyResourceConsistCleanFinalizer('web'), 'resource-consist.kusionstack.io/clean-web');
  });

  test('the legacy clean finalizer of an employer is not the current one', () => {
    assert.notEqual(legacyResourceConsistCleanFinalizer('web'), RESOURCE_CONSIST_CLEAN_FINALIZER);
  });

  test('pod-level phase labels are not per-ID labels, so they never define a lifecycle', () => {
    for (const key of [POD_PRE_CHECKING_LABEL, POD_PREPARING_LABEL, POD_OPERATING_LABEL, POD_POST_CHECKING_LABEL]) {
      assert.equal(parseIdLabelKey(key), undefined, key);
    }
  });
});

describe('key parsers', () => {
  test('parseIdLabelKey reads back every family the builder writes', () => {
    for (const word of ID_LABEL_WORDS) assert.deepEqual(parseIdLabelKey(idLabelKey(word, 'id-1')), { word, id: 'id-1' });
  });

  test('parseIdLabelKey refuses a family key whose ID is empty or has a slash, with the upstream message', () => {
    assert.throws(() => parseIdLabelKey('operating.podopslifecycle.kusionstack.io'), { name: 'InvalidLabelError', message: 'invalid label operating.podopslifecycle.kusionstack.io' });
    assert.throws(() => parseIdLabelKey('operate.podopslifecycle.kusionstack.io/a/b'), InvalidLabelError);
  });

  test('the permission is recognised by its exact prefix, with or without a type', () => {
    assert.equal(isOperationPermissionKey(operationPermissionKey('update')), true);
    assert.equal(isOperationPermissionKey('operation-permission.podopslifecycle.kusionstack.io'), true);
    assert.equal(isOperationPermissionKey('operation-permission.podopslifecycle.kusionstack.io.other/update'), false);
    assert.equal(isOperationPermissionKey(idLabelKey('operation-type', 'update')), false);
    assert.equal(parseIdLabelKey(operationPermissionKey('update')), undefined, 'the permission is keyed by type, not an ID family');
  });
});
