// Stages against a loopback target: an arrival rate that holds 50/s then 150/s (every full second of
// a hold within 5 % of its target), and users that hold 2, then 6, then 3 (the distinct connections
// that sent in each second: exactly the target). Validation names what is wrong.
import { describe, expect, it } from 'vitest';
import { expectErrorShape, targets } from '../support/client.ts';
import { loadTestSuite } from '../support/load-tests.ts';

describe.each(targets())('load test stages ($name)', (target) => {
  const { site, start, results, waitFor } = loadTestSuite(target);

  /** The second-by-second sends of the seconds [from, to), each within 5 % of `expected`. */
  const holds = (perSecond: number[], from: number, to: number, expected: number) => {
    const seconds = perSecond.slice(from, to);
    expect(seconds.length).toBe(to - from);
    for (const n of seconds)
      expect(Math.abs(n - expected) / expected, `${seconds.join(', ')} against ${expected}`).toBeLessThanOrEqual(0.05);
  };

  it('follows rate stages: 50/s, then up to 150/s', { timeout: 60_000 }, async () => {
    const stages = [
      { duration: 1, target: 50 },
      { duration: 4, target: 50 },
      { duration: 1, target: 150 },
      { duration: 4, target: 150 },
    ];
    const started = await start({
      targetUrl: `${site().url}/stages-rate`,
      httpMethod: 'GET',
      concurrentUsers: 20,
      stages,
      stageTarget: 'rate',
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.config).toMatchObject({
      test_duration: 10,
      concurrent_users: 20,
      requests_per_second: 150,
      stages,
      stage_target: 'rate',
    });
    const id = started.body.test_id;
    await waitFor(id, (b) => b.status !== 'pending' && b.status !== 'running', 40_000);
    const r = (await results(id)).body.results;
    console.log(`rate stages, requests sent each second: ${r.requests_per_second.join(', ')}`);
    holds(r.requests_per_second, 1, 5, 50);
    holds(r.requests_per_second, 6, 10, 150);
    expect(r.dropped_requests).toBe(0);
    expect(r.total_requests).toBe(site().count('/stages-rate'));
  });

  it('follows user stages: 2, then 6, then 3 users', { timeout: 60_000 }, async () => {
    const stages = [
      { duration: 0, target: 2 },
      { duration: 4, target: 2 },
      { duration: 0, target: 6 },
      { duration: 4, target: 6 },
      { duration: 0, target: 3 },
      { duration: 3, target: 3 },
    ];
    const started = await start({ targetUrl: `${site().url}/delay/100/stages-users`, httpMethod: 'GET', stages });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.config).toMatchObject({
      test_duration: 11,
      concurrent_users: 6,
      requests_per_second: 0,
      stage_target: 'users',
    });
    const id = started.body.test_id;
    await waitFor(id, (b) => b.status !== 'pending' && b.status !== 'running', 40_000);
    const { started_at: startedAt } = (await results(id)).body;
    // Users active in each second since the load's start: the distinct connections that sent in it.
    const path = '/delay/100/stages-users';
    const users: Array<Set<number>> = [];
    const ports = site().ports(path);
    for (const [i, t] of site().arrivals(path).entries()) {
      const second = Math.floor((t - Date.parse(startedAt)) / 1000);
      users[second] ??= new Set();
      users[second].add(ports[i]!);
    }
    const counts = Array.from(users, (u) => u?.size ?? 0);
    console.log(`user stages, users active each second: ${counts.join(', ')}`);
    expect(counts.slice(0, 4)).toEqual([2, 2, 2, 2]);
    expect(counts.slice(4, 8)).toEqual([6, 6, 6, 6]);
    expect(counts.slice(9, 11)).toEqual([3, 3]); // (second 8 may still see a request sent just before the drop)
  });

  it('refuses stages that do not make a test, naming the field', async () => {
    const base = { targetUrl: `${site().url}/x`, httpMethod: 'GET' };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ stages: [{ duration: 5, target: 5 }] }, /stages: must last 10 to 3600 seconds in all \(they last 5\)/],
      [{ stages: [{ duration: 10, target: 0 }] }, /stages: must reach a target above 0/],
      [{ stages: [{ duration: 10, target: 5 }], testDuration: 20 }, /testDuration: must be the stages' total \(10\)/],
      [{ stages: [{ duration: 10, target: 5 }], rampUpTime: 2 }, /rampUpTime: is replaced by stages/],
      [
        { stages: [{ duration: 10, target: 5 }], requestsPerSecond: 2 },
        /requestsPerSecond: is replaced by stages with stageTarget "rate"/,
      ],
      [
        { stages: [{ duration: 10, target: 5 }], concurrentUsers: 4 },
        /concurrentUsers: must be the stages' peak \(5\)/,
      ],
      [
        {
          stages: [
            { duration: 10, target: 1 },
            { duration: 0, target: 10_000 },
          ],
        },
        /stages: must not end with a stage of duration 0/,
      ],
      [{ concurrentUsers: 5, testDuration: 10, stageTarget: 'rate' }, /stageTarget: is given only with stages/],
      [{ stages: [{ duration: 10, target: 50 }], stageTarget: 'rate' }, /concurrentUsers is required/],
      [{ stages: [{ duration: 10, target: 20_000 }] }, /stages: targets are users: at most 10000/],
      [{ stages: [{ duration: 10, target: 5, ramp: true }] }, /stages\.0/],
      [{ stages: [] }, /stages: must hold 1 to 20 stages/],
      [{ stages: [{ duration: 10 }] }, /stages\.0\.target/],
      [{ stages: 'x' }, /stages: must be a list/],
      [{ stages: [{ duration: 10, target: 5 }], stageTarget: 'vus' }, /stageTarget: must be users or rate/],
      [{ concurrentUsers: 5 }, /testDuration is required/],
    ];
    for (const [extra, message] of cases) {
      const refused = await start({ ...base, ...extra });
      expectErrorShape(refused, 400);
      expect(refused.body.message, JSON.stringify(extra)).toMatch(message);
    }
  });
});
