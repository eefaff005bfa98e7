// The README's complete example is the example's code, word for word: readers copy it, so it must be what
// the example's test runs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

const read = (path: string): Promise<string> => readFile(new URL(`../${path}`, import.meta.url), 'utf8');

test('the README shows examples/pod-labeler as it is', async () => {
  const readme = await read('README.md');
  const section = readme.slice(readme.indexOf('### The complete example'));
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.deepEqual(blocks.slice(0, 2), [await read('examples/pod-labeler/pod-labeler-controller.test.ts'), await read('examples/pod-labeler/pod-labeler-controller.ts')]);
});
