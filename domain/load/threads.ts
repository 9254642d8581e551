// The load pool's threads: a shard's users run on LOAD_THREADS worker threads (one per core by
// default), so one load worker process uses every core, and in the embedded mode the API's event
// loop is never the generator's. The activity stays the unit Temporal sees: a shard is one
// runLoadShard activity, which runs whole on the least busy thread when every thread is busy, else
// cuts its users across the idle ones (partsOf, splitUsers) and reports the parts merged
// (snapshot-merge.ts), exactly as one generator would. Each part reports on its own thread's clock,
// unasked (shard-thread.ts); the shard tells its owner once every part has reported a round, and
// hands out the merged totals when the owner takes them (latest). Threads are started on first
// use and kept; every shard of the process shares them (a replay's shards, those of its priority).
import type { SecondFigures, ShardSnapshot } from '../../lib/load/snapshot.ts';
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { splitUsers, usersKeptTogether } from '../../lib/jobs/load-test.ts';
import { guardedTarget, loadTestResolve } from '../../lib/net/target-guard.ts';
import type { ShardPlan } from './shard.ts';
import type { ReportClock } from './metrics/report-clock.ts';
import type { ThreadRequest } from './shard-thread.ts';
import { encodeHistogram, newHistogram } from './metrics/histogram.ts';
import { mergeSnapshots } from './metrics/snapshot-merge.ts';

type ThreadAnswer =
  | { op: 'snapshot'; id: number; round: number; snapshot: ShardSnapshot }
  | { op: 'done'; id: number; snapshot: ShardSnapshot }
  | { op: 'error'; id: number; message: string };

interface Part {
  id: number;
  thread: LoadThread;
  done: Promise<ShardSnapshot>;
  /** Its latest totals, without their seconds' figures (those wait in `unsent`). */
  last: ShardSnapshot | null;
  /** The seconds' figures it reported that no merged snapshot has handed out yet (each is handed out once). */
  unsent: SecondFigures[];
  /** Its final totals once it ended (it reports no more). */
  finished: boolean;
  /** The last round it reported (shard-thread.ts: reporting); -1 before its first. */
  round: number;
  /** Whether it reported its phases' histograms since the owner last took the totals. */
  phasesFresh: boolean;
  /** The requests it sent, as its thread counts them (mod 2^32), and what the owner last read of them. */
  sentCount: Uint32Array;
  sentRead: { raw: number; total: number };
}

/** When a shard's parts report (report-clock.ts), and what its owner does once they all have. */
export interface ShardReports extends ReportClock {
  /** Every running part has reported a new round: the owner takes the totals with `latest()` when it can. */
  onReport: () => void;
}

class LoadThread {
  readonly worker: Worker;
  /** Each running part's keeper of the snapshots it reports. */
  readonly receivers = new Map<number, (snapshot: ShardSnapshot, round: number) => void>();
  readonly finished = new Map<number, { resolve: (s: ShardSnapshot) => void; reject: (e: Error) => void }>();
  parts = 0;
  alive = true;

  constructor(nice: number) {
    this.worker = new Worker(new URL('./shard-thread.ts', import.meta.url), { workerData: { nice } });
    this.worker.unref();
    this.worker.on('exit', () => {
      this.alive = false;
      for (const f of this.finished.values()) f.reject(new Error('the load thread exited'));
      this.finished.clear();
    });
    this.worker.on('message', (m: ThreadAnswer) => {
      if (m.op === 'snapshot') {
        this.receivers.get(m.id)?.(m.snapshot, m.round);
        return;
      }
      const f = this.finished.get(m.id);
      this.finished.delete(m.id);
      if (m.op === 'done') f?.resolve(m.snapshot);
      else f?.reject(new Error(m.message));
    });
    // A thread that dies takes its parts with it: they fail, and the activity with them (Temporal retries the shard).
    this.worker.on('error', (err: Error) => {
      for (const f of this.finished.values()) f.reject(err);
      this.finished.clear();
    });
  }

  send(m: ThreadRequest): void {
    this.worker.postMessage(m);
  }
}

/**
 * How far below its process's main thread a load thread runs (nice, added to the priority it starts
 * with): when the cores are busy, the API (in the embedded mode), the shards' heartbeats and reports,
 * and the embedded database go first, and the generators take what is left. A replay runs at the main thread's
 * priority: it promises the recorded gaps between requests, which a thread kept waiting would stretch.
 */
export const LOAD_THREAD_NICE = 10;
const threadNice = (plan: ShardPlan) => (plan.target.replay ? 0 : LOAD_THREAD_NICE);

/** The threads of each priority. */
const pools = new Map<number, LoadThread[]>();
let nextPartId = 1;

/** The threads of priority `nice`, started on first use (and again for any that died): `size` of them. */
function threads(size: number, nice: number): LoadThread[] {
  // libuv's thread pool (files, DNS, crypto) is started by its first user and its threads inherit that
  // thread's priority: started here, by the main thread, it never runs at a load thread's (shard-thread.ts).
  if (!pools.size) fs.stat(process.execPath, () => {});
  const pool = (pools.get(nice) ?? []).filter((t) => t.alive).slice(0, size);
  while (pool.length < size) pool.push(new LoadThread(nice));
  pools.set(nice, pool);
  return pool;
}

/**
 * Starts `size` load threads now rather than with the first shard: a worker that takes over a lost
 * worker's shard then sends at once, instead of after its threads loaded their code (a quarter of a
 * second on a quiet machine, over a second on a busy one).
 */
export function warmLoadThreads(size: number): void {
  threads(size, LOAD_THREAD_NICE);
}

/** A shard on the pool's threads: its parts' reports merged as one generator's, its run and stop those of all parts. */
export class ThreadedShard {
  private readonly parts: Part[] = [];
  /** The last round the owner was told of. */
  private told = -1;

  private readonly reports: ShardReports;

  private constructor(reports: ShardReports) {
    this.reports = reports;
  }

  /**
   * Starts `plan` on `threadCount` threads (its users split across them; the least busy threads
   * first), its parts reporting on `reports`' clock. The target is checked here first, so a refusal
   * is the same error as from one generator.
   */
  static start(plan: ShardPlan, threadCount: number, reports: ShardReports): ThreadedShard {
    guardedTarget(plan.target.url, {
      allow: plan.allow,
      field: 'targetUrl',
      ...loadTestResolve(plan.target),
    });
    const all = threads(threadCount, threadNice(plan));
    const chosen = [...all].sort((a, b) => a.parts - b.parts);
    const idle = chosen.filter((t) => t.parts === 0).length;
    const shard = new ThreadedShard(reports);
    const { onReport: _onReport, ...clock } = reports;
    splitUsers(plan, partsOf(plan, idle), usersKeptTogether(plan.target)).forEach((sub, i) => {
      const thread = chosen[i % chosen.length]!;
      const id = nextPartId++;
      thread.parts += 1;
      thread.worker.ref();
      const done = new Promise<ShardSnapshot>((resolve, reject) =>
        thread.finished.set(id, { resolve, reject }),
      ).finally(() => {
        thread.parts -= 1;
        if (thread.parts === 0) thread.worker.unref();
      });
      const sent = new SharedArrayBuffer(4);
      thread.send({ op: 'start', id, plan: sub, report: clock, sent });
      const part: Part = {
        id,
        thread,
        done,
        last: null,
        unsent: [],
        finished: false,
        round: -1,
        phasesFresh: false,
        sentCount: new Uint32Array(sent),
        sentRead: { raw: 0, total: 0 },
      };
      shard.parts.push(part);
      thread.receivers.set(id, (snapshot, round) => {
        kept(part, snapshot);
        part.round = Math.max(part.round, round);
        shard.reported(round);
      });
      done.then(
        (final) => {
          kept(part, final);
          part.finished = true;
          // The others may have been waiting for it to report their round.
          if (shard.parts.some((p) => !p.finished)) shard.reported(Math.max(...shard.parts.map((p) => p.round)));
        },
        () => {},
      );
      void done.finally(() => thread.receivers.delete(id)).catch(() => {});
    });
    return shard;
  }

  /** The parts its users run in (one per thread it uses). */
  get partCount(): number {
    return this.parts.length;
  }

  /**
   * A part reported `round`: the owner is told once every running part has (a part behind counts
   * with its last totals when the owner takes them anyway).
   */
  private reported(round: number): void {
    if (round <= this.told || this.parts.some((p) => !p.finished && p.round < round)) return;
    this.told = round;
    this.reports.onReport();
  }

  /**
   * Every part's latest totals, merged, with every second's figures not handed out yet; the phases'
   * histograms when a part reported them since the last call (shard.ts: PHASES_EVERY).
   */
  latest(): ShardSnapshot {
    const known = this.parts.flatMap((p) => (p.last ? [p.last] : []));
    const withPhases = this.parts.some((p) => p.phasesFresh);
    for (const p of this.parts) p.phasesFresh = false;
    return known.length ? this.merged(known, withPhases) : emptySnapshot();
  }

  /** The parts' totals merged (their phases `withPhases`), with every second's figures not handed out yet. */
  private merged(lasts: ShardSnapshot[], withPhases = true): ShardSnapshot {
    const newSeconds = this.parts.flatMap((p) => p.unsent.splice(0));
    return { ...mergeSnapshots(lasts, withPhases), newSeconds };
  }

  /**
   * The requests its parts have sent so far (written, or their connections being opened), read at this
   * moment rather than at the last report: what a checkpoint stores (activities/load: a worker that dies
   * between two reports took what it sent since the last with it, and this tells how many).
   */
  sentSoFar(): number {
    let sum = 0;
    for (const p of this.parts) {
      const raw = Atomics.load(p.sentCount, 0);
      p.sentRead.total += (raw - p.sentRead.raw) >>> 0; // read far more often than 2^32 sends
      p.sentRead.raw = raw;
      sum += p.sentRead.total;
    }
    return sum;
  }

  /** Runs each part to its end; the merged final totals. A failing part stops the rest (the activity retries whole). */
  async run(): Promise<ShardSnapshot> {
    try {
      await Promise.all(this.parts.map((p) => p.done)); // each part's end is kept first (start)
      return this.merged(this.parts.map((p) => p.last!));
    } catch (err) {
      this.stop();
      throw err;
    }
  }

  stop(): void {
    for (const p of this.parts) p.thread.send({ op: 'stop', id: p.id });
  }
}

/**
 * How many threads a shard's users are cut across: the threads of this process that run nothing
 * (at least one). The first shards a process takes spread over its idle threads, so that one small
 * test uses every core; a shard that finds every thread busy runs whole on the least busy one, since
 * a cut shard's parts are merged every second (every histogram decoded and encoded again, on the
 * event loop that also answers the API in the embedded mode). The open model keeps one schedule of
 * arrivals: cut, each part would start its own at t=0.
 */
export function partsOf(plan: Pick<ShardPlan, 'rate'>, idleThreads: number): number {
  return plan.rate > 0 ? 1 : Math.max(1, idleThreads);
}

/**
 * A part's snapshot kept: its totals as its latest (with its last phases when these came without),
 * its seconds' figures until they are handed out.
 */
function kept(part: Part, s: ShardSnapshot): void {
  const { newSeconds = [], ...totals } = s;
  part.phasesFresh ||= totals.phases !== undefined;
  part.last = totals.phases || !part.last?.phases ? totals : { ...totals, phases: part.last.phases };
  part.unsent.push(...newSeconds);
}

/** Totals before any part answered. */
function emptySnapshot(): ShardSnapshot {
  return {
    total: 0,
    successful: 0,
    failed: 0,
    bytesSent: 0,
    bytesReceived: 0,
    latencySumUs: 0,
    histogram: encodeHistogram(newHistogram()),
    statusCodes: {},
    errors: {},
    inFlight: 0,
    dropped: 0,
    firstSentAt: null,
    takenAt: Date.now(),
    newSeconds: [],
  };
}
