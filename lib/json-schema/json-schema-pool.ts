// JSON Schema checks off the event loop: a pool of lib/threads/thread-pool.ts whose threads
// (lib/json-schema/json-schema-thread.ts) check one body at a time within a budget of the thread's CPU time (only
// the check's own work is held against it; a check that a busy machine keeps from the CPU for many
// budgets' time is ended unjudged, `not checked: the checker is busy`) and of heap (`check used too
// much memory`, after one more try on a new thread: other schemas' compiled code may have filled it).
// A check past its budget is a verdict, `check took too long`, and a new thread takes its place at
// once. What waits is bounded per owner, in all and in bytes of bodies held: past a bound `submit`
// answers null at once and its caller checks it later. Measured figures: docs/webhooks.md (schema checks).
import type { SchemaVerdict } from './json-schema-check.ts';
import type { CheckJob } from './json-schema-thread.ts';
import { type Failure, type Outcome, ThreadPool, type ThreadPoolOptions } from '../threads/thread-pool.ts';

export type { CheckJob };

/** A verdict, or why there is none (`valid: null`, `error` saying why; `errors` empty). */
export type CheckVerdict = (SchemaVerdict & { error?: undefined }) | { valid: null; errors: []; error: string };

export const TOO_LONG = 'check took too long';
export const TOO_BIG = 'check used too much memory';
export const BUSY = 'not checked: the checker is busy';
const STOPPED = 'not checked: the checker stopped';
const FAILED = 'not checked: the checker failed';

/** Verdicts that another try would give again (the same schema, the same body): worth keeping. */
export const isFinal = (v: CheckVerdict): boolean => v.valid !== null || v.error === TOO_LONG || v.error === TOO_BIG;

export const unchecked = (error: string): CheckVerdict => ({ valid: null, errors: [], error });

const WHY: Record<Failure, string> = {
  time: TOO_LONG,
  memory: TOO_BIG,
  busy: BUSY,
  stopped: STOPPED,
  crashed: FAILED,
  unstarted: FAILED,
};
/** A thread that failed says how (the next try may not: not final). */
const verdictOf = (o: Outcome<SchemaVerdict>): CheckVerdict =>
  o.ok ? o.answer : unchecked(WHY[o.failed] === FAILED && o.error ? `${FAILED} (${o.error.message})` : WHY[o.failed]);

/**
 * A thread without a check for this long ends (33 MB each, Ajv and the compiled schemas): a process whose
 * users check no bodies keeps none; the first check after starts one (0.2-1 s, after the sender's answer).
 */
export const THREAD_IDLE_MS = 5 * 60_000;

export type SchemaCheckPoolOptions = Partial<ThreadPoolOptions>;

/** `budgetMs`: of CPU time, compiling the schema included. */
export const SCHEMA_CHECK_DEFAULTS = {
  threads: 2,
  budgetMs: 1000,
  heapMb: 64,
  maxQueued: 256,
  maxQueuedPerOwner: 16,
  maxQueuedBytes: 32 * 1024 * 1024,
  nice: 10,
} satisfies ThreadPoolOptions;

export class SchemaCheckPool extends ThreadPool<CheckJob, SchemaVerdict> {
  constructor(options: SchemaCheckPoolOptions = {}) {
    super(
      { ...SCHEMA_CHECK_DEFAULTS, ...options },
      {
        module: new URL('./json-schema-thread.ts', import.meta.url),
        clock: 'cpu',
        bytes: (job) => (job.compileOnly ? job.schema.length : (job.body?.length ?? 0)),
        retryOutOfMemory: true,
        replaceEnded: true,
        idleMs: THREAD_IDLE_MS,
      },
    );
  }

  /** Checks `job` for `owner` when a thread is free; null when the queues are full (or the pool closed). */
  submit(owner: string, job: CheckJob): Promise<CheckVerdict> | null {
    const run = this.run(owner, job);
    return typeof run === 'string' ? null : run.then(verdictOf);
  }
}
