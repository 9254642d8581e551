// The wait for a capture below every door: it looks at once, again on each notification of its own
// webhook (not another's), again after LOOK_AGAIN_MS without one, and ends at the deadline or an abort.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CAPTURES_CHANNEL,
  captureWatcher,
  LOOK_AGAIN_MS,
  waitForCapture,
} from '../../../../domain/webhooks/capture-wait.ts';
import { MemoryKvStore } from '../../../../lib/kv/index.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('waitForCapture', () => {
  it('answers what a look finds: at once, or at the notification of its webhook', async () => {
    const kv = new MemoryKvStore();
    const watch = captureWatcher(kv);
    let stored: string | null = null;
    const looks: string[] = [];
    const waiting = waitForCapture({
      watch,
      webhookId: 'w1',
      deadline: Date.now() + 60_000,
      look: async () => {
        looks.push(stored ?? 'nothing');
        return stored;
      },
    });
    await new Promise((r) => setTimeout(r, 20));
    await kv.publish(CAPTURES_CHANNEL, 'another'); // not its webhook: no look
    await new Promise((r) => setTimeout(r, 20));
    stored = 'capture 7';
    await kv.publish(CAPTURES_CHANNEL, 'w1');
    expect(await waiting).toBe('capture 7');
    expect(looks).toEqual(['nothing', 'capture 7']);
    expect(await waitForCapture({ watch, webhookId: 'w1', deadline: 0, look: async () => 'there' })).toBe('there');
  });

  it('looks again every LOOK_AGAIN_MS without a notification, and answers null at the deadline', async () => {
    vi.useFakeTimers();
    const watch = captureWatcher(new MemoryKvStore());
    let looks = 0;
    const waiting = waitForCapture({
      watch,
      webhookId: 'w1',
      deadline: Date.now() + 2 * LOOK_AGAIN_MS + 1000,
      look: async () => {
        looks += 1;
        return null;
      },
    });
    await vi.advanceTimersByTimeAsync(LOOK_AGAIN_MS);
    expect(looks).toBe(2);
    await vi.advanceTimersByTimeAsync(LOOK_AGAIN_MS + 1000);
    expect(await waiting).toBeNull();
    expect(looks).toBe(4);
  });

  it('ends with null when its signal aborts, and stops watching', async () => {
    const kv = new MemoryKvStore();
    const unwatched = vi.fn();
    const watch = (id: string, notify: () => void) => {
      const stop = captureWatcher(kv)(id, notify);
      return () => {
        unwatched();
        stop();
      };
    };
    const abort = new AbortController();
    const waiting = waitForCapture({
      watch,
      webhookId: 'w1',
      deadline: Date.now() + 60_000,
      signal: abort.signal,
      look: async () => null,
    });
    setTimeout(() => abort.abort(), 20);
    expect(await waiting).toBeNull();
    expect(unwatched).toHaveBeenCalledOnce();
  });
});
