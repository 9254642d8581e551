import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { dashboardAssets } from '../../../../api/dashboard/assets.ts';

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
});
