import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AVAILABLE_CONDITIONS_ANNOTATION } from '../api/protocol.ts';
import { expectedFinalizers } from './pod.ts';

test('expected finalizers are read entry by entry, a key __proto__ as any other', () => {
  const annotation = '{"expectedFinalizers":{"__proto__":"prot.podopslifecycle.kusionstack.io/a","Service/default/web":"prot.podopslifecycle.kusionstack.io/b"}}';
  const read = expectedFinalizers({ metadata: { name: 'p', annotations: { [AVAILABLE_CONDITIONS_ANNOTATION]: annotation } } });
  assert.deepEqual(Object.entries(read), [
    ['__proto__', 'prot.podopslifecycle.kusionstack.io/a'],
    ['Service/default/web', 'prot.podopslifecycle.kusionstack.io/b'],
  ]);
});
