import { describe, expect, it } from 'vitest';
import {
  abortingFailure,
  evaluateThresholds,
  parseThreshold,
  PHASE_METRICS,
  verdictOf,
  type Threshold,
  type ThresholdMetric,
} from '../../../../domain/load/thresholds.ts';

const figures = {
  p50: 20,
  p75: 21,
  p90: 22,
  p95: 25,
  p99: 40,
  'p99.9': 55,
  avg: 21.5,
  min: 19,
  max: 60,
  error_rate: 0.5,
  throughput: 120,
  status_5xx_rate: 0.25,
  ...Object.fromEntries(PHASE_METRICS.map((m) => [m, 1])),
  'ttfb.p95': 18,
} as Record<ThresholdMetric, number>;

describe('load test thresholds', () => {
  it('reads k6-style expressions and objects, normalising their spacing', () => {
    expect(parseThreshold('p99<300')).toEqual({
      threshold: 'p99 < 300',
      metric: 'p99',
      op: '<',
      value: 300,
      abortOnFail: false,
      delayAbortEval: 0,
    });
    expect(parseThreshold('  p99.9   >=  1.5 ')).toMatchObject({
      threshold: 'p99.9 >= 1.5',
      metric: 'p99.9',
      op: '>=',
      value: 1.5,
    });
    expect(parseThreshold({ threshold: 'error_rate < 1', abortOnFail: true, delayAbortEval: '10s' })).toMatchObject({
      abortOnFail: true,
      delayAbortEval: 10,
    });
    expect(parseThreshold({ threshold: 'error_rate < 1', delayAbortEval: 5 })).toMatchObject({
      abortOnFail: false,
      delayAbortEval: 5,
    });
  });

  it('names what is wrong with a malformed one', () => {
    expect(parseThreshold('p99 <')).toMatch(/is not <metric> <operator> <number>/);
    expect(parseThreshold('p99 < abc')).toMatch(/is not <metric>/);
    expect(parseThreshold('p99 => 3')).toMatch(/is not <metric>/);
    expect(parseThreshold('latency < 3')).toMatch(/unknown metric latency/);
    expect(parseThreshold('ttfb.p42 < 3')).toMatch(/unknown metric ttfb\.p42; .*<phase>\.<statistic>/);
    expect(parseThreshold(42)).toMatch(/must be an expression/);
    expect(parseThreshold({ abortOnFail: true })).toMatch(/must be an expression/);
    expect(parseThreshold({ threshold: 'p99 < 3', delayAbortEval: 3601 })).toMatch(
      /delayAbortEval must be seconds from 0 to 3600/,
    );
    expect(parseThreshold({ threshold: 'p99 < 3', delayAbortEval: '1m' })).toMatch(/delayAbortEval/);
    expect(parseThreshold({ threshold: 'p99 < 3', abortOnFail: 1 })).toMatch(/abortOnFail must be true or false/);
  });

  it('evaluates each operator at its edge', () => {
    const t = (e: string) => parseThreshold(e) as Threshold;
    const outcomes = evaluateThresholds(
      ['p99 < 40', 'p99 <= 40', 'p99 > 40', 'p99 >= 40', 'p99 == 40', 'p99 != 40', 'status_5xx_rate < 0.3'].map(t),
      figures,
    );
    expect(outcomes.map((o) => o.pass)).toEqual([false, true, false, true, true, false, true]);
    expect(outcomes[0]).toEqual({ threshold: 'p99 < 40', observed: 40, pass: false });
    expect(verdictOf(outcomes)).toBe('failed');
    expect(evaluateThresholds([t('ttfb.p95 < 20'), t('connect.max <= 0.5')], figures)).toEqual([
      { threshold: 'ttfb.p95 < 20', observed: 18, pass: true },
      { threshold: 'connect.max <= 0.5', observed: 1, pass: false },
    ]);
    expect(verdictOf(outcomes.filter((o) => o.pass))).toBe('passed');
  });

  it('aborts only on a failing abortOnFail threshold past its delay', () => {
    const list = [
      parseThreshold('error_rate < 0.1'),
      parseThreshold({ threshold: 'avg < 1', abortOnFail: true, delayAbortEval: 10 }),
      parseThreshold({ threshold: 'p50 < 100', abortOnFail: true }),
    ] as Threshold[];
    const outcomes = evaluateThresholds(list, figures);
    expect(abortingFailure(list, outcomes, 9.9)).toBeNull();
    expect(abortingFailure(list, outcomes, 10)).toBe('avg < 1');
  });
});
