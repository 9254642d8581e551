// Waiting for a webhook's captures, below every door: which webhooks just stored captures (or were
// deleted), heard by every process over the key-value store's pub/sub, and the wait for the first
// capture a look finds. The API's live streams and waits use it, and so does the network pool's wait
// activity (an MCP task's wait runs as a workflow).
import type { KvStore } from '../../lib/kv/index.ts';

/** The channel on which every process hears which webhooks just stored captures (or were deleted). */
export const CAPTURES_CHANNEL = 'captures';

/** A wait looks again this often even without a notification (one may be lost with the store's connection). */
export const LOOK_AGAIN_MS = 5000;

export type CaptureWatch = (webhookId: string, notify: () => void) => () => void;

/**
 * One subscription per process; each message wakes only the watchers of that webhook. `watch` calls
 * `notify` whenever `webhookId` stores captures or is deleted, in any process, and answers the unwatch.
 */
export function captureWatcher(kv: KvStore): CaptureWatch {
  const watchers = new Map<string, Set<() => void>>();
  let subscribed = false;
  const wake = (webhookId: string) =>
    watchers.get(webhookId)?.forEach((notify) => {
      notify();
    });
  return (webhookId, notify) => {
    if (!subscribed) {
      kv.subscribe(CAPTURES_CHANNEL, wake);
      subscribed = true;
    }
    const set = watchers.get(webhookId) ?? new Set();
    set.add(notify);
    watchers.set(webhookId, set);
    return () => {
      set.delete(notify);
      if (set.size === 0) watchers.delete(webhookId);
    };
  };
}

/**
 * The first thing `look` finds, or null once `deadline` (epoch ms) has passed or `signal` aborts.
 * `look` runs at once, each time `webhookId` stores captures (subscribed before the first look, so a
 * capture stored during a look is looked for again) and, in case a notification was lost, at least
 * every LOOK_AGAIN_MS.
 */
export async function waitForCapture<T>(o: {
  watch: CaptureWatch;
  webhookId: string;
  look: () => Promise<T | null>;
  deadline: number;
  signal?: AbortSignal;
}): Promise<T | null> {
  let woken = () => {};
  let stored = false;
  const unwatch = o.watch(o.webhookId, () => {
    stored = true;
    woken();
  });
  try {
    for (;;) {
      stored = false;
      const found = await o.look();
      if (found !== null) return found;
      const left = o.deadline - Date.now();
      if (left <= 0 || o.signal?.aborted) return null;
      if (stored) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, LOOK_AGAIN_MS));
        function done() {
          clearTimeout(timer);
          o.signal?.removeEventListener('abort', done);
          resolve();
        }
        woken = done;
        o.signal?.addEventListener('abort', done);
      });
    }
  } finally {
    unwatch();
  }
}
