// The plan's requests, and allowances beside them: an allowance's calls a minute spend no request;
// past it each spends one, and is refused when the plan's are spent.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { quotaService } from '../../../../api/services/quota.ts';
import { MemoryKvStore } from '../../../../lib/kv/index.ts';
import { PLAN_LIMITS, taskReadsPerMinute } from '../../../../lib/plans.ts';

describe('an allowance beside the plan’s requests', () => {
  afterEach(() => vi.useRealTimers());
  const free = { userId: 3, plan: 'free' as const };

  it('spends nothing within it, a request past it, and refuses once the plan’s are spent', async () => {
    vi.useFakeTimers({ now: new Date('2026-12-01T12:00:00Z') });
    const quota = quotaService({ kv: new MemoryKvStore() });
    for (let i = 0; i < 3; i++) expect(await quota.spendPast(free, 'polls', 3)).toBeNull();
    const [minute] = await quota.usage(free);
    expect(minute!.remaining).toBe(PLAN_LIMITS.free.perMinute);
    for (let i = 0; i < PLAN_LIMITS.free.perMinute; i++)
      expect(await quota.spendPast(free, 'polls', 3)).toMatchObject({ allowed: true });
    const refused = await quota.spendPast(free, 'polls', 3);
    expect(refused).toMatchObject({ allowed: false, full: ['10 requests per minute'] });
    // Another kind's allowance is its own; a minute on, the allowance is whole again.
    expect(await quota.spendPast(free, 'other', 1)).toBeNull();
    vi.setSystemTime(new Date('2026-12-01T12:01:00Z'));
    expect(await quota.spendPast(free, 'polls', 3)).toBeNull();
  });

  it('allows task reads enough to poll every load test and wait of the plan at the advertised interval', () => {
    // 2 s between polls: 30 a minute for each of 1 load test and 2 live streams on free.
    expect(taskReadsPerMinute('free')).toBe(90);
    expect(taskReadsPerMinute('pro')).toBe(450);
    expect(taskReadsPerMinute('enterprise')).toBe(2_100);
  });
});
