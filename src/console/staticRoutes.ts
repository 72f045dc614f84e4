// The web task page: `/` serves index.html, `/static/<file>` the page's own files, and `/vendor/…`
// the ESM builds of Preact, its hooks and htm through an explicit table (the page's import map
// points there): shipped in the built package's dist/src/console/ (`npm run build` copies them),
// read from node_modules when running from the sources. The page names every file and API route
// by a relative URL, so it works under any base path. Nothing outside the static folder is ever
// served: paths are resolved, checked to stay inside it (after following links) and limited to
// known file types.
import { existsSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Hono } from 'hono';
import { sendFailure } from './failures.ts';
import { pageHeaders } from './pageHeaders.ts';

/**
 * The console's folder of page files: beside this module in the sources (src/console/). The
 * built package bundles this module into dist/src/console/index.js or a chunk in dist/chunks/,
 * and keeps the page's files in dist/src/console/ — beside the entry, one folder over from a chunk.
 */
function assetsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return existsSync(join(here, 'static')) ? here : join(here, '..', 'src', 'console');
}

const ASSETS_DIR = assetsDir();
/** The folder the page is served from. */
export const STATIC_DIR = join(ASSETS_DIR, 'static');
/** Where the built package keeps the vendor modules. */
const VENDOR_DIR = join(ASSETS_DIR, 'vendor');

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** The vendor modules the import map names, by URL path: the package and the ESM file beside its CommonJS entry. */
export const VENDOR_MODULES: Readonly<Record<string, { readonly specifier: string; readonly file: string }>> = {
  '/vendor/preact.mjs': { specifier: 'preact', file: 'preact.module.js' },
  '/vendor/preact-hooks.mjs': { specifier: 'preact/hooks', file: 'hooks.module.js' },
  '/vendor/htm.mjs': { specifier: 'htm', file: 'htm.module.js' },
};

const require = createRequire(import.meta.url);

/** The file serving the vendor module at `path`: the shipped copy, else the installed package's; undefined when neither is there. */
export function vendorFile(path: string): string | undefined {
  const module = VENDOR_MODULES[path];
  if (module === undefined) return undefined;
  const shipped = join(VENDOR_DIR, path.slice('/vendor/'.length));
  if (existsSync(shipped)) return shipped;
  try {
    return join(dirname(require.resolve(module.specifier)), module.file);
  } catch {
    return undefined;
  }
}

/** The file under `root` that `relative` names, or null when it escapes `root`, is missing or has an unknown type. */
export async function staticFile(root: string, relative: string): Promise<string | null> {
  if (relative.includes('\0') || TYPES[extname(relative)] === undefined) return null;
  const base = await realpath(root);
  const candidate = resolve(base, relative);
  if (!candidate.startsWith(base + sep)) return null;
  try {
    const real = await realpath(candidate);
    return real.startsWith(base + sep) && (await stat(real)).isFile() ? real : null;
  } catch {
    return null;
  }
}

async function sendFile(c: Context, path: string, cache: string): Promise<Response> {
  const body = await readFile(path);
  return c.body(body, 200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'cache-control': cache });
}

/** Registers the page, its files and the vendor modules. */
export function staticRoutes(app: Hono, root = STATIC_DIR): void {
  app.get('/', async (c) => {
    const html = await readFile(join(root, 'index.html'), 'utf8');
    return c.html(html, 200, pageHeaders(html));
  });

  app.get('/static/*', async (c) => {
    let relative: string;
    try {
      relative = decodeURIComponent(c.req.path.slice('/static/'.length));
    } catch {
      relative = '';
    }
    const file = await staticFile(root, relative);
    if (file === null) return sendFailure(c, 'route_not_found', `No page file ${JSON.stringify(c.req.path)}.`);
    return sendFile(c, file, 'no-cache');
  });

  app.get('/vendor/*', async (c) => {
    const file = vendorFile(c.req.path);
    if (file === undefined) return sendFailure(c, 'route_not_found', `No vendor module ${JSON.stringify(c.req.path)}.`);
    return sendFile(c, file, 'public, max-age=3600');
  });
}
