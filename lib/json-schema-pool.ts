// JSON Schema checks off the event loop: a few threads (lib/json-schema-thread.ts), each checking
// one body at a time within a budget of time (the thread's CPU time where Linux tells it, else the
// time since the check started: past it the thread is ended, the check's verdict is `check took too
// long`, and a new thread takes its place) and of heap (Node ends a thread past its `resourceLimits`:
// `check used too much memory`, after one more try on a new thread). A check that a busy machine
// keeps from the CPU for many budgets' time is ended too, unjudged (`not checked: the checker is
// busy`): only the check's own work is held against it. What waits for a thread waits in one queue
// per owner, served in turn (one check of each owner with work, then again), so an owner whose
// checks are slow holds at most their turn of the threads; the queues are bounded (checks, and bytes
// of bodies held): past a bound a check is refused at once (`submit` answers null) and its caller
// checks it later. Measured figures: docs/webhooks.md (schema checks).
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { SchemaVerdict } from './json-schema-check.ts';
import type { CheckAnswer, CheckRequest } from './json-schema-thread.ts';

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

export interface SchemaCheckPoolOptions {
  /** Threads at most (started when first needed). */
  threads?: number;
  /** Time a check may take on its thread, compiling the schema included. */
  budgetMs?: number;
  /** A thread's old-generation heap, MB (its young generation: an eighth, at least 4). */
  heapMb?: number;
  /** Checks waiting for a thread, all owners together. */
  maxQueued?: number;
  /** Checks of one owner waiting for a thread. */
  maxQueuedPerOwner?: number;
  /** Bytes of bodies waiting for a thread, all owners together. */
  maxQueuedBytes?: number;
  /** How far below the process's priority the threads run (Linux). */
  nice?: number;
}

export const SCHEMA_CHECK_DEFAULTS = {
  threads: 2,
  budgetMs: 1000,
  heapMb: 64,
  maxQueued: 256,
  maxQueuedPerOwner: 16,
  maxQueuedBytes: 32 * 1024 * 1024,
  nice: 10,
} satisfies Required<SchemaCheckPoolOptions>;

/** One body to check against one schema (JSON text, known by `hash`). */
export type CheckJob = Omit<CheckRequest, 'id'>;

interface Waiting {
  id: number;
  owner: string;
  job: CheckJob;
  bytes: number;
  resolve: (v: CheckVerdict) => void;
  /** Run again once on a new thread after its thread ran out of heap (other schemas' code filled it, maybe). */
  again?: boolean;
}
/** Times its budget a check may take by the clock when the machine keeps its thread from the CPU. */
const WALL_BUDGETS = 10;

/** CPU time (ms) the thread `tid` of this process has used, from /proc (Linux, 100 ticks a second); NaN if unknown. */
function cpuMs(tid: number | null): number {
  if (!tid) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime
  } catch {
    return Number.NaN;
  }
}

interface Thread {
  worker: Worker;
  ready: boolean;
  tid: number | null;
  running: Waiting | null;
  timer?: NodeJS.Timeout;
  error?: Error;
}

export class SchemaCheckPool {
  readonly #o: Required<SchemaCheckPoolOptions>;
  readonly #threads: Thread[] = [];
  /** Each owner's checks waiting, owners in their turn's order. */
  readonly #queues = new Map<string, Waiting[]>();
  #queued = 0;
  #queuedBytes = 0;
  #ids = 0;
  #closed = false;

  constructor(options: SchemaCheckPoolOptions = {}) {
    this.#o = { ...SCHEMA_CHECK_DEFAULTS, ...options };
  }

  /** Checks `job` for `owner` when a thread is free; null when the queues are full (or the pool closed). */
  submit(owner: string, job: CheckJob): Promise<CheckVerdict> | null {
    const bytes = job.body?.length ?? 0;
    if (this.room(owner) === 0 || this.#queuedBytes + bytes > this.#o.maxQueuedBytes) return null;
    return new Promise((resolve) => {
      this.#enqueue({ id: ++this.#ids, owner, job, bytes, resolve }, false);
      this.#pump();
    });
  }

  #enqueue(waiting: Waiting, first: boolean): void {
    const queue = this.#queues.get(waiting.owner);
    if (!queue) this.#queues.set(waiting.owner, [waiting]);
    else if (first) queue.unshift(waiting);
    else queue.push(waiting);
    this.#queued += 1;
    this.#queuedBytes += waiting.bytes;
  }

  /** Starts a thread now if none is (a thread takes 0.2-1 s to start: a first check need not wait for it). */
  warm(): void {
    if (!this.#closed && this.#threads.length === 0) this.#spawn();
  }

  /** How many more checks of `owner` would be taken now. */
  room(owner: string): number {
    if (this.#closed) return 0;
    const mine = this.#queues.get(owner)?.length ?? 0;
    return Math.max(0, Math.min(this.#o.maxQueuedPerOwner - mine, this.#o.maxQueued - this.#queued));
  }

  /** Threads alive (by id), checks running and waiting: for tests and metrics. */
  stats() {
    return {
      threadIds: this.#threads.map((t) => t.worker.threadId),
      running: this.#threads.filter((t) => t.running).length,
      queued: this.#queued,
    };
  }

  /** Ends every thread; what runs or waits is answered `not checked`. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const w of this.#take()) w.resolve(unchecked(STOPPED));
    await Promise.all([...this.#threads].map((t) => this.#retire(t, unchecked(STOPPED))));
  }

  /** The next check to run: the first owner's in the turn, who then goes to the turn's end. */
  #next(): Waiting | undefined {
    const first = this.#queues.entries().next();
    if (first.done) return undefined;
    const [owner, queue] = first.value;
    const waiting = queue.shift()!;
    this.#queues.delete(owner);
    if (queue.length > 0) this.#queues.set(owner, queue);
    this.#queued -= 1;
    this.#queuedBytes -= waiting.bytes;
    return waiting;
  }

  /** Every check waiting, taken out of the queues. */
  #take(): Waiting[] {
    const all = [...this.#queues.values()].flat();
    this.#queues.clear();
    this.#queued = 0;
    this.#queuedBytes = 0;
    return all;
  }

  #pump(): void {
    if (this.#closed) return;
    for (const t of this.#threads) {
      if (!t.ready || t.running || this.#queued === 0) continue;
      this.#run(t, this.#next()!);
    }
    // A thread more for each check that no thread starting will take, up to the most.
    const starting = this.#threads.filter((t) => !t.ready).length;
    const more = Math.min(this.#o.threads - this.#threads.length, this.#queued - starting);
    for (let i = 0; i < more; i++) this.#spawn();
  }

  #run(t: Thread, waiting: Waiting): void {
    t.running = waiting;
    const budget = this.#o.budgetMs;
    const started = Date.now();
    const cpuAtStart = cpuMs(t.tid);
    // At the budget: the check's own CPU time decides (by the clock where it is unknown).
    const look = () => {
      const used = cpuMs(t.tid) - cpuAtStart;
      if (!(used < budget)) void this.#retire(t, unchecked(TOO_LONG));
      else if (Date.now() - started >= budget * WALL_BUDGETS) void this.#retire(t, unchecked(BUSY));
      else t.timer = setTimeout(look, Math.max(20, budget - used));
    };
    t.timer = setTimeout(look, budget);
    t.worker.postMessage({ id: waiting.id, ...waiting.job } satisfies CheckRequest);
  }

  #spawn(): void {
    const worker = new Worker(new URL('./json-schema-thread.ts', import.meta.url), {
      workerData: { nice: this.#o.nice },
      resourceLimits: {
        maxOldGenerationSizeMb: this.#o.heapMb,
        maxYoungGenerationSizeMb: Math.max(4, Math.round(this.#o.heapMb / 8)),
      },
    });
    worker.unref();
    const t: Thread = { worker, ready: false, tid: null, running: null };
    this.#threads.push(t);
    worker.on('message', (m: CheckAnswer) => {
      if ('ready' in m) {
        t.ready = true;
        t.tid = m.tid;
      } else if (t.running?.id === m.id) {
        clearTimeout(t.timer);
        const done = t.running;
        t.running = null;
        done.resolve(m.verdict);
      }
      this.#pump();
    });
    worker.on('error', (err: Error) => {
      t.error = err;
    });
    worker.on('exit', () => {
      const at = this.#threads.indexOf(t);
      if (at < 0) return; // retired: its check was answered
      this.#threads.splice(at, 1);
      clearTimeout(t.timer);
      const oom = (t.error as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      const lost = t.running;
      t.running = null;
      // Out of heap: once more on a new thread (empty of other schemas' code), first of its owner's.
      if (lost && oom && !lost.again && !this.#closed) this.#enqueue({ ...lost, again: true }, true);
      else lost?.resolve(unchecked(oom ? TOO_BIG : FAILED));
      // A thread that could not start would not start again: what waits is answered, not retried forever.
      if (!t.ready) for (const w of this.#take()) w.resolve(unchecked(FAILED));
      else this.#replace();
      this.#pump();
    });
  }

  /** Ends a thread (its check answered `verdict`); another starts when checks wait. */
  async #retire(t: Thread, verdict: CheckVerdict): Promise<void> {
    const at = this.#threads.indexOf(t);
    if (at < 0) return;
    this.#threads.splice(at, 1);
    clearTimeout(t.timer);
    t.running?.resolve(verdict);
    t.running = null;
    this.#replace();
    this.#pump();
    await t.worker.terminate();
  }

  /** A thread in place of one ended: started now, so that the next check does not wait for it to start. */
  #replace(): void {
    if (!this.#closed && this.#threads.length < this.#o.threads) this.#spawn();
  }
}
