// Live-stream slots: `hold` keeps one while its work runs (renewed past the lease's time to live),
// frees it when the work ends however it ends, and refuses with 429 when the plan's are all held;
// MCP clients waiting on tasks/result hold slots of their own, as many, counted apart.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { streamService } from '../../../../api/services/streams.ts';
import { LEASE_TTL_SECONDS } from '../../../../lib/concurrency/stream-slots.ts';
import { RateLimitedError } from '../../../../lib/errors.ts';
import { MemoryKvStore } from '../../../../lib/kv/index.ts';

describe('live-stream slots', () => {
  afterEach(() => vi.useRealTimers());
  const free = { userId: 7, plan: 'free' as const }; // 2 live streams

  it('holds a slot past the lease’s time to live, and frees it when the work ends or fails', async () => {
    vi.useFakeTimers();
    const streams = streamService({ kv: new MemoryKvStore() });
    let finish = () => {};
    const long = streams.hold(free, () => new Promise<string>((resolve) => (finish = () => resolve('done'))));
    const other = streams.hold(free, () => new Promise<void>(() => {}));
    await vi.advanceTimersByTimeAsync(0);
    // Two minutes on (twice the time to live), both slots are still held: a third is refused.
    await vi.advanceTimersByTimeAsync(2 * LEASE_TTL_SECONDS * 1000);
    await expect(streams.hold(free, async () => 'third')).rejects.toBeInstanceOf(RateLimitedError);
    finish();
    expect(await long).toBe('done');
    expect(await streams.hold(free, async () => 'again')).toBe('again');
    await expect(
      streams.hold(free, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await streams.hold(free, async () => 'after a failure')).toBe('after a failure');
    void other;
  });

  it('counts tasks/result waits apart from live streams, as many as the plan has, and frees them', async () => {
    const streams = streamService({ kv: new MemoryKvStore() });
    const never = () => new Promise<void>(() => {});
    // Both live-stream slots held: waits on tasks still have theirs.
    void streams.hold(free, never);
    void streams.hold(free, never);
    let finish = () => {};
    const first = streams.holdTaskWait(free, () => new Promise<string>((resolve) => (finish = () => resolve('ended'))));
    void streams.holdTaskWait(free, never);
    await new Promise((resolve) => setImmediate(resolve));
    const third = streams.holdTaskWait(free, async () => 'third');
    await expect(third).rejects.toThrow('At most 2 tasks/result calls waiting at once on the free plan');
    await expect(streams.hold(free, async () => 'stream')).rejects.toBeInstanceOf(RateLimitedError);
    finish();
    expect(await first).toBe('ended');
    expect(await streams.holdTaskWait(free, async () => 'again')).toBe('again');
  });
});
