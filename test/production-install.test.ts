// What a production install of podops gets (`npm install podops`, and the operator's image, whose Dockerfile
// prunes to the same): the files npm pack puts in the package and the dependencies npm installs with them. The
// sandbox is a devDependency that only `podops up` and `podops sandbox` load, so none of it may be among them.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));
type DependencyField = 'dependencies' | 'devDependencies' | 'optionalDependencies' | 'peerDependencies';
type Manifest = { version: string } & Partial<Record<DependencyField, Record<string, string>>>;
const manifest = (path: string): Manifest => JSON.parse(readFileSync(`${root}${path}`, 'utf8'));

test("npm pack of podops holds podops' own build and no file of the sandbox", async () => {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
  const [{ files }] = JSON.parse(stdout) as [{ files: { path: string }[] }];
  const paths = files.map((file) => file.path);
  assert.ok(paths.includes('dist/src/cli/main.js'), 'the build is packed (npm ci builds it)');
  assert.deepEqual(paths.filter((path) => path.startsWith('packages/')), []);
  // Each compiled file is that of a source of podops: no sandbox module compiled in, none left from an older build.
  // The dashboard's page is copied as it is.
  const page = (path: string): boolean => path.startsWith('dist/src/dashboard/page/');
  const compiled = paths.filter((path) => path.startsWith('dist/') && !page(path));
  assert.deepEqual(compiled.filter((path) => !existsSync(`${root}${path.slice('dist/'.length).replace(/\.(js|js\.map|d\.ts)$/, '.ts')}`)), []);
  const pageFiles = paths.filter(page);
  assert.ok(pageFiles.includes('dist/src/dashboard/page/index.html'), 'the dashboard page is packed');
  assert.deepEqual(pageFiles.filter((path) => !existsSync(`${root}${path.slice('dist/'.length)}`)), []);
});

test("the dashboard's page libraries are dependencies: a production install serves them", () => {
  const podops = manifest('package.json');
  for (const library of ['preact', 'htm']) assert.ok(podops.dependencies?.[library], library);
});

test('podops depends on the sandbox for development only, in the version of the workspace', () => {
  const podops = manifest('package.json');
  const sandbox = manifest('packages/sandbox/package.json');
  assert.equal(podops.devDependencies?.['@podops/sandbox'], sandbox.version);
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies'] as const) assert.equal(podops[field]?.['@podops/sandbox'], undefined, field);
});
