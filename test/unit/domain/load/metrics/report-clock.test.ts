// A shard's report clock (report-clock.ts), on fake timers: at once, then at its moment and every
// interval after, each at its own time.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { carriesPhases, onClock } from '../../../../../domain/load/metrics/report-clock.ts';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(10_000);
});
afterEach(() => vi.useRealTimers());

/** The times `report` was called at and the times it was due, over `ms`. */
function over(ms: number, firstAt: number) {
  const calls: Array<{ at: number; due: number }> = [];
  const stop = onClock({ firstAt, everyMs: 1000, phasesEvery: 5 }, (due) => calls.push({ at: Date.now(), due }));
  vi.advanceTimersByTime(ms);
  stop();
  return calls;
}

describe('onClock', () => {
  it('reports at once, then at its moment and every interval after', () => {
    const calls = over(3000, 10_600);
    expect(calls.map((c) => c.at)).toEqual([10_000, 10_600, 11_600, 12_600]);
    expect(calls.map((c) => c.due)).toEqual([10_000, 10_600, 11_600, 12_600]);
  });

  it('leaves out a moment less than half an interval after the first report', () => {
    expect(over(2500, 10_100).map((c) => c.at)).toEqual([10_000, 11_100, 12_100]);
  });

  it('reports at the first moment still ahead when its first is already past (a slow start)', () => {
    // Its first moment 2.3 s ago: the next ones at its own moments of the second, from 0.7 s on.
    expect(over(2000, 7_700).map((c) => c.at)).toEqual([10_000, 10_700, 11_700]);
  });

  it('stops', () => {
    const calls: number[] = [];
    const stop = onClock({ firstAt: 10_500, everyMs: 1000, phasesEvery: 5 }, () => calls.push(Date.now()));
    stop();
    vi.advanceTimersByTime(5000);
    expect(calls).toEqual([10_000]);
  });

  it('carries the phases every phasesEvery-th report, not the first (it has timed nothing yet)', () => {
    const clock = { firstAt: 0, everyMs: 1000, phasesEvery: 5 };
    expect(Array.from({ length: 11 }, (_, round) => carriesPhases(round, clock))).toEqual([
      false,
      false,
      false,
      false,
      false,
      true,
      false,
      false,
      false,
      false,
      true,
    ]);
  });
});
