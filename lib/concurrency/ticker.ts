// One timer for many: callers that each want calling every `everyMs` share one interval, running
// while any is registered (unref'd: it never keeps a process alive). A process running hundreds of
// load shards wakes once a second for all their heartbeats, not once per shard.

export interface Ticker {
  /** Calls `fn` at every tick until the answered function is called. */
  add(fn: () => void): () => void;
}

export function sharedTicker(everyMs: number): Ticker {
  const calls = new Set<() => void>();
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    add(fn) {
      const call = () => fn(); // its own entry: one function added twice is called twice
      calls.add(call);
      timer ??= setInterval(() => {
        // One that throws does not keep the others from their tick; the first error is thrown after.
        let failure: { error: unknown } | undefined;
        for (const c of calls) {
          try {
            c();
          } catch (error) {
            failure ??= { error };
          }
        }
        if (failure) throw failure.error;
      }, everyMs).unref();
      return () => {
        calls.delete(call);
        if (!calls.size && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
  };
}
