import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../errors.ts';
import { validateObjectMetaCreate, validateObjectMetaUpdate } from './meta.ts';
import { nameIsDNSLabel } from './names.ts';

const lines = (errors: ReturnType<typeof validateObjectMetaCreate>): string[] => errors.map(fieldErrorString);

describe('metadata on create', () => {
  test('namespace required for namespaced kinds, forbidden for cluster-scoped ones', () => {
    assert.deepEqual(lines(validateObjectMetaCreate({ name: 'a' }, { namespaced: true })), ['metadata.namespace: Required value']);
    assert.deepEqual(lines(validateObjectMetaCreate({ name: 'a', namespace: 'x' }, { namespaced: false })), ['metadata.namespace: Forbidden: not allowed on this type']);
    assert.equal(lines(validateObjectMetaCreate({ name: 'a', namespace: 'Bad' }, { namespaced: true }))[0]?.startsWith('metadata.namespace: Invalid value: "Bad": a lowercase RFC 1123 label'), true);
  });

  test('a name validator per kind', () => {
    assert.deepEqual(lines(validateObjectMetaCreate({ name: 'a.b' }, { namespaced: false, nameValidator: nameIsDNSLabel })), ['metadata.name: Invalid value: "a.b": must not contain dots']);
  });

  test('owner references: required parts named without an index, one controller at most', () => {
    assert.deepEqual(lines(validateObjectMetaCreate({ name: 'a', ownerReferences: [{}] }, { namespaced: false })), [
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
    ]);
    const two = [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: '1', controller: true },
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'b', uid: '2', controller: true },
    ];
    const errors = validateObjectMetaCreate({ name: 'a', ownerReferences: two }, { namespaced: false });
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.detail, 'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b');
    assert.deepEqual(
      validateObjectMetaCreate({ name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: '1' }] }, { namespaced: false }).map((e) => e.detail),
      ['/v1, Kind=Event is disallowed from being an owner'],
    );
  });

  test('orphan and foregroundDeletion together', () => {
    assert.deepEqual(
      validateObjectMetaCreate({ name: 'a', finalizers: ['orphan', 'foregroundDeletion'] }, { namespaced: false }).map((e) => [e.field, e.value, e.detail]),
      [['metadata.finalizers', { goLiteral: '[]string{"orphan", "foregroundDeletion"}' }, 'finalizer orphan and foregroundDeletion cannot be both set']],
    );
  });

  test('managed fields operations', () => {
    assert.deepEqual(lines(validateObjectMetaCreate({ name: 'a', managedFields: [{ manager: 'm', operation: 'Patch' }] }, { namespaced: false })), [
      'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
    ]);
  });

  test('a negative generation', () => {
    assert.deepEqual(lines(validateObjectMetaCreate({ name: 'a', generation: -1 }, { namespaced: false })), ['metadata.generation: Invalid value: -1: must be greater than or equal to 0']);
  });
});

describe('metadata on update', () => {
  const old = { name: 'a', namespace: 'n', uid: 'u', resourceVersion: '5', creationTimestamp: '2026-01-01T00:00:00Z', generation: 3 };

  test('identity fields are immutable', () => {
    assert.deepEqual(lines(validateObjectMetaUpdate({ ...old, name: 'b', namespace: 'm', uid: 'v' }, old)), [
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.namespace: Invalid value: "m": field is immutable',
      'metadata.uid: Invalid value: "v": field is immutable',
    ]);
    assert.deepEqual(lines(validateObjectMetaUpdate({ ...old, creationTimestamp: '2027-03-04T05:06:07Z' }, old)), [
      'metadata.creationTimestamp: Invalid value: "2027-03-04 05:06:07 +0000 UTC": field is immutable',
    ]);
    assert.deepEqual(lines(validateObjectMetaUpdate({ ...old, deletionGracePeriodSeconds: 5 }, old)), ['metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable']);
  });

  test('generation may not go down; resourceVersion must be there', () => {
    assert.deepEqual(lines(validateObjectMetaUpdate({ ...old, generation: 2 }, old)), ['metadata.generation: Invalid value: 2: must not be decremented']);
    assert.deepEqual(lines(validateObjectMetaUpdate({ ...old, resourceVersion: '' }, old)), ['metadata.resourceVersion: Invalid value: "": must be specified for an update']);
  });

  test('no new finalizers once deleting: sorted, without duplicates', () => {
    const deleting = { ...old, deletionTimestamp: '2026-01-02T00:00:00Z', finalizers: ['a.io/x'] };
    assert.deepEqual(lines(validateObjectMetaUpdate({ ...deleting, finalizers: ['a.io/x', 'c.io/z', 'b.io/y', 'b.io/y'] }, deleting)), [
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y", "c.io/z"}',
    ]);
    assert.deepEqual(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting), []);
  });

  test('standard finalizer names are checked with an index on update too (built-in kinds)', () => {
    assert.deepEqual(lines(validateObjectMetaUpdate({ ...old, finalizers: ['x'] }, old, { standardFinalizerNames: true })), [
      'metadata.finalizers[0]: Invalid value: "x": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });
});
