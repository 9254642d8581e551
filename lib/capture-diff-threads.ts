// Capture diffs off the event loop: the bodies' part of a diff (lib/capture-diff.ts: up to a second
// over two 1 MiB bodies, measured in docs/webhooks.md) runs on a few threads (capture-diff-thread.ts),
// each diffing one pair at a time within a budget of time (past it the thread is ended, the diff
// answers an error, and a new thread takes its place) and of heap (Node ends a thread past its
// `resourceLimits`). What waits for a thread waits in one queue per owner, served in turn, so an owner
// whose diffs are slow holds at most their turn of the threads; the queues are bounded (past a bound a
// diff is refused at once with 503). Method, path, query and headers are diffed here: they are small.
import { Worker } from 'node:worker_threads';
import {
  type BodyDiff,
  type BodySide,
  type CaptureDiff,
  DEFAULT_IGNORED_HEADERS,
  type DiffSide,
  diffCaptures,
} from './capture-diff.ts';
import type { DiffAnswer, DiffRequest } from './capture-diff-thread.ts';
import { AppError, UnavailableError } from './errors.ts';

export interface DiffThreadOptions {
  /** Threads at most (started when first needed, then kept). */
  threads?: number;
  /** Time a diff may take on its thread. */
  budgetMs?: number;
  /** A thread's old-generation heap, MB (its young generation: an eighth, at least 4). */
  heapMb?: number;
  /** Diffs waiting for a thread, all owners together. */
  maxQueued?: number;
  /** Diffs of one owner waiting for a thread. */
  maxQueuedPerOwner?: number;
  /** How far below the process's priority the threads run (Linux). */
  nice?: number;
}

/**
 * Two 1 MiB bodies take at most about a second and a half (half a million short lines each; JSON
 * with 90,000 names), five times that on a machine busy with other work: the budget is a backstop
 * past those. A diff's heap stays under 100 MB (two 1 MiB bodies parsed, or their lines).
 */
export const DIFF_THREAD_DEFAULTS = {
  threads: 2,
  budgetMs: 10_000,
  heapMb: 256,
  maxQueued: 64,
  maxQueuedPerOwner: 4,
  nice: 10,
} satisfies Required<DiffThreadOptions>;

/** Why a diff has no answer: past its time, or its heap (the owner's error, 504). */
export class DiffTooCostlyError extends AppError {
  override name = 'DiffTooCostlyError';
  constructor(message: string) {
    super('timeout', message);
  }
}

interface Waiting {
  id: number;
  owner: string;
  request: DiffRequest;
  resolve: (d: BodyDiff) => void;
  reject: (err: Error) => void;
}
interface Thread {
  worker: Worker;
  ready: boolean;
  running: Waiting | null;
  timer?: NodeJS.Timeout;
  error?: Error;
}

const bytes = (s: BodySide) => (s.body === null ? 0 : Buffer.byteLength(s.body, s.bodyEncoding));
const sizes = (w: Waiting) => `${bytes(w.request.a)} and ${bytes(w.request.b)} bytes`;

export class CaptureDiffThreads {
  readonly #o: Required<DiffThreadOptions>;
  readonly #threads: Thread[] = [];
  /** Each owner's diffs waiting, owners in their turn's order. */
  readonly #queues = new Map<string, Waiting[]>();
  #queued = 0;
  #ids = 0;
  #closed = false;

  constructor(options: DiffThreadOptions = {}) {
    this.#o = { ...DIFF_THREAD_DEFAULTS, ...options };
  }

  /**
   * How capture `b` differs from capture `a` (as diffCaptures answers), the bodies diffed on a thread
   * for `owner`: 503 when the queues are full, 504 past the thread's time or heap.
   */
  async diff(
    owner: string,
    a: DiffSide,
    b: DiffSide,
    ignore: readonly string[] = DEFAULT_IGNORED_HEADERS,
  ): Promise<CaptureDiff> {
    const body = await this.#submit(owner, {
      a: { body: a.body, bodyEncoding: a.bodyEncoding },
      b: { body: b.body, bodyEncoding: b.bodyEncoding },
    });
    return diffCaptures(a, b, ignore, body);
  }

  /** Threads alive (by id), diffs running and waiting: for tests. */
  stats() {
    return {
      threadIds: this.#threads.map((t) => t.worker.threadId),
      running: this.#threads.filter((t) => t.running).length,
      queued: this.#queued,
    };
  }

  /** Ends every thread; what runs or waits is answered an error. */
  async close(): Promise<void> {
    this.#closed = true;
    const stopped = () => new UnavailableError('The capture diffs stopped: try again');
    for (const w of this.#take()) w.reject(stopped());
    await Promise.all([...this.#threads].map((t) => this.#retire(t, stopped())));
  }

  #submit(owner: string, request: Omit<DiffRequest, 'id'>): Promise<BodyDiff> {
    const mine = this.#queues.get(owner)?.length ?? 0;
    if (this.#closed || mine >= this.#o.maxQueuedPerOwner || this.#queued >= this.#o.maxQueued)
      return Promise.reject(
        new UnavailableError(
          this.#closed
            ? 'The capture diffs stopped: try again'
            : `Too many capture diffs waiting${mine >= this.#o.maxQueuedPerOwner ? ' of yours' : ''}: try again in a few seconds`,
        ),
      );
    return new Promise((resolve, reject) => {
      const id = ++this.#ids;
      const waiting = { id, owner, request: { id, ...request }, resolve, reject };
      const queue = this.#queues.get(owner);
      if (queue) queue.push(waiting);
      else this.#queues.set(owner, [waiting]);
      this.#queued += 1;
      this.#pump();
    });
  }

  /** The next diff to run: the first owner's in the turn, who then goes to the turn's end. */
  #next(): Waiting | undefined {
    const first = this.#queues.entries().next();
    if (first.done) return undefined;
    const [owner, queue] = first.value;
    const waiting = queue.shift()!;
    this.#queues.delete(owner);
    if (queue.length > 0) this.#queues.set(owner, queue);
    this.#queued -= 1;
    return waiting;
  }

  /** Every diff waiting, taken out of the queues. */
  #take(): Waiting[] {
    const all = [...this.#queues.values()].flat();
    this.#queues.clear();
    this.#queued = 0;
    return all;
  }

  #pump(): void {
    if (this.#closed) return;
    for (const t of this.#threads) {
      if (!t.ready || t.running || this.#queued === 0) continue;
      this.#run(t, this.#next()!);
    }
    // A thread more for each diff that no thread starting will take, up to the most.
    const starting = this.#threads.filter((t) => !t.ready).length;
    const more = Math.min(this.#o.threads - this.#threads.length, this.#queued - starting);
    for (let i = 0; i < more; i++) this.#spawn();
  }

  #run(t: Thread, waiting: Waiting): void {
    t.running = waiting;
    t.timer = setTimeout(
      () =>
        void this.#retire(
          t,
          new DiffTooCostlyError(
            `Comparing the bodies (${sizes(waiting)}) took more than ${this.#o.budgetMs / 1000} s: not compared`,
          ),
        ),
      this.#o.budgetMs,
    );
    t.worker.postMessage(waiting.request);
  }

  #spawn(): void {
    const worker = new Worker(new URL('./capture-diff-thread.ts', import.meta.url), {
      workerData: { nice: this.#o.nice },
      resourceLimits: {
        maxOldGenerationSizeMb: this.#o.heapMb,
        maxYoungGenerationSizeMb: Math.max(4, Math.round(this.#o.heapMb / 8)),
      },
    });
    worker.unref();
    const t: Thread = { worker, ready: false, running: null };
    this.#threads.push(t);
    worker.on('message', (m: DiffAnswer) => {
      if ('ready' in m) {
        t.ready = true;
      } else if (t.running?.id === m.id) {
        clearTimeout(t.timer);
        const done = t.running;
        t.running = null;
        done.resolve(JSON.parse(m.json) as BodyDiff);
      }
      this.#pump();
    });
    worker.on('error', (err: Error) => {
      t.error = err;
    });
    worker.on('exit', () => {
      const at = this.#threads.indexOf(t);
      if (at < 0) return; // retired: its diff was answered
      this.#threads.splice(at, 1);
      clearTimeout(t.timer);
      const oom = (t.error as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      if (t.running)
        t.running.reject(
          oom
            ? new DiffTooCostlyError(
                `Comparing the bodies (${sizes(t.running)}) needed more than ${this.#o.heapMb} MB: not compared`,
              )
            : new Error(`The capture diff's thread ended: ${t.error?.message ?? 'no reason given'}`),
        );
      t.running = null;
      // A thread that could not start would not start again: what waits is answered, not retried forever.
      if (!t.ready)
        for (const w of this.#take())
          w.reject(new Error(`The capture diff's thread did not start: ${t.error?.message ?? 'no reason given'}`));
      this.#pump();
    });
  }

  /** Ends a thread (its diff answered `err`); another starts when diffs wait. */
  async #retire(t: Thread, err: Error): Promise<void> {
    const at = this.#threads.indexOf(t);
    if (at < 0) return;
    this.#threads.splice(at, 1);
    clearTimeout(t.timer);
    t.running?.reject(err);
    t.running = null;
    this.#pump();
    await t.worker.terminate();
  }
}
