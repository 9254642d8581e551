// A load test's results off the event loop: merging every report of an ending test (test-results.ts)
// takes a fraction of a second of a core for a 30 s test of 20 shards and seconds for an hour (figures:
// docs/operating.md), work that on the event loop held up every request the process answered meanwhile
// (the API's, in the embedded mode). It runs on a pool of lib/threads/thread-pool.ts of one thread below
// the process's priority, one test at a time. Its time and heap are backstops far past what an hour's
// test takes; a test whose results the thread cannot give has them computed on the event loop as
// before, a minute of the test at a time: an ended test always gets its results.
import type { FinalResults } from '../../../lib/jobs/load-test.ts';
import { ThreadPool, type ThreadPoolOptions } from '../../../lib/threads/thread-pool.ts';
import { type ResultsInput, testResults } from './test-results.ts';

export const RESULTS_THREAD_DEFAULTS = {
  threads: 1,
  budgetMs: 120_000,
  heapMb: 1024,
  maxQueued: 64,
  maxQueuedPerOwner: 2,
  maxQueuedBytes: Number.POSITIVE_INFINITY,
  nice: 10,
} satisfies ThreadPoolOptions;

export class ResultsThreads extends ThreadPool<ResultsInput, FinalResults> {
  constructor(options: Partial<ThreadPoolOptions> = {}) {
    super(
      { ...RESULTS_THREAD_DEFAULTS, ...options },
      // The clock: the budget is a backstop. An idle thread ends: a process whose tests have ended keeps none.
      { module: new URL('./results-thread.ts', import.meta.url), clock: 'wall', idleMs: 5 * 60_000 },
    );
  }

  /** Test `testId`'s results, computed on the thread; on the event loop when the thread cannot give them. */
  async results(testId: string, input: ResultsInput): Promise<FinalResults> {
    const run = this.run(testId, input);
    const outcome = typeof run === 'string' ? null : await run;
    return outcome?.ok ? outcome.answer : testResults(input);
  }
}
