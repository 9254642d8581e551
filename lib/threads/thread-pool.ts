// A bounded pool of threads for work kept off the event loop (user programs: JSON Schemas, diffs of
// captured bodies; an ended load test's results): the work runs on a few threads (a module that calls
// serveTasks of ./pool-thread.ts) below the process's priority, each running one task at a time within
// a budget of time and of heap. Past its time a thread is ended and its task answered `time`; past its
// heap Node ends it (`memory`); either way a new thread takes its place for what comes next. What waits
// for a thread waits in per-owner queues served in turn and bounded (./fair-queues.ts): past a bound a
// task is refused at once, so a slow owner costs their own tasks an error, never others' latency. The
// pool answers outcomes and never throws: each pool's module (lib/json-schema/json-schema-pool.ts,
// domain/webhooks/capture-diff-threads.ts, domain/load/results/results-threads.ts) says what an outcome
// means to its callers.
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { FairQueues, type QueueBounds, type QueueFull } from './fair-queues.ts';
import type { TaskMessage, ThreadData, ThreadMessage } from './pool-thread.ts';

export interface ThreadPoolOptions extends QueueBounds {
  /** Threads at most (started when first needed, then kept, or ended when idle: `idleMs`). */
  threads: number;
  /** Time a task may take on its thread (measured as `clock` says). */
  budgetMs: number;
  /** A thread's old-generation heap, MB (its young generation: an eighth, at least 4). */
  heapMb: number;
  /** How far below the process's priority the threads run (Linux). */
  nice: number;
}

/** What sets one pool apart from another, beside its figures. */
export interface ThreadPoolKind<T> {
  /** The threads' module. */
  module: URL;
  /**
   * How a task's time is measured. `cpu`: the CPU time of its thread (Linux; elsewhere the clock), so
   * that only the task's own work is held against it on a machine busy with other work; a task kept
   * from the CPU for `WALL_BUDGETS` budgets by the clock is ended too, unjudged (`busy`). `wall`: the
   * clock, for a budget that is a backstop far past what the work takes.
   */
  clock: 'cpu' | 'wall';
  /** Bytes a task holds while it waits (counted against `maxQueuedBytes`); none when not given. */
  bytes?: (task: T) => number;
  /**
   * Runs a task again, once, on a new thread after its thread ran out of heap: for threads that keep
   * state from task to task (compiled schemas), which may have filled the heap rather than the task.
   */
  retryOutOfMemory?: boolean;
  /** Starts a thread in place of one ended at once, so that the next task does not wait for it to start. */
  replaceEnded?: boolean;
  /**
   * A thread with no task for this long is ended (its heap returned; the next task starts one again):
   * an idle process keeps no thread it is not using. Unset: threads are kept.
   */
  idleMs?: number;
}

/** Why a task has no answer: past its budget of time or heap, kept from the CPU, or its thread gone. */
export type Failure = 'time' | 'memory' | 'busy' | 'stopped' | 'crashed' | 'unstarted';
/** A task's answer, or why there is none (`error`: what ended its thread, when known). */
export type Outcome<A> = { ok: true; answer: A } | { ok: false; failed: Failure; error?: Error };
/** Why a task was refused at once: a bound of the queues, or the pool closed. */
export type Refusal = QueueFull | 'stopped';

/**
 * A thread ended by its heap: Node's own code for it, or (when an allocation past the heap fails in a way
 * V8 reports as an exception rather than at the limit) the RangeError it threw and nobody caught.
 */
export function outOfMemory(err: Error | undefined): boolean {
  if ((err as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') return true;
  return (
    err?.name === 'RangeError' &&
    /allocation failed|out of memory|invalid (string|array|typed array) length/i.test(err.message)
  );
}

/** Times its budget a task may take by the clock when the machine keeps its thread from the CPU (`cpu`). */
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

interface Waiting<T, A> {
  id: number;
  owner: string;
  task: T;
  bytes: number;
  resolve: (outcome: Outcome<A>) => void;
  /** Run again after its thread ran out of heap (`retryOutOfMemory`): not again. */
  again?: boolean;
}
interface Thread<T, A> {
  worker: Worker;
  ready: boolean;
  tid: number | null;
  running: Waiting<T, A> | null;
  timer?: NodeJS.Timeout;
  idleTimer?: NodeJS.Timeout;
  error?: Error;
}

export class ThreadPool<T, A> {
  readonly options: Readonly<ThreadPoolOptions>;
  readonly #kind: ThreadPoolKind<T>;
  readonly #threads: Thread<T, A>[] = [];
  readonly #queues: FairQueues<Waiting<T, A>>;
  #ids = 0;
  #closed = false;

  constructor(options: ThreadPoolOptions, kind: ThreadPoolKind<T>) {
    this.options = { ...options };
    this.#kind = kind;
    this.#queues = new FairQueues(this.options);
  }

  /** Runs `task` for `owner` when a thread is free; why not, at once, when the queues are full or the pool closed. */
  run(owner: string, task: T): Promise<Outcome<A>> | Refusal {
    const bytes = this.#kind.bytes?.(task) ?? 0;
    const refused = this.#closed ? 'stopped' : this.#queues.full(owner, bytes);
    if (refused) return refused;
    return new Promise((resolve) => {
      this.#queues.add({ id: ++this.#ids, owner, task, bytes, resolve });
      this.#pump();
    });
  }

  /** Whether a thread has started and can take a task now or when its task ends (else the next waits for one). */
  get warm(): boolean {
    return this.#threads.some((t) => t.ready);
  }

  /** How many more tasks of `owner` would be taken now (bytes aside). */
  room(owner: string): number {
    return this.#closed ? 0 : this.#queues.room(owner);
  }

  /** Threads alive (by id), tasks running and waiting: for tests and metrics. */
  stats() {
    return {
      threadIds: this.#threads.map((t) => t.worker.threadId),
      running: this.#threads.filter((t) => t.running).length,
      queued: this.#queues.size,
    };
  }

  /** Ends every thread; what runs or waits is answered `stopped`. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const w of this.#queues.take()) w.resolve({ ok: false, failed: 'stopped' });
    await Promise.all([...this.#threads].map((t) => this.#retire(t, 'stopped')));
  }

  #pump(): void {
    if (this.#closed) return;
    for (const t of this.#threads) {
      if (!t.ready || t.running) continue;
      if (this.#queues.size === 0) this.#idle(t);
      else this.#run(t, this.#queues.next()!);
    }
    // A thread more for each task that no thread starting will take, up to the most.
    const starting = this.#threads.filter((t) => !t.ready).length;
    const more = Math.min(this.options.threads - this.#threads.length, this.#queues.size - starting);
    for (let i = 0; i < more; i++) this.#spawn();
  }

  /** A free thread ends after `idleMs` without a task (its timer set once, cleared by the next task). */
  #idle(t: Thread<T, A>): void {
    const idleMs = this.#kind.idleMs;
    if (idleMs === undefined || t.idleTimer) return;
    t.idleTimer = setTimeout(() => {
      t.idleTimer = undefined;
      const at = this.#threads.indexOf(t);
      if (t.running || at < 0) return;
      this.#threads.splice(at, 1);
      void t.worker.terminate();
    }, idleMs);
    t.idleTimer.unref();
  }

  #run(t: Thread<T, A>, waiting: Waiting<T, A>): void {
    clearTimeout(t.idleTimer);
    t.idleTimer = undefined;
    t.running = waiting;
    const budget = this.options.budgetMs;
    const started = Date.now();
    // NaN where the clock decides (`wall`, or the CPU time unknown): then the budget is passed at its time.
    const cpu = () => (this.#kind.clock === 'cpu' ? cpuMs(t.tid) : Number.NaN);
    const cpuAtStart = cpu();
    const look = () => {
      const used = cpu() - cpuAtStart;
      if (!(used < budget)) void this.#retire(t, 'time');
      else if (Date.now() - started >= budget * WALL_BUDGETS) void this.#retire(t, 'busy');
      else t.timer = setTimeout(look, Math.max(20, budget - used));
    };
    t.timer = setTimeout(look, budget);
    t.worker.postMessage({ id: waiting.id, task: waiting.task } satisfies TaskMessage<T>);
  }

  #spawn(): void {
    const worker = new Worker(this.#kind.module, {
      workerData: { nice: this.options.nice } satisfies ThreadData,
      resourceLimits: {
        maxOldGenerationSizeMb: this.options.heapMb,
        maxYoungGenerationSizeMb: Math.max(4, Math.round(this.options.heapMb / 8)),
      },
    });
    worker.unref(); // an idle pool never holds the process open
    const t: Thread<T, A> = { worker, ready: false, tid: null, running: null };
    this.#threads.push(t);
    worker.on('message', (m: ThreadMessage<A>) => {
      if ('ready' in m) {
        t.ready = true;
        t.tid = m.tid;
      } else if (t.running?.id === m.id) {
        clearTimeout(t.timer);
        const done = t.running;
        t.running = null;
        done.resolve({ ok: true, answer: m.answer });
      }
      this.#pump();
    });
    worker.on('error', (err: Error) => {
      t.error = err;
    });
    worker.on('exit', () => this.#exited(t));
  }

  /** A thread that ended of itself: past its heap, failed, or never started. */
  #exited(t: Thread<T, A>): void {
    const at = this.#threads.indexOf(t);
    if (at < 0) return; // retired: its task was answered
    this.#threads.splice(at, 1);
    clearTimeout(t.timer);
    clearTimeout(t.idleTimer);
    const oom = outOfMemory(t.error);
    const lost = t.running;
    t.running = null;
    // Out of heap: once more on a new thread (empty of what earlier tasks left), first of its owner's.
    if (lost && oom && this.#kind.retryOutOfMemory && !lost.again && !this.#closed)
      this.#queues.add({ ...lost, again: true }, true);
    else lost?.resolve({ ok: false, failed: oom ? 'memory' : 'crashed', error: t.error });
    // A thread that could not start would not start again: what waits is answered, not retried forever.
    if (!t.ready) for (const w of this.#queues.take()) w.resolve({ ok: false, failed: 'unstarted', error: t.error });
    else this.#replace();
    this.#pump();
  }

  /** Ends a thread, its task answered `failed`; another starts when tasks wait (or at once: `replaceEnded`). */
  async #retire(t: Thread<T, A>, failed: Failure): Promise<void> {
    const at = this.#threads.indexOf(t);
    if (at < 0) return;
    this.#threads.splice(at, 1);
    clearTimeout(t.timer);
    clearTimeout(t.idleTimer);
    t.running?.resolve({ ok: false, failed });
    t.running = null;
    this.#replace();
    this.#pump();
    await t.worker.terminate();
  }

  #replace(): void {
    if (this.#kind.replaceEnded && !this.#closed && this.#threads.length < this.options.threads) this.#spawn();
  }
}
