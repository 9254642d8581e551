// Collects items and hands them on in batches: once `maxItems` are waiting, or `maxWaitMs` after the
// first of a batch came, and at `close()`. One batch at a time (the next gathers meanwhile), in the
// order the items came. A failed batch is not retried here: `close()` rejects with its error, and no
// batch is started after it (what it held is the caller's to account for).

export interface Batcher<T> {
  add(item: T): void;
  /** Hands on what is left, waits for every batch; rejects with the first batch's error, if any. */
  close(): Promise<void>;
}

export function batcher<T>(flush: (items: T[]) => Promise<void>, { maxItems, maxWaitMs }: { maxItems: number; maxWaitMs: number }): Batcher<T> {
  let waiting: T[] = [];
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let failed: { err: unknown } | undefined;

  const send = () => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting.length === 0) return;
    const items = waiting;
    waiting = [];
    running = running.then(async () => {
      if (failed) return;
      try {
        await flush(items);
      } catch (err) {
        failed = { err };
      }
    });
  };

  return {
    add(item) {
      waiting.push(item);
      if (waiting.length >= maxItems) send();
      else timer ??= setTimeout(send, maxWaitMs);
    },
    async close() {
      send();
      await running;
      if (failed) throw failed.err;
    },
  };
}
