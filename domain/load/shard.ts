// What a shard of a load test is given (its plan) and when it reports its snapshots (lib/load/snapshot.ts:
// stored every second and merged into the status and the results, metrics.ts).
import type { ReplayPlan, ShardTarget } from '../../lib/jobs/load-test.ts';
import type { Stage } from './profile.ts';

export interface ShardPlan {
  target: ShardTarget;
  /** Virtual users (connections) of this shard. */
  users: number;
  /** Global index of this shard's first user, and the test's user count: the ramp is over all users. */
  firstUser: number;
  totalUsers: number;
  /** Epoch ms: when the test's load starts and ends (a retried shard resumes inside the same window). */
  startAt: number;
  endAt: number;
  /**
   * A retried shard, taking over from a lost one: the open model's arrivals scheduled before it starts
   * sending belonged to the lost attempt or to the gap, and are neither sent nor counted dropped.
   */
  resume?: boolean;
  rampUpMs: number;
  /** This shard's share of the arrival rate, requests per second; 0 = closed model. */
  rate: number;
  /**
   * The profile (profile.ts), instead of the ramp: users of the whole test in the closed model (a
   * user is active while the target is above its index), this shard's arrivals per second in the open one.
   */
  stages?: Stage[];
  requestTimeoutMs: number;
  /** With the target's replay: the sequence, as the activity read it. */
  replay?: ReplayPlan;
  /** NETWORK_ALLOW: the SSRF guard checks every connection the pool opens. */
  allow: readonly string[];
}

/** A request unanswered this long is given up (the test's `errors` count it as a timeout). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How often a shard looks for requests past the timeout: one sweep for all, rather than a timer each. */
export const TIMEOUT_SWEEP_MS = 250;
/** After its window and the request timeout, a shard ends this much later whatever is still open. */
export const END_GRACE_MS = 2000;

/**
 * A shard's live snapshots carry its phases' cumulative histograms (five of its six) one report in
 * this many, and its final one always: encoding them was most of a report's cost, and the database
 * keeps the last ones a shard stored until new ones come (db/load/load-test-shards.ts). What reads the
 * phases while a test runs (a threshold naming a phase, a metrics output) sees them at most this many
 * reports old (5 s while every report is stored on time); the latency histogram, the status codes and the
 * counts are in every report. A scenario's or replay's steps: their counts in every report, their
 * histograms as of the last report with the phases (so the results of an attempt lost on the way take
 * its steps' percentiles from up to this many reports before).
 */
export const PHASES_EVERY = 5;

/**
 * When, within each report interval, shard `shard` of `shards` reports: spread evenly, so a test's
 * writes reach the database one shard at a time rather than all in the same instant.
 */
export function reportPhaseMs(shard: number, shards: number | undefined, everyMs: number): number {
  if (!shards || shards <= 1) return 0;
  return Math.floor(((shard % shards) / shards) * everyMs);
}

/**
 * When shard `shard`, which ticks every `tickMs` and beat at `startedAt`, heartbeats next: `due(now)`
 * at the first tick `everyMs` (less half a tick) after its last beat. Its first interval is cut short
 * by a part of it that its number says, so that a test's shards, which start together, beat spread
 * over the interval rather than all at once.
 */
export function heartbeatsOf(shard: number, everyMs: number, tickMs: number, startedAt: number) {
  const apart = Math.max(1, Math.floor(everyMs / tickMs));
  let beatAt = startedAt - (shard % apart) * tickMs;
  return {
    due(now: number): boolean {
      if (now - beatAt < everyMs - tickMs / 2) return false;
      beatAt = now;
      return true;
    },
  };
}
