import { test } from 'node:test';
import assert from 'node:assert/strict';
import { duplicateKeys, keyOccurrences } from './duplicate-keys.ts';

test('finds repeated keys with their paths, inside objects and lists', () => {
  assert.deepEqual(duplicateKeys('{"metadata":{"name":"a","name":"b"}}'), ['metadata.name']);
  assert.deepEqual(duplicateKeys('{"spec":{"containers":[{"name":"c"},{"image":"x","image":"y"}]}}'), ['spec.containers[1].image']);
  assert.deepEqual(duplicateKeys('{"a":"x\\"y","b":[1,2,{"c":{}}],"a":null}'), ['a']);
  assert.deepEqual(duplicateKeys('{"a":{"b":1},"c":{"b":2}}'), []);
});

test('lists every key in the order of the text, repeats marked', () => {
  assert.deepEqual(keyOccurrences('{"spec":{"b":1,"5":[{"x":1,"x":2}]},"a":{}}'), [
    { path: 'spec', repeat: false },
    { path: 'spec.b', repeat: false },
    { path: 'spec.5', repeat: false },
    { path: 'spec.5[0].x', repeat: false },
    { path: 'spec.5[0].x', repeat: true },
    { path: 'a', repeat: false },
  ]);
});
