import { describe, expect, it } from 'vitest';
import type { LoadTestConfig } from '../../../../lib/jobs/load-test.ts';
import {
  arrivalAt,
  firstArrivalFrom,
  nextAbove,
  peakOf,
  rampStages,
  profileOf,
  targetAt,
  usersAt,
} from '../../../../domain/load/profile.ts';

describe('load profiles (stages)', () => {
  const stages = [
    { durationMs: 2000, target: 10 }, // 0 -> 10 over 2 s
    { durationMs: 2000, target: 10 }, // hold
    { durationMs: 0, target: 30 }, // jump
    { durationMs: 2000, target: 0 }, // 30 -> 0 over 2 s
  ];

  it('moves the target linearly within a stage, jumps on a stage of no length', () => {
    expect([0, 1000, 2000, 3000, 3999, 4000, 5000, 6000, 9000].map((t) => targetAt(stages, t))).toEqual([
      0, 5, 10, 10, 10, 30, 15, 0, 0,
    ]);
    expect(peakOf(stages)).toBe(30);
  });

  it('wakes a user when the target passes its index, and never when it will not', () => {
    expect(nextAbove(stages, 0, 0)).toBeCloseTo(0, 3);
    expect(nextAbove(stages, 4, 0)).toBeCloseTo(800, 3); // 5 users at 1 s: index 4 is the 5th
    expect(nextAbove(stages, 12, 0)).toBe(4000); // only after the jump
    expect(nextAbove(stages, 12, 4500)).toBe(4500); // still above at 4.5 s (22.5 users)
    expect(nextAbove(stages, 20, 5500)).toBeNull(); // falling, never above 20 again
  });

  it('finds the first arrival due at or after a moment (where a retried shard takes over)', () => {
    const steady = [
      { durationMs: 0, target: 100 },
      { durationMs: 30_000, target: 100 },
    ];
    expect(firstArrivalFrom(steady, 0)).toBe(0);
    expect(firstArrivalFrom(steady, 8000)).toBe(800);
    expect(firstArrivalFrom(steady, 8005)).toBe(801);
    for (const ms of [1, 999, 2500, 4000, 4001, 5500, 5999]) {
      const k = firstArrivalFrom(stages, ms);
      expect(arrivalAt(stages, k)).toBeGreaterThanOrEqual(ms);
      expect(arrivalAt(stages, k - 1)).toBeLessThan(ms);
    }
    // Past the last arrival: none left to send.
    expect(arrivalAt(stages, firstArrivalFrom(stages, 7000))).toBe(Number.POSITIVE_INFINITY);
  });

  it('schedules arrivals as the integral of the rate: the ramp of the contract unchanged', () => {
    // The contract's ramp: 0 -> r over R, then r; the k-th arrival at sqrt(2Rk/r) in the ramp, R + (k - rR/2)/r after.
    const r = 100 / 1000;
    const R = 4000;
    const ramp = rampStages(100, R, 10_000);
    for (const k of [0, 1, 50, 199]) expect(arrivalAt(ramp, k)).toBeCloseTo(Math.sqrt((2 * R * k) / r), 6);
    for (const k of [200, 201, 500]) expect(arrivalAt(ramp, k)).toBeCloseTo(R + (k - (r * R) / 2) / r, 6);
    expect(arrivalAt(ramp, 800)).toBe(Number.POSITIVE_INFINITY); // 200 in the ramp + 600 in 6 s
    // Without a ramp: the rate from the first moment.
    expect(arrivalAt(rampStages(50, 0, 10_000), 10)).toBeCloseTo(200, 6);
    // A falling rate: 100/s -> 0 over 2 s is 100 arrivals; the last of them comes near the end.
    const falling = [
      { durationMs: 0, target: 100 },
      { durationMs: 2000, target: 0 },
    ];
    expect(arrivalAt(falling, 50)).toBeCloseTo(2000 - Math.sqrt((2000 * 2000) / 2), 3);
    expect(arrivalAt(falling, 100)).toBe(Number.POSITIVE_INFINITY);
  });

  it("starts the users of the contract's ramp where they always started: user g at rampUp * g / users", () => {
    const ramp = rampStages(8, 4000, 10_000);
    for (let g = 0; g < 8; g++) expect(nextAbove(ramp, g, 0)).toBeCloseTo((4000 * g) / 8, 3);
    const noRamp = rampStages(8, 0, 10_000);
    for (let g = 0; g < 8; g++) expect(nextAbove(noRamp, g, 0)).toBe(0);
  });
});

describe('usersAt', () => {
  const profile = { concurrentUsers: 100, rampUpSeconds: 10, testDurationSeconds: 60, requestsPerSecond: 0 };
  it('follows the ramp, then holds; none before the start or after the end', () => {
    expect([-1, 0, 5000, 10_000, 30_000, 60_001].map((t) => usersAt(profile, t))).toEqual([0, 0, 50, 100, 100, 0]);
  });
  it('follows user stages; in the open model, the users that bound the requests in flight', () => {
    const stages = [
      { durationMs: 20_000, target: 40 },
      { durationMs: 40_000, target: 10 },
    ];
    expect(usersAt({ ...profile, stages }, 10_000)).toBe(20);
    expect(usersAt({ ...profile, stages }, 40_000)).toBe(25);
    expect(usersAt({ ...profile, requestsPerSecond: 200 }, 1000)).toBe(100);
  });
  it('reads a stored configuration as the workflow is given it', () => {
    const config = { concurrent_users: 100, ramp_up_time: 10, test_duration: 60, requests_per_second: 0 };
    expect(profileOf(config as LoadTestConfig)).toEqual(profile);
    const staged = { ...config, stages: [{ duration: 20, target: 40 }], stage_target: 'users' } as LoadTestConfig;
    expect(usersAt(profileOf(staged), 10_000)).toBe(20);
  });
});
