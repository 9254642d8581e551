import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import Router from '@koa/router';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { assetPath, assetRoutes, dashboardAssets } from '../../../../api/dashboard/assets.ts';
import { html, page } from '../../../../api/pages/html.ts';

/** The esbuild processes this process started that still run (Linux: their parent is us). */
function esbuildChildren(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return parent === process.pid && fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('esbuild');
      } catch {
        return false; // ended while we looked
      }
    })
    .map(Number);
}

describe('dashboard assets', () => {
  it('bundles each page script and keeps nothing of esbuild running once built', async () => {
    const assets = dashboardAssets();
    for (const name of ['load-chart.js', 'load-form.js', 'live-webhook.js', 'video-job.js'])
      expect(assets.get(name)?.body.length, name).toBeGreaterThan(100);
    // esbuild's service process ends when its thread here is stopped; left running, it never does.
    while (esbuildChildren().length) await sleep(50);
  });

  it('is linked at its version, kept a year at it, and revalidated at any other address', async () => {
    const router = new Router({ prefix: '/dashboard' });
    assetRoutes(router);
    const server = new Koa().use(router.routes()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const css = [...page('t', html``).matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]);
      expect(css).toEqual([assetPath('page.css'), assetPath('charts.css')]);
      for (const href of [...css, assetPath('live-webhook.js')]) {
        const [path, version] = href!.split('?v=');
        expect(version).toMatch(/^[\w-]{27}$/);
        const kept = await fetch(base + href);
        expect([kept.status, kept.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
        expect(await kept.text()).toBe(dashboardAssets().get(path!.split('/').at(-1)!)!.body);
        // Another version (a page rendered before the file changed) or none: today's file, asked for again at
        // each use.
        for (const other of [path!, `${path}?v=older`]) {
          const fresh = await fetch(base + other);
          expect([fresh.status, fresh.headers.get('cache-control')]).toEqual([200, 'no-cache']);
          const etag = fresh.headers.get('etag')!;
          expect(etag).toBe(`"${version}"`);
          // As a browser revalidates (fetch() adds `cache-control: no-cache` beside a validator, asking for the
          // body).
          const again = await fetch(base + other, { headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' } });
          expect(again.status).toBe(304);
        }
      }
    } finally {
      server.close();
    }
  });
});
