// Replay as load: a recorded sequence of requests (a webhook's captures, a HAR's entries) sent to the
// target instead of the one request. With a speed above 0 each request is due at its recorded time
// divided by the speed (an open model: it waits for a free connection if all are busy, its latency
// counted from when it was due); with speed 0 each user sends the sequence in order, each request
// when the previous one has been answered (the closed model). `loop` starts the sequence again
// until the test's window ends. Counts and latencies are kept per distinct request (method and path,
// as a scenario's are per step).
import type { ReplayPlan, ReplayRequest } from '../../lib/jobs/load-test.ts';
import type { Job, Step } from './http/connection.ts';
import type { RequestSpec } from './http/request.ts';
import { StepStats } from './scenario.ts';

/** The distinct requests the results break down, at most; the rest are counted together. */
export const MAX_REPLAY_NAMES = 50;
export const OTHER_REQUESTS = 'other requests';

/** The name a request is counted under: its method and path without the query. */
export const replayName = ({ method, path }: Pick<ReplayRequest, 'method' | 'path'>): string =>
  `${method} ${path.split('?', 1)[0]}`;

/**
 * The name each request is counted under (replayName) and the names in
 * order of first appearance: at most MAX_REPLAY_NAMES, then OTHER_REQUESTS for the rest.
 */
export function replayNames(requests: ReadonlyArray<Pick<ReplayRequest, 'method' | 'path'>>): {
  names: string[];
  index: number[];
} {
  const names: string[] = [];
  const seen = new Map<string, number>();
  const index = requests.map((request) => {
    const name = replayName(request);
    let i = seen.get(name);
    if (i === undefined) {
      if (names.length < MAX_REPLAY_NAMES) i = names.push(name) - 1;
      else {
        i = names.indexOf(OTHER_REQUESTS);
        if (i < 0) i = names.push(OTHER_REQUESTS) - 1;
      }
      seen.set(name, i);
    }
    return i;
  });
  return { names, index };
}

/**
 * Ms from one pass's start to the next: the recorded span plus the mean gap between requests (1 s
 * for a single request), never under 1 ms per request.
 */
export function loopPeriodMs(at: readonly number[]): number {
  const span = at.length ? at[at.length - 1]! - at[0]! : 0;
  const gap = at.length > 1 ? span / (at.length - 1) : 1000;
  return Math.max(span + gap, at.length);
}

/** A replay user (speed 0): where it is in the sequence, and whether it has sent it all. */
export interface ReplayUser {
  next: number;
  finished: boolean;
}

/** The sequence of a replay, each request built once as its protocol sends it (`encode`: request.ts). */
export class Replay<R> {
  readonly size: number;
  readonly speed: number;
  readonly loop: boolean;
  readonly stats: StepStats;
  private readonly steps: Array<Step<R>>;
  private readonly counted: number[];
  /** Ms after the test's start each request of the first pass is due (recorded time / speed). */
  private readonly due: number[];
  private readonly period: number;

  constructor(url: URL, plan: ReplayPlan, encode: (spec: RequestSpec) => R) {
    const { requests, speed, loop } = plan;
    this.size = requests.length;
    this.speed = speed;
    this.loop = loop;
    const { names, index } = replayNames(requests);
    this.counted = index;
    this.stats = new StepStats(names);
    this.steps = requests.map((r) => ({
      request: encode({
        // On the target's origin whatever the path holds (a path "//host/x" is a path here, not a host).
        url: new URL(`${url.origin}${r.path}`),
        method: r.method,
        headers: plan.headers ? { ...r.headers, ...plan.headers } : r.headers,
        body: r.body === undefined ? undefined : Buffer.from(r.body, 'base64'),
      }),
      method: r.method,
      keepBody: false,
    }));
    const at = requests.map((r) => r.at);
    const first = at[0] ?? 0;
    this.due = at.map((t) => (speed > 0 ? (t - first) / speed : 0));
    this.period = speed > 0 ? loopPeriodMs(at) / speed : 0;
  }

  /**
   * Speed above 0: when the k-th request sent is due, ms after the start (the sequence again and
   * again with a loop; Infinity past it without). One scheduler sends a timed replay whole
   * (usersKeptTogether keeps its users together), so the order holds.
   */
  dueAt(k: number): number {
    const pass = Math.floor(k / this.size);
    if (pass === 0) return this.due[k]!;
    return this.loop ? pass * this.period + this.due[k % this.size]! : Infinity;
  }

  /** The first k due at or after `ms` after the start (due times only grow with k). */
  firstDueFrom(ms: number): number {
    let hi = 1;
    while (this.dueAt(hi) < ms) hi *= 2;
    let lo = 0;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.dueAt(mid) < ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Request i as the generator sends it: its answer counted under its name, a replay user (speed 0) then moved on. */
  job(i: number, user?: ReplayUser): Job<R> {
    return {
      ...this.steps[i]!,
      answered: (latencyUs, status, error, _body, reached) => {
        if (reached)
          this.stats.record(this.counted[i]!, latencyUs, error ? 0 : status, error !== null || status >= 400);
        if (user) this.advance(user);
      },
    };
  }

  /** Speed 0: the user on to its next request; finished after the last one unless the replay loops. */
  advance(user: ReplayUser): void {
    user.next += 1;
    if (user.next < this.size) return;
    user.next = 0;
    if (!this.loop) user.finished = true;
  }
}
