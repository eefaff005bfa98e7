// Serving certificates from a directory (`--cert-dir`, where cert-manager or another issuer writes tls.crt
// and tls.key), as controller-runtime's certwatcher does: loaded at start and again whenever the files change,
// so new connections get a renewed certificate without a restart.

import { watch } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../kube/log.ts';
import type { ServingCertificate } from './server.ts';

/**
 * Resolves after `ms`, or shortly after something in `dir` changes. A renewal replaces several files one
 * after the other, so a change is acted on once the directory has been quiet for a moment. The timeout
 * stays the fallback for volumes that report no changes.
 */
function changedOrTimeout(dir: string, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const stop = new AbortController();
    let quiet: NodeJS.Timeout | undefined;
    const done = (): void => {
      clearTimeout(timeout);
      clearTimeout(quiet);
      signal.removeEventListener('abort', done);
      stop.abort();
      resolve();
    };
    const timeout = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    try {
      watch(dir, { signal: stop.signal }, () => {
        clearTimeout(quiet);
        quiet = setTimeout(done, 200);
      }).on('error', () => {});
    } catch {
      // Not watchable here: the timeout alone decides.
    }
  });
}

/** Serves tls.crt/tls.key from a directory and reloads them when they change (cert-manager rotates them). */
export async function watchCertDir(dir: string, serve: (c: ServingCertificate) => Promise<void>, signal: AbortSignal, log: Logger): Promise<void> {
  let seen = '';
  while (!signal.aborted) {
    try {
      const [certStat, keyStat] = await Promise.all([stat(join(dir, 'tls.crt')), stat(join(dir, 'tls.key'))]);
      const version = `${certStat.mtimeMs}/${keyStat.mtimeMs}`;
      if (version !== seen) {
        const [cert, key] = await Promise.all([readFile(join(dir, 'tls.crt'), 'utf8'), readFile(join(dir, 'tls.key'), 'utf8')]);
        await serve({ cert, key });
        seen = version;
        log.info({ dir }, 'serving certificate loaded');
      }
    } catch (err) {
      log.error({ err, dir }, 'cannot load the serving certificate from --cert-dir');
      if (!seen) throw err;
    }
    await changedOrTimeout(dir, 10_000, signal);
  }
}
