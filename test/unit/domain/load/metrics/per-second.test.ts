// A shard's per-second figures: only the seconds that changed since its last report are handed out,
// each once; a second split across reports merges to what one report would have said; the seconds
// sent in and the last pace (what a lost attempt is judged by) follow the sends.
import { describe, expect, it } from 'vitest';
import { mergeSeconds, mergeSending, PerSecondCounts } from '../../../../../domain/load/metrics/per-second.ts';
import { PHASES } from '../../../../../domain/load/phases.ts';

describe('per-second counts', () => {
  it('hands out each change once, and its reports merge to the whole', () => {
    const split = new PerSecondCounts();
    const whole = new PerSecondCounts();
    const reports = [];
    for (let i = 0; i < 300; i++) {
      const second = Math.floor(i / 100);
      for (const c of [split, whole]) {
        c.countSent(second);
        c.countAnswer(second, 1000 + i * 37, i % 7 === 0, i % 7 === 0 ? 500 : 200);
      }
      if (i % 45 === 0) reports.push(split.drain());
    }
    reports.push(split.drain());
    expect(split.drain()).toEqual([]);
    // No report holds a second that did not change since the previous one.
    expect(reports.every((r) => r.every((f) => f.sent + f.answered > 0))).toBe(true);
    const everything = () => true;
    const merged = mergeSeconds(reports, everything);
    const reference = mergeSeconds([whole.drain()], everything);
    expect(merged.map(({ histogram, ...rest }) => rest)).toEqual(reference.map(({ histogram, ...rest }) => rest));
    for (let s = 0; s < 3; s++) {
      for (const q of [50, 90, 99, 100])
        expect(merged[s]!.histogram!.getValueAtPercentile(q)).toBe(reference[s]!.histogram!.getValueAtPercentile(q));
    }
  });

  it('sums each phase under its own name, in the order of PHASES', () => {
    const c = new PerSecondCounts();
    c.countSent(0);
    c.countAnswer(0, 900, false, 200, { dns: 1.4, connect: 20, tls: 300, ttfb: 4000, transfer: 50_000 });
    c.countSent(0);
    c.countAnswer(0, 800, false, 200, { dns: 0, connect: 0, tls: 0, ttfb: 1000, transfer: -3 });
    const [second] = c.drain();
    expect(PHASES).toEqual(['dns', 'connect', 'tls', 'ttfb', 'transfer']);
    expect(second).toMatchObject({ phased: 2, phaseSumUs: [1, 20, 300, 5000, 50_000] });
  });

  it('knows the seconds sent in and the last pace, across parts too', () => {
    const c = new PerSecondCounts();
    expect(c.sent()).toBeNull();
    for (const [second, n] of [
      [3, 5],
      [4, 9],
      [5, 2],
    ] as const)
      for (let i = 0; i < n; i++) c.countSent(second);
    expect(c.sent()).toEqual({ first: 3, last: 5, pace: 9 });
    c.drain(); // the sending is not a per-report figure
    expect(c.sent()).toEqual({ first: 3, last: 5, pace: 9 });
    for (let i = 0; i < 4; i++) c.countSent(7); // a second without sends in between: the pace is the last second's
    expect(c.sent()).toEqual({ first: 3, last: 7, pace: 4 });
    expect(mergeSending([c.sent(), { first: 1, last: 6, pace: 10 }, { first: 0, last: 2, pace: 50 }, null])).toEqual({
      first: 0,
      last: 7,
      pace: 14,
    });
    expect(mergeSending([null, undefined])).toBeNull();
  });
});
