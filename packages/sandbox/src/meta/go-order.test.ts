import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeJson, goKeyCompare, remember, sortedDeep, type OrderMarks } from './go-order.ts';

test('map keys sort by UTF-8 bytes, as Go sorts them: code points, not UTF-16 units', () => {
  const keys = ['b', '\u{1F600}', 'a', '\uFF21', '10', '9', 'A'];
  assert.deepEqual([...keys].sort(goKeyCompare), ['10', '9', 'A', 'a', 'b', '\uFF21', '\u{1F600}']);
  // JS's own sort puts the surrogate pair of U+1F600 before U+FF21.
  assert.deepEqual(['\u{1F600}', '\uFF21'].sort(), ['\u{1F600}', '\uFF21']);
});

test('an object whose integer-like keys JS keeps first is encoded in Go order all the same', () => {
  const marks: OrderMarks = { unordered: false };
  const object = remember(sortedDeep({ spec: { b: 1, 9: 2, 10: 3, a: { z: 1, y: [{ d: 1, c: 2 }] } }, metadata: { name: 'x' } }, marks) as object, marks);
  assert.equal(marks.unordered, true);
  assert.equal(encodeJson(object), '{"metadata":{"name":"x"},"spec":{"10":3,"9":2,"a":{"y":[{"c":2,"d":1}],"z":1},"b":1}}');
  // An object JS can hold in order is left to JSON.stringify, and an ordered value is returned as is.
  const plain: OrderMarks = { unordered: false };
  const ordered = { a: 1, b: { c: 2 } };
  assert.equal(sortedDeep(ordered, plain), ordered);
  assert.equal(plain.unordered, false);
});
