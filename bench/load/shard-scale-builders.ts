// bench:shard-scale's builder threads (shard-scale-builder.ts), from the worker's side: each shard's
// reports routed to it as they come, and its last snapshot asked for at its end.
import { Worker as Thread } from 'node:worker_threads';
import type { ReportClock } from '../../domain/load/metrics/report-clock.ts';
import { LOAD_THREAD_NICE } from '../../domain/load/threads.ts';
import type { BuildRequest, Built } from './shard-scale-builder.ts';

/**
 * `count` threads that feed the shards' histograms (`samples` answers a second) and report their
 * snapshots, as a load worker's load threads, at their priority; with the first error of one (it
 * died: the bench stops).
 */
export function startBuilders(count: number, samples: number) {
  let builderFailure: Error | undefined;
  let ending = false;
  const builders = Array.from({ length: count }, () => {
    const thread = new Thread(new URL('./shard-scale-builder.ts', import.meta.url), {
      workerData: { samples, nice: LOAD_THREAD_NICE },
    });
    const shards = new Map<string, { reported: (built: Built) => void; failed: (err: Error) => void }>();
    // A builder that died would leave its shards waiting: they fail, and the bench stops after this N
    // (through its cleanup: the dev server and its data folder go with it). One that exits without an
    // error (process.exit in it, say) the same, unless the bench ended it.
    const died = (err: Error) => {
      builderFailure ??= err;
      for (const s of shards.values()) s.failed(err);
      shards.clear();
    };
    thread.on('error', died);
    thread.on('exit', (code) => {
      if (!ending) died(new Error(`a builder thread exited (code ${code})`));
    });
    thread.on('message', (built: Built) => shards.get(built.key)?.reported(built));
    return {
      thread,
      /**
       * Starts a shard's reports (`reported` called with each); the function that ends it, answering its last snapshot.
       */
      start(
        key: string,
        startAt: number,
        clock: ReportClock,
        reported: (built: Built) => void,
      ): { end: () => Promise<Built>; failed: Promise<never> } {
        let fail: (err: Error) => void = () => {};
        const failed = new Promise<never>((_, reject) => (fail = reject));
        failed.catch(() => {});
        if (builderFailure) fail(builderFailure);
        shards.set(key, { reported, failed: fail });
        thread.postMessage({ op: 'start', key, startAt, clock } satisfies BuildRequest);
        const end = () =>
          Promise.race([
            new Promise<Built>((resolve) => {
              shards.set(key, {
                reported: (built) => {
                  if (!built.final) return;
                  shards.delete(key);
                  resolve(built);
                },
                failed: fail,
              });
              thread.postMessage({ op: 'end', key } satisfies BuildRequest);
            }),
            failed,
          ]);
        return { end, failed };
      },
    };
  });
  return {
    builders,
    failure: () => builderFailure,
    /** Ends every builder thread (the bench's end). */
    async end(): Promise<void> {
      ending = true;
      for (const b of builders) await b.thread.terminate();
    },
  };
}
