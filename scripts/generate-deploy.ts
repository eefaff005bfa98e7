// Writes deploy/ (plain manifests and the Helm chart) from src/operator/manifests.ts.

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deployFiles } from '../src/operator/deploy-files.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'deploy');
for (const [path, content] of Object.entries(deployFiles())) {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
  console.log(`wrote deploy/${path}`);
}
