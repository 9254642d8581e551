// Collects items and hands them on in batches: once `maxItems` are waiting, or `maxWaitMs` after the
// first of a batch came, and at `close()`. One batch at a time, in the order the items came (a batch
// sealed while the one before is being handed on waits for it). A failed batch is not retried here,
// and the next ones still go: `close()` rejects with the first failure (what it held is the caller's
// to account for).

export interface Batcher<T> {
  add(item: T): void;
  /**
   * Hands on what is left, waits for every batch; rejects with the first failed batch's error, if any. No add after it.
   */
  close(): Promise<void>;
}

export function batcher<T>(
  flush: (items: T[]) => Promise<void>,
  { maxItems, maxWaitMs }: { maxItems: number; maxWaitMs: number },
): Batcher<T> {
  let waiting: T[] = [];
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let failed: { err: unknown } | undefined;
  let closed = false;

  const send = () => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting.length === 0) return;
    const items = waiting;
    waiting = [];
    running = running.then(async () => {
      try {
        await flush(items);
      } catch (err) {
        failed ??= { err };
      }
    });
  };

  return {
    add(item) {
      if (closed) throw new Error('batcher: add after close');
      waiting.push(item);
      if (waiting.length >= maxItems) send();
      else timer ??= setTimeout(send, maxWaitMs);
    },
    async close() {
      closed = true;
      send();
      await running;
      if (failed) throw failed.err;
    },
  };
}
