// The dashboard's static assets, served from this origin (the pages' CSP allows scripts and styles from
// 'self' only, no CDN): the pages' CSS (api/pages/styles/) and the browser code (api/browser/,
// TypeScript), bundled by esbuild when the server starts, in memory, once: `npm start` and the tests
// need no build step, and a page never runs a script older than the server's (docs/decisions.md).
// Pages link each file at an address holding its version (`?v=`, the start of its content's hash): asked
// for at that version, the answer may be kept a year without asking again; at another or none, it is the
// file as it is now, revalidated by its ETag at each use (a page rendered before a restart that changed it).
import type Router from '@koa/router';
import { atFirstUse } from '../../lib/at-first-use.ts';
import { assetHref, STYLES, versionOf } from '../pages/styles.ts';

/** The scripts of the pages (api/browser/<name>.ts), each bundled with what it imports. */
const SCRIPTS = ['load-chart', 'load-form', 'live-webhook', 'video-job'];

interface Asset {
  type: string;
  body: string;
  version: string;
  /** Where pages link it, with its version. */
  href: string;
}

const loadEsbuild = atFirstUse<typeof import('esbuild')>('esbuild');

function asset(name: string, type: string, body: string): Asset {
  const version = versionOf(body);
  return { type, body, version, href: assetHref(name, version) };
}

let built: Map<string, Asset> | undefined;

/** The assets by file name: the bundles are built on the first call (a few tens of milliseconds). */
export function dashboardAssets(): Map<string, Asset> {
  built ??= new Map([
    ...Object.entries(STYLES).map(([name, css]): [string, Asset] => [
      name,
      asset(name, 'text/css; charset=utf-8', css),
    ]),
    ...bundle().map(([name, js]): [string, Asset] => [name, asset(name, 'text/javascript; charset=utf-8', js)]),
  ]);
  return built;
}

function bundle(): Array<[string, string]> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = loadEsbuild();
  } catch {
    // A broken install (esbuild is a dependency): the pages work without their scripts (no live updates).
    process.emitWarning('dashboard scripts not served: esbuild is missing; run npm ci');
    return [];
  }
  try {
    const result = esbuild.buildSync({
      entryPoints: SCRIPTS.map((name) => new URL(`../browser/${name}.ts`, import.meta.url).pathname),
      bundle: true,
      write: false,
      outdir: '/',
      // Classic scripts (no module loader needed), for the browsers of the last few years.
      format: 'iife',
      target: 'es2022',
      legalComments: 'none',
      logLevel: 'silent',
    });
    return result.outputFiles.map((file) => [file.path.slice(1), file.text]);
  } finally {
    // buildSync leaves a thread of this process and an esbuild child process running for the next
    // call; there is none (measured at idle: the thread's heap 12 MB, the child 15 MB of RSS).
    void esbuild.stop();
  }
}

/** Where a page links the asset `name`, with its version (a script not built, without esbuild: a 404). */
export function assetPath(name: string): string {
  return dashboardAssets().get(name)?.href ?? `/dashboard/assets/${name}`;
}

/** Serves the assets at /assets/<file> of `router` (the dashboard's, under /dashboard). */
export function assetRoutes(router: Router): void {
  const assets = dashboardAssets();
  router.get('/assets/:file', (ctx) => {
    const found = assets.get(ctx.params.file!);
    if (!found) return;
    ctx.type = found.type;
    ctx.set('Cache-Control', ctx.query.v === found.version ? 'public, max-age=31536000, immutable' : 'no-cache');
    ctx.etag = found.version;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = found.body;
  });
}
