// A run's verdict: thresholds decide it, but a run whose every attempt failed is failed whatever they
// say (target_unreachable), named by its commonest failure.
import { describe, expect, it } from 'vitest';
import { runVerdict, unreachableDetail } from '../../../../../domain/load/metrics/verdict.ts';

const totals = (total: number, successful: number, connectionErrors: number) => ({
  total,
  successful,
  connectionErrors,
});

describe('unreachableDetail', () => {
  it('names the commonest failure of a run whose every attempt failed', () => {
    expect(unreachableDetail(totals(0, 0, 412), { ECONNREFUSED: 412 }, {})).toBe(
      'all 412 attempts failed: ECONNREFUSED',
    );
    expect(unreachableDetail(totals(0, 0, 1), { DEPTH_ZERO_SELF_SIGNED_CERT: 1 }, {})).toBe(
      'the only attempt failed: DEPTH_ZERO_SELF_SIGNED_CERT',
    );
    expect(unreachableDetail(totals(3, 0, 1200), { ENOTFOUND: 1200, ETIMEDOUT: 3 }, {})).toBe(
      'all 1,203 attempts failed, most with ENOTFOUND (1,200 attempts)',
    );
    expect(unreachableDetail(totals(40, 0, 0), {}, { 401: 40 })).toBe('all 40 attempts failed: HTTP 401');
  });

  it('has nothing to say of a run with an answer below 400, or with no attempt at all', () => {
    expect(unreachableDetail(totals(10, 1, 500), { ECONNREFUSED: 500 }, { 200: 1, 503: 9 })).toBeNull();
    expect(unreachableDetail(totals(0, 0, 0), {}, {})).toBeNull();
  });
});

describe('runVerdict', () => {
  const held = { threshold: 'p95 < 300', observed: 12, pass: true };
  const broke = { threshold: 'avg < 10', observed: 30.97, pass: false };

  it('puts a run that tested nothing first, thresholds or not', () => {
    const unreachable = 'all 9 attempts failed: ECONNREFUSED';
    const failed = { verdict: 'failed', verdict_reason: 'target_unreachable', verdict_detail: unreachable };
    expect(runVerdict(null, unreachable)).toEqual(failed);
    expect(runVerdict([held], unreachable)).toEqual(failed);
  });

  it('passes when every threshold holds, fails naming those that did not, and has none without thresholds', () => {
    expect(runVerdict(null, null)).toBeNull();
    expect(runVerdict([held], null)).toEqual({ verdict: 'passed' });
    expect(runVerdict([held, broke], null)).toEqual({
      verdict: 'failed',
      verdict_reason: 'thresholds',
      verdict_detail: '1 of 2 thresholds did not hold: avg < 10 (observed 30.97)',
    });
  });
});
