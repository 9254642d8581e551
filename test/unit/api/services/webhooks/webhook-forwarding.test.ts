import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Client } from '@temporalio/client';
import {
  BUSY_WAKE_EVERY_MS,
  WAKE_EVERY_MS,
  webhookForwardingService,
} from '../../../../../api/services/webhooks/webhook-forwarding.ts';
import { BUSY_CAPTURES } from '../../../../../lib/jobs/index.ts';

describe('waking the webhook forwarder', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** The service over a Temporal client that counts its signals (each answered at once). */
  function service() {
    const signals = vi.fn(async () => undefined);
    const temporal = { workflow: { signalWithStart: signals } } as unknown as Pick<Client, 'workflow'>;
    return { forwarding: webhookForwardingService({ temporal, onError: () => {} }), signals };
  }

  /** Stores `perSecond` captures a second, of forwarding webhooks, in batches every 10 ms, for `ms`. */
  async function storeFor(forwarding: ReturnType<typeof service>['forwarding'], perSecond: number, ms: number) {
    for (let t = 0; t < ms; t += 10) {
      forwarding.afterCapturesStored(perSecond / 100, true);
      await vi.advanceTimersByTimeAsync(10);
    }
  }

  it('wakes at once, then at most once per WAKE_EVERY_MS while captures trickle in', async () => {
    const { forwarding, signals } = service();
    forwarding.afterCapturesStored(1, true);
    await vi.advanceTimersByTimeAsync(0);
    expect(signals).toHaveBeenCalledTimes(1);
    await storeFor(forwarding, BUSY_CAPTURES / 2, 10 * WAKE_EVERY_MS);
    expect(signals.mock.calls.length).toBeGreaterThanOrEqual(10);
    expect(signals.mock.calls.length).toBeLessThanOrEqual(11);
  });

  it(
    'wakes once per BUSY_WAKE_EVERY_MS while captures ' +
      'pour in, sends the wake owed after the burst, then ' +
      'none',
    async () => {
      const { forwarding, signals } = service();
      await storeFor(forwarding, BUSY_CAPTURES * 5, 4.5 * BUSY_WAKE_EVERY_MS); // ends mid-way between two wakes
      // The first wake at once, then one per BUSY_WAKE_EVERY_MS (at the trickle pace it would have been 36).
      expect(signals).toHaveBeenCalledTimes(5);
      await vi.advanceTimersByTimeAsync(BUSY_WAKE_EVERY_MS); // the captures stored since the last wake get theirs
      expect(signals).toHaveBeenCalledTimes(6);
      await vi.advanceTimersByTimeAsync(5 * BUSY_WAKE_EVERY_MS); // quiet: nothing more
      expect(signals).toHaveBeenCalledTimes(6);
      await storeFor(forwarding, BUSY_CAPTURES / 2, 10 * WAKE_EVERY_MS);
      expect(signals.mock.calls.length - 6).toBeGreaterThanOrEqual(10);
    },
  );

  it("wakes only for forwarding webhooks, and counts every webhook's captures toward the pace", async () => {
    const { forwarding, signals } = service();
    forwarding.afterCapturesStored(10_000, false);
    await vi.advanceTimersByTimeAsync(5 * WAKE_EVERY_MS);
    expect(signals).not.toHaveBeenCalled();
    forwarding.afterCapturesStored(1, true);
    await vi.advanceTimersByTimeAsync(10);
    expect(signals).toHaveBeenCalledTimes(1);
    // 10,000 captures of plain webhooks and one to forward within the pause: captures pour in, so the next wake waits.
    forwarding.afterCapturesStored(10_000, false);
    forwarding.afterCapturesStored(1, true);
    await vi.advanceTimersByTimeAsync(BUSY_WAKE_EVERY_MS - 11);
    expect(signals).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(signals).toHaveBeenCalledTimes(2);
  });
});
