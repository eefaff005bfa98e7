// The files the dashboard's page is made of, read once at start: the page's own (./page/, beside this module in the
// sources and in the build, which copies it) and the ES modules of preact and htm from node_modules, which the
// page's import map names. Nothing is fetched from elsewhere; each file is kept gzipped too.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export interface Asset {
  contentType: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
};

/** The URL of each library module the page imports, as its import map (page/index.html) names them. */
const VENDOR: Record<string, string> = {
  '/vendor/preact.mjs': 'preact',
  '/vendor/preact-hooks.mjs': 'preact/hooks',
  '/vendor/htm.mjs': 'htm',
};

const PAGE_DIR = new URL('./page/', import.meta.url);

function asset(path: string, body: Buffer): Asset {
  return {
    contentType: CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
    body,
    gzip: gzipSync(body, { level: 9 }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
  };
}

/** A library's module without its source-map comment: the map is not shipped to the page. */
const vendorModule = (specifier: string): Buffer =>
  Buffer.from(readFileSync(fileURLToPath(import.meta.resolve(specifier)), 'utf8').replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n'));

/** Every file the page loads, by URL path (`/` is the page itself). */
export function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(PAGE_DIR)) {
    if (!(extname(name) in CONTENT_TYPES)) continue;
    const body = readFileSync(new URL(name, PAGE_DIR));
    assets.set(name === 'index.html' ? '/' : `/page/${name}`, asset(name, body));
  }
  for (const [path, specifier] of Object.entries(VENDOR)) assets.set(path, asset(path, vendorModule(specifier)));
  return assets;
}

/**
 * The Content-Security-Policy of the page: scripts only from the dashboard itself, plus the page's inline import
 * map by its hash; no inline styles or scripts otherwise, no other origin.
 */
export function contentSecurityPolicy(page: Asset): string {
  const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(page.body.toString('utf8'))?.[1] ?? '';
  const hash = createHash('sha256').update(importMap).digest('base64');
  return `default-src 'self'; script-src 'self' 'sha256-${hash}'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}
