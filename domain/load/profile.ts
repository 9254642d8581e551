// The shape of a load test over time, as k6's ramping executors give it: stages, each moving the
// target (users, or arrivals per second) linearly from where the previous stage left it (0 at the
// start) to its own target over its duration. The single ramp-up of the contract is two stages: up to
// the target over rampUpTime, then holding it.
import type { LoadTestConfig } from '../../lib/jobs/load-test.ts';

export interface Stage {
  durationMs: number;
  target: number;
}

/** The contract's ramp: from 0 to `target` over `rampUpMs` (a stage of no length jumps), then held until `totalMs`. */
export function rampStages(target: number, rampUpMs: number, totalMs: number): Stage[] {
  return [
    { durationMs: rampUpMs, target },
    ...(totalMs > rampUpMs ? [{ durationMs: totalMs - rampUpMs, target }] : []),
  ];
}

/** The target at `t` ms since the start (the last stage's target after the end). */
export function targetAt(stages: readonly Stage[], t: number): number {
  let from = 0; // a profile starts from 0; a stage of no length jumps to its target
  let start = 0;
  for (const s of stages) {
    if (t < start + s.durationMs) return from + ((s.target - from) * (t - start)) / s.durationMs;
    from = s.target;
    start += s.durationMs;
  }
  return from;
}

/**
 * The first time at or after `from` (ms) at which the target is above `level`, or null when it never
 * is again (users: user `level` is active exactly while the target is above its index).
 */
export function nextAbove(stages: readonly Stage[], level: number, from: number): number | null {
  let prev = 0;
  let start = 0;
  for (const s of stages) {
    const end = start + s.durationMs;
    if (s.durationMs > 0 && end > from) {
      const t0 = Math.max(from, start);
      // The target at t0 (computed in place: a closure here was allocated for every request of a test).
      if (prev + ((s.target - prev) * (t0 - start)) / s.durationMs > level) return t0;
      // Rising through the level within this stage: the moment it passes it.
      if (s.target > level) return Math.max(t0, start + ((level - prev) / (s.target - prev)) * s.durationMs + 1e-6);
    }
    prev = s.target;
    start = end;
  }
  return null;
}

/**
 * When the k-th arrival (0-based) is due, in ms since the start, for a rate target in arrivals per
 * second: the moment the integral of the rate reaches k. Infinity when it never does.
 */
export function arrivalAt(stages: readonly Stage[], k: number): number {
  let done = 0; // arrivals due before this stage
  let prev = 0; // arrivals per ms
  let start = 0;
  for (const s of stages) {
    const r0 = prev;
    const r1 = s.target / 1000;
    const inStage = ((r0 + r1) / 2) * s.durationMs;
    const left = Math.max(0, k - done);
    if (left < inStage) {
      // r0 τ + a τ² = left, a = (r1 - r0) / (2 d): the stable root of the quadratic.
      const a = (r1 - r0) / (2 * s.durationMs);
      const root = Math.sqrt(Math.max(0, r0 * r0 + 4 * a * left));
      return start + (left === 0 ? 0 : (2 * left) / (r0 + root));
    }
    done += inStage;
    prev = r1;
    start += s.durationMs;
  }
  return Number.POSITIVE_INFINITY;
}

/** The index of the first arrival at or after `ms` (arrivalAt only grows with k: a binary search). */
export function firstArrivalFrom(stages: readonly Stage[], ms: number): number {
  if (ms <= 0) return 0;
  let high = 1;
  while (arrivalAt(stages, high) < ms) high *= 2;
  let low = 0; // arrivalAt(low) < ms <= arrivalAt(high)
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (arrivalAt(stages, mid) < ms) low = mid;
    else high = mid;
  }
  return high;
}

/** The highest target of the profile. */
export const peakOf = (stages: readonly Stage[]) => stages.reduce((m, s) => Math.max(m, s.target), 0);

/** What a test's users are over time: its ramp, or its stages. */
export interface UserProfile {
  concurrentUsers: number;
  rampUpSeconds: number;
  testDurationSeconds: number;
  requestsPerSecond: number;
  stages?: Stage[];
}

/**
 * The virtual users at `t` ms since the load's start: the closed model's target (the ramp's or the
 * stages'), or in the open model (arrivals per second) the users that bound the requests in flight.
 */
export function usersAt(p: UserProfile, t: number): number {
  if (t < 0 || t > p.testDurationSeconds * 1000) return 0;
  if (p.requestsPerSecond > 0) return p.concurrentUsers;
  const stages = p.stages ?? rampStages(p.concurrentUsers, p.rampUpSeconds * 1000, p.testDurationSeconds * 1000);
  return Math.ceil(targetAt(stages, t));
}

/** The users of a test as its stored configuration gives them (the workflow's input has the same). */
export function profileOf(c: LoadTestConfig): UserProfile {
  return {
    concurrentUsers: c.concurrent_users,
    rampUpSeconds: c.ramp_up_time,
    testDurationSeconds: c.test_duration,
    requestsPerSecond: c.requests_per_second,
    ...(c.stages ? { stages: c.stages.map((st) => ({ durationMs: st.duration * 1000, target: st.target })) } : {}),
  };
}
