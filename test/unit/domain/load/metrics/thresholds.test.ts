import { describe, expect, it } from 'vitest';
import {
  parseThreshold,
  refusedThresholds,
  thresholdList,
  type Threshold,
} from '../../../../../contract/load/thresholds.ts';
import { PHASE_METRICS, type ThresholdMetric } from '../../../../../contract/load/threshold-words.ts';
import { abortingFailure, evaluateThresholds, verdictOf } from '../../../../../domain/load/metrics/thresholds.ts';

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
    expect(parseThreshold('ttfb.p42 < 3')).toMatch(/unknown metric ttfb\.p42 .*; .*<phase>\.<statistic>/);
    expect(parseThreshold(42)).toMatch(/must be an expression/);
    expect(parseThreshold({ abortOnFail: true })).toMatch(/must be an expression/);
    expect(parseThreshold({ threshold: 'p99 < 3', delayAbortEval: 3601 })).toMatch(
      /delayAbortEval must be seconds from 0 to 3600/,
    );
    expect(parseThreshold({ threshold: 'p99 < 3', delayAbortEval: '1 minute' })).toMatch(/delayAbortEval/);
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

  it("reads k6's thresholds as written: each normalised to ours, judged as ours", () => {
    expect(parseThreshold('p(95)<300')).toEqual(parseThreshold('p95 < 300'));
    expect(
      parseThreshold({ threshold: 'http_req_failed: rate<0.01', abortOnFail: true, delayAbortEval: '1m' }),
    ).toEqual({
      threshold: 'error_rate < 1',
      metric: 'error_rate',
      op: '<',
      value: 1,
      abortOnFail: true,
      delayAbortEval: 60,
    });
    const [p95] = evaluateThresholds([parseThreshold('http_req_duration: p(95)<30') as Threshold], figures);
    expect(p95).toEqual({ threshold: 'p95 < 30', observed: 25, pass: true });
  });

  it("turns k6's object of lists by metric into our list, and leaves a list as it is", () => {
    const k6 = {
      http_req_duration: ['p(95)<300', { threshold: 'p(99)<500', abortOnFail: true }],
      http_req_failed: ['rate<0.01'],
    };
    const list = thresholdList(k6);
    expect(list).toEqual([
      'http_req_duration: p(95)<300',
      { threshold: 'http_req_duration: p(99)<500', abortOnFail: true },
      'http_req_failed: rate<0.01',
    ]);
    expect(list.map((t) => (parseThreshold(t) as Threshold).threshold)).toEqual([
      'p95 < 300',
      'p99 < 500',
      'error_rate < 1',
    ]);
    expect(thresholdList(list)).toEqual(list);
  });

  it('names every refused threshold, not only the first, each with the nearest form', () => {
    expect(refusedThresholds(['p95 < 300', 'p(95)<300'])).toBeNull();
    const one = refusedThresholds(['p95 < 300', 'p42 < 1']);
    expect(one).toEqual({ path: [1], message: expect.stringMatching(/^"p42 < 1": unknown metric p42/) });
    const three = refusedThresholds(['p(97)<300', 'p95 < 300', 'latency < 3', 'error_rate < 1ms'])!;
    expect(three.path).toEqual([]);
    expect(three.message).toMatch(/^3 of 4 thresholds refused: 0: "p\(97\)<300": .*did you mean "p\(99\) < 300"/);
    expect(three.message).toMatch(/; 2: "latency < 3": .*did you mean "p95 < 3".*; 3: "error_rate < 1ms": /);
    expect(three.message).toMatch(/did you mean "error_rate < 1".*\. Metrics: one of p50/);
  });
});
