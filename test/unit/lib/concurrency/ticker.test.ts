// The shared ticker (lib/concurrency/ticker.ts), on fake timers: one interval for every caller, running only
// while one is registered.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sharedTicker } from '../../../../lib/concurrency/ticker.ts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('sharedTicker', () => {
  it('calls every registered caller at each tick, from one timer, until it leaves', () => {
    const ticker = sharedTicker(1000);
    const calls: string[] = [];
    const a = ticker.add(() => calls.push('a'));
    const b = ticker.add(() => calls.push('b'));
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(2000);
    expect(calls).toEqual(['a', 'b', 'a', 'b']);
    a();
    vi.advanceTimersByTime(1000);
    expect(calls.slice(4)).toEqual(['b']);
    b();
    expect(vi.getTimerCount()).toBe(0); // none left: no timer
    ticker.add(() => calls.push('c'));
    vi.advanceTimersByTime(1000);
    expect(calls.slice(5)).toEqual(['c']);
  });

  it('calls the others when one throws, and throws its error after them', () => {
    const ticker = sharedTicker(1000);
    const calls: string[] = [];
    ticker.add(() => {
      throw new Error('broken');
    });
    ticker.add(() => calls.push('b'));
    expect(() => vi.advanceTimersByTime(1000)).toThrow('broken');
    expect(calls).toEqual(['b']);
  });

  it('keeps a function added twice as two callers', () => {
    const ticker = sharedTicker(500);
    let n = 0;
    const f = () => n++;
    const first = ticker.add(f);
    ticker.add(f);
    vi.advanceTimersByTime(500);
    expect(n).toBe(2);
    first();
    vi.advanceTimersByTime(500);
    expect(n).toBe(3);
  });
});
