import { test } from 'node:test';
import assert from 'node:assert/strict';
import { duplicateKeys } from './duplicate-keys.ts';

test('finds repeated keys with their paths, inside objects and lists', () => {
  assert.deepEqual(duplicateKeys('{"metadata":{"name":"a","name":"b"}}'), ['metadata.name']);
  assert.deepEqual(duplicateKeys('{"spec":{"containers":[{"name":"c"},{"image":"x","image":"y"}]}}'), ['spec.containers[1].image']);
  assert.deepEqual(duplicateKeys('{"a":"x\\"y","b":[1,2,{"c":{}}],"a":null}'), ['a']);
  assert.deepEqual(duplicateKeys('{"a":{"b":1},"c":{"b":2}}'), []);
});
