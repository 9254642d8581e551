// A shard on the load threads: its users cut into one part per thread (splitUsers), each part
// reporting on its thread's clock, unasked, and the parts' totals merged into one snapshot
// (mergeSnapshots), as one generator would report them. Against a loopback target started here, on
// two real worker threads.
import type { ShardSnapshot } from '../../../../lib/load/snapshot.ts';
import hdr from 'hdr-histogram-js';
import { shardPlan } from '../../../support/shard-plan.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeSeconds } from '../../../../domain/load/metrics/per-second.ts';
import type { ShardPlan } from '../../../../domain/load/shard.ts';
import fs from 'node:fs';
import { LOAD_THREAD_NICE, partsOf, ThreadedShard } from '../../../../domain/load/threads.ts';
import { ForbiddenAddressError } from '../../../../lib/net/target-guard.ts';
import { startLoadTarget, type LoadTarget } from '../../../fixtures/load-target.ts';

const plan = (url: string, users: number, durationMs: number, allow = ['127.0.0.1/32']): ShardPlan =>
  shardPlan(url, users, durationMs, { allow });

/**
 * `p` started on `threads` threads, its parts reporting every `everyMs` (the phases every third
 * round); each report taken at once, as the shard activity takes it, and kept here with when it came.
 */
function started(p: ShardPlan, threads: number, everyMs = 200) {
  const reports: Array<{ at: number; snapshot: ShardSnapshot }> = [];
  let first: () => void = () => {};
  const reported = new Promise<void>((resolve) => (first = resolve));
  const startedAt = Date.now();
  const shard = ThreadedShard.start(p, threads, {
    firstAt: startedAt + everyMs,
    everyMs,
    phasesEvery: 3,
    onReport: () => {
      const snapshot = shard.latest();
      reports.push({ at: Date.now() - startedAt, snapshot });
      first();
    },
  });
  return { shard, reports, reported };
}

describe('a shard on two threads', () => {
  let site: LoadTarget;
  beforeAll(async () => {
    site = await startLoadTarget();
  });
  afterAll(() => site.close());

  // Tried up to three times: the report count is the parts' clock's over 3 s, which a loaded two-core
  // machine (the whole unit suite beside it) delays now and then; a wrong clock fails every try. Each try
  // sends to a path of its own, so that what the target counted is that try's.
  let tries = 0;
  it('runs its users across the threads and reports them as one', { retry: 2 }, async () => {
    const path = `/delay/20/try-${++tries}`;
    const { shard, reports, reported } = started(plan(`${site.url}${path}`, 6, 3000), 2, 300);
    // What the parts sent, read at any moment: at least what their last report counted sent.
    await reported;
    const counted = shard.sentSoFar();
    const last = reports.at(-1)!.snapshot;
    expect(counted).toBeGreaterThanOrEqual(last.total + last.inFlight);
    const result = await shard.run();
    // ...and, once they ended, exactly what the target got.
    expect(shard.sentSoFar()).toBe(site.count(path));
    expect(shard.sentSoFar()).toBeGreaterThanOrEqual(counted);
    // Both parts report each round; the shard tells once per round, at the parts' clock (round 0 as
    // the parts start, then from 300 ms every 300 ms: 9 or 10 in 3 s, never one a part: 20). The
    // threads run at a lowered priority, so a machine busy with other work can starve their clocks:
    // fewer rounds then, but still more than the first.
    expect(reports.length).toBeGreaterThanOrEqual(3);
    expect(reports.length).toBeLessThanOrEqual(11);
    const totals = reports.map((r) => r.snapshot.total);
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
    expect(totals.at(-1)).toBeLessThanOrEqual(result.total);
    // The phases' histograms every third round only (shard.ts: PHASES_EVERY), from both parts.
    const phased = reports.map((r) => r.snapshot.phases !== undefined);
    // Not the first (it timed nothing yet); then with the rounds that carry them, which may reach the
    // owner a report early when one part's round 3 comes before the other's round 2 (kept, not lost).
    expect(phased[0]).toBe(false);
    expect(phased.some(Boolean)).toBe(true);
    expect(phased.filter(Boolean).length).toBeLessThanOrEqual(Math.ceil(phased.length / 3) * 2);
    const live = reports.at(-1)!.snapshot;
    expect(hdr.decodeFromCompressedBase64(live.histogram, 64, false).totalCount).toBe(live.total);
    expect(result.total).toBe(site.count(path));
    expect(result.successful).toBe(result.total);
    expect(new Set(site.ports(path)).size).toBe(6); // one connection per user, over both threads
    expect(hdr.decodeFromCompressedBase64(result.histogram, 64, false).totalCount).toBe(result.total);
    // Every second's figures were handed out once, between the live snapshots and the end.
    const seconds = mergeSeconds([...reports.map((r) => r.snapshot.newSeconds ?? []), result.newSeconds ?? []]);
    expect(seconds.reduce((n, s) => n + s.sent, 0)).toBe(result.total);
    expect(seconds.reduce((n, s) => n + s.answered, 0)).toBe(result.total);
    // From the first second anything was sent (0, unless a thread took past a second to start on a busy machine).
    expect(result.sending).toMatchObject({ first: seconds.findIndex((s) => s.sent > 0), last: seconds.length - 1 });
    expect(result.statusCodes).toEqual({ 200: result.total });
    expect(result.phases && hdr.decodeFromCompressedBase64(result.phases.ttfb, 64, false).totalCount).toBe(
      result.total,
    );
  });

  it('stops every part, and refuses a forbidden target before any thread starts', async () => {
    const { shard } = started(plan(`${site.url}/delay/10`, 4, 60_000), 2);
    await new Promise((r) => setTimeout(r, 500));
    const began = Date.now();
    shard.stop();
    const result = await shard.run();
    expect(Date.now() - began).toBeLessThan(5000);
    expect(result.total).toBe(site.count('/delay/10'));
    expect(() => started(plan('http://10.0.0.1/', 2, 1000, []), 2)).toThrow(ForbiddenAddressError);
  });

  it('cuts a shard across the idle threads, and runs it whole once every thread is busy', async () => {
    expect(partsOf({ rate: 0 }, 2)).toBe(2);
    expect(partsOf({ rate: 0 }, 0)).toBe(1);
    expect(partsOf({ rate: 50 }, 2)).toBe(1); // one schedule of arrivals
    // Two shards on two idle threads: the first takes both, the second finds none idle and runs whole.
    const shards = [
      started(plan(`${site.url}/delay/5`, 3, 800), 2).shard,
      started(plan(`${site.url}/delay/5`, 3, 800), 2).shard,
    ];
    expect(shards.map((s) => s.partCount)).toEqual([2, 1]);
    const results = await Promise.all(shards.map((s) => s.run()));
    expect(results[0]!.total + results[1]!.total).toBe(site.count('/delay/5'));
    expect(new Set(site.ports('/delay/5')).size).toBe(6);
  });

  it.runIf(process.platform === 'linux')(
    "runs a test's threads below the main thread, and a replay's at the main thread's priority",
    async () => {
      // Each thread of this process and its nice value (/proc/<pid>/task/<tid>/stat: the 19th field).
      const niceness = () =>
        new Map(
          fs.readdirSync('/proc/self/task').map((tid) => {
            const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
            return [tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])] as const;
          }),
        );
      const main = niceness().get(String(process.pid))!;
      const lowered = (m: Map<string, number>) =>
        [...m].filter(([, n]) => n === Math.min(19, main + LOAD_THREAD_NICE)).length;

      // Once its threads report, they have started and set their priority.
      const load = started(plan(`${site.url}/delay/5`, 2, 1500), 2);
      await load.reported;
      const afterLoad = niceness();
      expect(lowered(afterLoad)).toBeGreaterThanOrEqual(2);

      const replay = started(
        {
          ...plan(`${site.url}/delay/5`, 1, 1500),
          target: { url: `${site.url}/`, method: 'GET', headers: {}, replay: { speed: 1, loop: false } },
          replay: { speed: 1, loop: false, requests: [{ at: 0, method: 'GET', path: '/delay/5', headers: {} }] },
        },
        2,
      );
      await replay.reported;
      const afterReplay = niceness();
      const replayThreads = [...afterReplay.keys()].filter((tid) => !afterLoad.has(tid));
      expect(replayThreads.length).toBeGreaterThanOrEqual(2); // the replay's own threads
      expect(replayThreads.map((tid) => afterReplay.get(tid))).toEqual(replayThreads.map(() => main));
      expect(lowered(afterReplay)).toBe(lowered(afterLoad));
      await Promise.all([load.shard.run(), replay.shard.run()]);
    },
  );
});
