// A load test's results off the event loop: merging every report of an ending test (test-results.ts)
// takes a fraction of a second of a core for a 30 s test of 20 shards and seconds for an hour (figures:
// docs/operating.md), work that on the event loop held up every request the process answered meanwhile
// (the API's, in the embedded mode). It runs on a pool of lib/threads/thread-pool.ts of one thread, one
// test at a time, below the main thread's priority and above the load threads' (domain/load/threads.ts;
// a replay's aside), so that other tests' load does not stretch it. Its time on the thread is kept
// within the activity's minute (an hour of 20 shards, a plan's largest test, takes about 9 s; time
// queued behind another test's results is not counted) and its heap past what that test needs (under
// 512 MB). Results the thread cannot give are computed on the event loop as before, and the caller is
// told why: an ended test always gets its results.
import type { FinalResults } from '../../../lib/jobs/load-test.ts';
import { type Failure, type Refusal, ThreadPool, type ThreadPoolOptions } from '../../../lib/threads/thread-pool.ts';
import { type ResultsInput, testResults } from './test-results.ts';

export const RESULTS_THREAD_DEFAULTS = {
  threads: 1,
  budgetMs: 40_000,
  heapMb: 1024,
  maxQueued: 64,
  maxQueuedPerOwner: 2,
  maxQueuedBytes: Number.POSITIVE_INFINITY,
  nice: 5,
} satisfies ThreadPoolOptions;

/** A test's results, and why the thread did not give them (null: it did), with what ended it when known. */
export interface ComputedResults {
  results: FinalResults;
  onEventLoop: Failure | Refusal | null;
  error?: string;
}

export class ResultsThreads extends ThreadPool<ResultsInput, FinalResults> {
  constructor(options: Partial<ThreadPoolOptions> = {}) {
    super(
      { ...RESULTS_THREAD_DEFAULTS, ...options },
      // The clock: the budget is a backstop. An idle thread ends: a process whose tests have ended keeps none.
      { module: new URL('./results-thread.ts', import.meta.url), clock: 'wall', idleMs: 5 * 60_000 },
    );
  }

  /** Test `testId`'s results, computed on the thread; on the event loop when the thread cannot give them. */
  async results(testId: string, input: ResultsInput): Promise<ComputedResults> {
    const run = this.run(testId, input);
    const outcome = typeof run === 'string' ? run : await run;
    if (typeof outcome !== 'string' && outcome.ok) return { results: outcome.answer, onEventLoop: null };
    const results = await testResults(input);
    if (typeof outcome === 'string') return { results, onEventLoop: outcome };
    return { results, onEventLoop: outcome.failed, ...(outcome.error ? { error: outcome.error.message } : {}) };
  }
}
