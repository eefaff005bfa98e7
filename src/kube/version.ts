import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The version in podops' package.json, found upwards of this module: in src/kube/ from source, dist/src/kube/ when built. */
export function podopsVersion(modulePath = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(modulePath); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
    if (pkg.name === 'podops' && typeof pkg.version === 'string') return pkg.version;
  }
  throw new Error(`no package.json of podops above ${modulePath}`);
}

let userAgent: string | undefined;

/** client-go's shape, `<program>/<version> (<os>/<arch>)`, so API server audit logs tell podops' requests and versions apart. */
export function defaultUserAgent(): string {
  if (userAgent === undefined) {
    let version: string;
    try {
      version = podopsVersion();
    } catch {
      version = 'unknown';
    }
    userAgent = `podops/${version} (${process.platform}/${process.arch})`;
  }
  return userAgent;
}
