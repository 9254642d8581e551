import { describe, expect, it } from 'vitest';
import { splitUsers } from '../../../../lib/jobs/load-test.ts';

describe('splitting users', () => {
  it(
    'splits users evenly and numbers them on, ' + "shares the rate and an open model's stages, keeps a closed model's",
    () => {
      const closed = splitUsers({ users: 5, firstUser: 10, rate: 0, stages: [{ durationMs: 1000, target: 40 }] }, 2);
      expect(closed.map((p) => [p.users, p.firstUser, p.rate, p.stages![0]!.target])).toEqual([
        [3, 10, 0, 40],
        [2, 13, 0, 40],
      ]);
      const open = splitUsers({ users: 4, firstUser: 0, rate: 100, stages: [{ durationMs: 1000, target: 80 }] }, 4);
      expect(open.map((p) => [p.users, p.rate, p.stages![0]!.target])).toEqual([
        [1, 25, 20],
        [1, 25, 20],
        [1, 25, 20],
        [1, 25, 20],
      ]);
      expect(splitUsers({ users: 2, firstUser: 0, rate: 0 }, 8)).toHaveLength(2); // never a part without users
    },
  );

  it('cuts HTTP/2 users only between whole connections', () => {
    const users = (n: number, parts: number, unit: number) =>
      splitUsers({ users: n, firstUser: 0, rate: 0 }, parts, unit).map((p) => [p.users, p.firstUser]);
    expect(users(50, 2, 10)).toEqual([
      [30, 0],
      [20, 30],
    ]);
    expect(users(45, 2, 10)).toEqual([
      [30, 0],
      [15, 30],
    ]); // the last connection is the one not full
    expect(users(1000, 2, 300)).toEqual([
      [600, 0],
      [400, 600],
    ]);
    expect(users(8, 4, 10)).toEqual([[8, 0]]); // one connection: one part
    expect(users(5, 2, 1)).toEqual([
      [3, 0],
      [2, 3],
    ]);
  });
});
