// The load generator of one shard: `users` virtual users, each with its connection (connection.ts):
// HTTP/1.1, one keep-alive connection each (http1.ts: a prebuilt request, a response parsed only as
// far as a load tester needs), or HTTP/2, streams on connections `streamsPerConnection` users share.
// - Closed model (rate 0): each user sends its next request when the previous answer has ended, until
//   the end or its `iterations` (requests, or passes through the steps).
// - Open model (rate > 0): requests are scheduled at a constant arrival rate (ramping linearly from 0
//   over the ramp-up) and their latency is measured from the scheduled send time, so a target that
//   stalls shows it in the percentiles (no coordinated omission).
// Counted in a tally (tally.ts); after a connection error a user (or connection) rests (backoff.ts).
import { performance } from 'node:perf_hooks';
import type { ShardSnapshot } from '../../lib/load/snapshot.ts';
import type { Socket } from 'node:net';
import { guardedTarget, loadTestResolve, type CheckedTarget } from '../../lib/net/target-guard.ts';
import { Rests } from './backoff.ts';
import type { Job, LoadConnection } from './http/connection.ts';
import { InFlightRequests, type Then } from './in-flight.ts';
import { arrivalAt, firstArrivalFrom, nextAbove, peakOf, rampStages, type Stage } from './profile.ts';
import { Replay, type ReplayUser } from './replay.ts';
import { Scenario, type ScenarioUser } from './scenario.ts';
import { ShardTally } from './metrics/tally.ts';
import { wireOf } from './http/wire.ts';
import { END_GRACE_MS, TIMEOUT_SWEEP_MS, type ShardPlan } from './shard.ts';

export { newHistogram } from './metrics/histogram.ts';
export { REQUEST_TIMEOUT_MS, type ShardPlan } from './shard.ts';

type Connection = LoadConnection<unknown>;

/** A replay shard starting after the test sends its first request this much later (its connections open meanwhile). */
const REPLAY_LATE_START_MS = 20;

export class ShardGenerator {
  private readonly plan: ShardPlan;
  private readonly tally: ShardTally;
  private readonly stats: ShardTally['stats'];
  private readonly inFlight: InFlightRequests;
  private stopping = false;
  private readonly connections: Connection[] = [];
  /** performance.now() at plan.startAt, so scheduled times and measured times share one clock. */
  private readonly t0: number;
  /** Users (closed model) or this shard's arrivals per second (open model) over time. */
  private readonly stages: Stage[];
  /** The steps each user runs in order, when the test is a scenario. */
  private readonly scenario: Scenario<unknown> | null;
  /** The recorded requests sent instead, when the test replays some; ms after the start its recording starts. */
  private readonly replay: Replay<unknown> | null;
  private replayFrom = 0;
  private finishedUsers = 0;
  private done!: () => void;
  private readonly finished = new Promise<void>((resolve) => (this.done = resolve));
  private readonly timers: NodeJS.Timeout[] = [];
  /** Ramp-up: users whose start time has not come yet. */
  private readonly pendingStarts = new Set<NodeJS.Timeout>();
  /** Open model: idle connections, and the arrivals (their index) waiting for one. */
  private readonly idle: Connection[] = [];
  private readonly queue: number[] = [];
  private openFinished = false;
  /** Users (closed model) or connections (open model) resting after a connection error. */
  private readonly rests = new Rests<unknown>(() => this.endMs - this.elapsed());

  /**
   * The generator of `plan`, on the target the SSRF guard lets through: a bad URL or a forbidden
   * literal address is the guard's error, before any connection. A name is resolved and checked by
   * each connection (the API checked it when the test started; it may answer differently now): a
   * refusal then is that request's error, counted like any other.
   */
  static async create(plan: ShardPlan, sentCount?: Uint32Array): Promise<ShardGenerator> {
    const resolve = loadTestResolve(plan.target);
    const target = guardedTarget(plan.target.url, { allow: plan.allow, field: 'targetUrl', ...resolve });
    return new ShardGenerator(plan, target, sentCount);
  }

  private constructor(plan: ShardPlan, target: CheckedTarget, sentCount?: Uint32Array) {
    this.plan = plan;
    const { url, lookup } = target;
    const options = {
      url,
      lookup,
      rejectUnauthorized: !plan.target.insecureTls,
      onSocket: (socket: Socket) => this.tally.bytes.track(socket),
    };
    this.tally = new ShardTally(plan.target.httpVersion === '2', sentCount);
    this.stats = this.tally.stats;
    this.inFlight = new InFlightRequests(this.tally);
    const wire = wireOf(plan.target, options, this.tally.http2);
    const request = wire.encode({
      url,
      method: plan.target.method,
      headers: plan.target.headers,
      body: plan.target.body,
    });
    for (let i = 0; i < plan.users; i++) this.connections.push(wire.connection(request, i));
    this.t0 = performance.now() + (plan.startAt - Date.now());
    this.scenario = plan.target.steps?.length ? new Scenario(url, plan.target.steps, wire.encode) : null;
    this.replay = plan.replay?.requests.length ? new Replay(url, plan.replay, wire.encode) : null;
    this.stages =
      plan.stages ?? rampStages(plan.rate > 0 ? plan.rate : plan.totalUsers, plan.rampUpMs, plan.endAt - plan.startAt);
  }

  /** ms since the test's start on the monotonic clock. */
  private elapsed(): number {
    return performance.now() - this.t0;
  }

  private get endMs(): number {
    return this.plan.endAt - this.plan.startAt;
  }

  /** The second of the test (since startAt) a request scheduled at `scheduledAt` belongs to. */
  private secondOf(scheduledAt: number): number {
    return Math.max(0, Math.floor((scheduledAt - this.t0) / 1000));
  }

  /** One request on `connection` (the test's, or `job`'s), latency from `scheduledAt`; `then` runs after the answer. */
  private send(connection: Connection, scheduledAt: number, then: Then, job?: Job<unknown>) {
    const second = this.secondOf(scheduledAt);
    this.tally.sent(second);
    connection.send(this.inFlight.completion(connection, second, scheduledAt, then, job), job);
  }

  /**
   * Closed model: each user is a connection that sends again when answered, while the profile's
   * user count is above its index (from its place in the ramp on; it sleeps while a stage has fewer).
   */
  private runClosed() {
    const { users, firstUser } = this.plan;
    const { iterations = Number.POSITIVE_INFINITY } = this.plan.target;
    for (let i = 0; i < users; i++) {
      const connection = this.connections[i]!;
      const index = firstUser + i;
      const user: ScenarioUser | undefined = this.scenario ? { step: 0, values: {} } : undefined;
      const replaying: ReplayUser | undefined = this.replay ? { next: 0, finished: false } : undefined;
      let iterated = 0; // a pass a failed step cut short counts too
      const loop = () => {
        const now = this.elapsed();
        if (this.stopping || now >= this.endMs || replaying?.finished) return this.userDone();
        const wake = nextAbove(this.stages, index, now);
        if (wake === null || wake >= this.endMs) return this.userDone();
        if (wake > now) return this.sleep(loop, wake - now);
        const job =
          this.scenario && user
            ? this.scenario.job(user)
            : this.replay && replaying
              ? this.replay.job(replaying.next, replaying)
              : undefined;
        this.send(connection, this.t0 + now, next, job);
      };
      // One per user, not one per request (what a load thread allocates per request is its GC's work).
      const next: Then = (failed, reached) => {
        if ((!user || user.step === 0) && ++iterated >= iterations) return this.userDone(); // nothing to rest for
        // (Once stopping, nothing rests: the user ends at once.)
        if (this.rests.settle(i, reached || this.stopping, loop)) failed ? setImmediate(loop) : loop();
      };
      loop();
    }
  }

  /** A user waiting for its place in the profile: stop() ends the wait. */
  private sleep(then: () => void, ms: number) {
    const timer = setTimeout(() => {
      this.pendingStarts.delete(timer);
      then();
    }, ms);
    this.pendingStarts.add(timer);
  }

  private userDone() {
    this.finishedUsers += 1;
    if (this.finishedUsers === this.plan.users && this.stats.inFlight === 0) this.done();
  }

  /** Scheduled time (ms since start) of the k-th arrival: by the profile's rate, or when the k-th replayed is due. */
  private arrivalAt(k: number): number {
    return this.replay ? this.replayFrom + this.replay.dueAt(k) : arrivalAt(this.stages, k);
  }

  /**
   * The k-th arrival on `connection` (the k-th replayed request of this shard's, when replaying); after
   * a connection error the connection rests before `then` frees it (arrivals meanwhile wait or drop).
   */
  private sendArrival(connection: Connection, k: number, then: () => void) {
    const job = this.replay?.job(k % this.replay.size);
    const rested = () => {
      // Past the window, what waited behind a resting connection is dropped, not sent in a burst.
      if (this.elapsed() >= this.endMs) this.stats.dropped += this.queue.splice(0).length;
      then();
    };
    const next: Then = (_failed, reached) => this.rests.settle(connection, reached || this.stopping, rested) && then();
    this.send(connection, this.t0 + this.arrivalAt(k), next, job);
  }

  /**
   * Open model: a scheduler releases every arrival that is due; an arrival waits for an idle
   * connection (its latency counts from its scheduled time); beyond `users` in flight plus one
   * second of arrivals waiting, an arrival is dropped and counted.
   */
  private runOpen() {
    // A replay's requests are due at their recorded times: its connections open before the first one,
    // and a shard that starts late (a busy machine) starts the recording then rather than sending
    // what is overdue at once (a retried one keeps the test's clock: what was due meanwhile is the gap).
    if (this.replay) {
      for (const c of this.connections) c.warm?.();
      if (!this.plan.resume) this.replayFrom = Math.max(0, this.elapsed() + REPLAY_LATE_START_MS);
    }
    this.idle.push(...this.connections);
    const maxWaiting = this.replay ? this.replay.size : Math.ceil(peakOf(this.stages));
    let k = this.plan.resume ? this.firstArrivalFrom(Math.min(this.elapsed(), this.endMs)) : 0;
    const release = (connection: Connection) => {
      const next = this.queue.shift();
      if (next !== undefined && !this.stopping) this.sendArrival(connection, next, () => release(connection));
      else {
        this.idle.push(connection);
        this.maybeDone();
      }
    };
    const tick = () => {
      const now = this.elapsed();
      while (!this.stopping) {
        const at = this.arrivalAt(k);
        if (at >= this.endMs || at > now) break;
        k += 1;
        const connection = this.idle.pop();
        if (connection) this.sendArrival(connection, k - 1, () => release(connection));
        else if (this.queue.length < maxWaiting) this.queue.push(k - 1);
        else this.stats.dropped += 1;
      }
      if (this.stopping || this.arrivalAt(k) >= this.endMs) {
        clearInterval(timer);
        this.openFinished = true;
        this.maybeDone();
      }
    };
    const timer = setInterval(tick, 2);
    this.timers.push(timer);
  }

  /** The first arrival due at or after `ms` (arrival times only grow with k). */
  private firstArrivalFrom(ms: number): number {
    return this.replay ? this.replay.firstDueFrom(ms - this.replayFrom) : firstArrivalFrom(this.stages, ms);
  }

  /** Arrivals on a schedule (open model): a rate, or a replay faster than 0. */
  private get open(): boolean {
    return this.replay ? this.replay.speed > 0 : this.plan.rate > 0;
  }

  private maybeDone() {
    if (this.openFinished && this.stats.inFlight === 0 && (this.queue.length === 0 || this.stopping)) this.done();
  }

  /** The running totals (tally.ts; steps: StepStats.snapshot); the final one, from run(), has the phases. */
  snapshot(withPhases = true): ShardSnapshot {
    const steps = (this.scenario ?? this.replay)?.stats.snapshot(withPhases);
    return { ...this.tally.snapshot(withPhases), ...(steps ? { steps } : {}) };
  }

  /** Runs until the end of the test window or stop(); answers in flight are awaited (up to the request timeout). */
  async run(): Promise<ShardSnapshot> {
    if (this.open) this.runOpen();
    else this.runClosed();
    const sweep = setInterval(() => {
      const limit = performance.now() - this.plan.requestTimeoutMs;
      for (const c of this.connections) {
        if (c.busy && c.sentAt < limit)
          c.abort(Object.assign(new Error(`no answer within ${this.plan.requestTimeoutMs} ms`), { code: 'ETIMEDOUT' }));
      }
    }, TIMEOUT_SWEEP_MS);
    const untilEnd = this.endMs - this.elapsed() + this.plan.requestTimeoutMs + END_GRACE_MS;
    const guard = setTimeout(() => this.done(), untilEnd);
    await this.finished;
    clearInterval(sweep);
    clearTimeout(guard);
    for (const t of [...this.timers, ...this.pendingStarts]) clearTimeout(t);
    this.rests.cancel();
    const result = this.snapshot();
    for (const c of this.connections) c.close();
    return result;
  }

  /** Stops sending; requests in flight finish. */
  stop() {
    if (this.stopping) return;
    this.stopping = true;
    if (this.open) {
      this.queue.length = 0;
      this.openFinished = true;
      this.maybeDone();
      return;
    }
    // Users still waiting for their place in the ramp never start; those resting never try again.
    for (const timer of this.pendingStarts) {
      clearTimeout(timer);
      this.userDone();
    }
    this.pendingStarts.clear();
    for (let resting = this.rests.cancel(); resting > 0; resting--) this.userDone();
  }
}
