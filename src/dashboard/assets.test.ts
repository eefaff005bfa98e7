// What the browser downloads for the dashboard: every file the page references and nothing else, none from another
// origin (the Content-Security-Policy enforces it in the browser), and all of it within the weight budget stated in
// docs/dashboard.md.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadAssets, type Asset } from './assets.ts';

/** The budget of docs/dashboard.md: the page's files and its libraries, gzipped as served. */
const BUDGET_GZIP_BYTES = 24 * 1024;

/** The URLs a file references: stylesheets, scripts and import-map entries of the page, static imports of a module. */
function references(path: string, asset: Asset): string[] {
  const text = asset.body.toString('utf8');
  if (path === '/') {
    const attributes = [...text.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!).filter((url) => !url.startsWith('data:'));
    const importMap = JSON.parse(/<script type="importmap">([\s\S]*?)<\/script>/.exec(text)?.[1] ?? '{}') as { imports?: Record<string, string> };
    return [...attributes, ...Object.values(importMap.imports ?? {})];
  }
  if (!asset.contentType.startsWith('text/javascript')) return [];
  return [...text.matchAll(/(?:^|[;\s])import\s*(?:[\w{},*\s]+from\s*)?["']([^"']+)["']/g)]
    .map((m) => m[1]!)
    .filter((specifier) => specifier.startsWith('.') || specifier.startsWith('/'))
    .map((specifier) => new URL(specifier, `http://dashboard${path}`).pathname);
}

test('the page references exactly the files served, all from the dashboard itself', () => {
  const assets = loadAssets();
  const reached = new Set<string>(['/']);
  for (const path of reached) {
    for (const url of references(path, assets.get(path)!)) {
      assert.ok(url.startsWith('/'), `${path} references ${url}: nothing may come from another origin`);
      assert.ok(assets.has(url), `${path} references ${url}, which is not served`);
      reached.add(url);
    }
  }
  assert.deepEqual([...assets.keys()].filter((path) => !reached.has(path)), [], 'every file served is used');
});

test(`what the browser downloads weighs at most ${BUDGET_GZIP_BYTES / 1024} KiB gzipped`, () => {
  const assets = [...loadAssets()];
  const gzipped = assets.reduce((sum, [, asset]) => sum + asset.gzip.length, 0);
  const listing = assets.map(([path, asset]) => `${path} ${asset.gzip.length}`).join(', ');
  assert.ok(gzipped <= BUDGET_GZIP_BYTES, `${gzipped} bytes gzipped (${listing})`);
  assert.ok(gzipped > 8 * 1024, `${gzipped} bytes: the page and its libraries are all counted`);
});
