// A user's response rules run within their plan's milliseconds a minute in one process: the bucket
// starts full, may be overdrawn by the last run, refills continuously, and is the user's own.
import { describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../../../../lib/plans.ts';
import { RuleBudget } from '../../../../lib/webhooks/rule-budget.ts';

function clocked() {
  let now = 1_000;
  return { budget: new RuleBudget(() => now), pass: (ms: number) => (now += ms) };
}

describe("a user's rules' share of the thread", () => {
  const free = PLAN_LIMITS.free.ruleMsPerMinute;

  it('lets the rules run until the plan’s milliseconds are spent, to the millisecond', () => {
    const { budget } = clocked();
    expect(budget.waitSeconds(1, 'free')).toBe(0);
    budget.spend(1, 'free', free - 1);
    expect(budget.waitSeconds(1, 'free')).toBe(0);
    budget.spend(1, 'free', 1);
    expect(budget.waitSeconds(1, 'free')).toBe(1);
  });

  it('lets the last run overdraw, and says how long the bucket takes to come back above nothing', () => {
    const { budget, pass } = clocked();
    budget.spend(1, 'free', free + 500); // 500 ms over: 30 s at 1,000 ms a minute
    expect(budget.waitSeconds(1, 'free')).toBe(30);
    pass(28_000); // 466.7 ms back: 33.3 ms to go, 2 s
    expect(budget.waitSeconds(1, 'free')).toBe(2);
    pass(1_990); // 0.2 ms to go
    expect(budget.waitSeconds(1, 'free')).toBe(1);
    pass(20);
    expect(budget.waitSeconds(1, 'free')).toBe(0);
  });

  it('refills at the plan’s rate and never above a minute’s worth', () => {
    const { budget, pass } = clocked();
    budget.spend(1, 'pro', 100);
    pass(3_600_000);
    budget.spend(1, 'pro', PLAN_LIMITS.pro.ruleMsPerMinute - 1);
    expect(budget.waitSeconds(1, 'pro')).toBe(0);
    budget.spend(1, 'pro', 1);
    expect(budget.waitSeconds(1, 'pro')).toBe(1);
  });

  it('keeps each user’s bucket apart', () => {
    const { budget } = clocked();
    budget.spend(1, 'free', free);
    expect(budget.waitSeconds(1, 'free')).toBe(1);
    expect(budget.waitSeconds(2, 'free')).toBe(0);
  });

  it('runs the rules and charges the time they took, or refuses without running them once it is spent', () => {
    let now = 0;
    const budget = new RuleBudget(() => now);
    const user = { userId: 1, plan: 'free' as const };
    const refused = (wait: number) => new Error(`wait ${wait} s`);
    const taking = (ms: number, then: () => string) => () => {
      now += ms;
      return then();
    };
    const ran500 = taking(500, () => 'ran');
    expect(budget.run(user, ran500, refused)).toBe('ran'); // 500 ms left
    expect(budget.waitSeconds(1, 'free')).toBe(0);
    // A run that throws is charged too: 600 ms, 10 back meanwhile, 90 over (5.4 s to refill).
    const fails600 = taking(600, () => JSON.parse('{'));
    expect(() => budget.run(user, fails600, refused)).toThrow(SyntaxError);
    let ran = false;
    const marks = () => {
      ran = true;
    };
    expect(() => budget.run(user, marks, refused)).toThrow('wait 6 s');
    expect(ran).toBe(false);
  });
});
