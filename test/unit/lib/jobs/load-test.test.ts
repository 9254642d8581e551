import { describe, expect, it } from 'vitest';
import { splitUsers } from '../../../../lib/jobs/load-test.ts';

describe('splitting users', () => {
  it("splits users evenly and numbers them on, shares the rate and an open model's stages, keeps a closed model's", () => {
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
  });
});
