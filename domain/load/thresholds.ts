// Pass/fail thresholds of a load test, as k6 writes them ("p99 < 300", "error_rate < 1"), evaluated on
// the figures of the histograms merged across every shard (metrics.ts), so a distributed test has one
// verdict, not one per instance. Times are milliseconds, rates percentages of requests, throughput
// requests per second; `<phase>.<statistic>` reads a phase (phases.ts). A threshold may abort the test when it fails (`abortOnFail`), once
// `delayAbortEval` seconds of the test have passed.
import type { LoadThreshold, ThresholdOutcome } from '../../lib/jobs/load-test.ts';
import { PHASE_STATS, PHASES, type Phase, type PhaseStat } from '../../lib/load/phases.ts';

const TOTAL_METRICS = [
  'p50',
  'p75',
  'p90',
  'p95',
  'p99',
  'p99.9',
  'avg',
  'min',
  'max',
  'error_rate',
  'throughput',
  'status_5xx_rate',
  'shard_restarts',
  'seconds_without_traffic',
] as const;
/** A phase's statistic: `ttfb.p95`, `connect.max`, ... (phases.ts). */
export type PhaseMetric = `${Phase}.${PhaseStat}`;
export const PHASE_METRICS = PHASES.flatMap((p) => Object.keys(PHASE_STATS).map((s) => `${p}.${s}` as PhaseMetric));
const PHASE_METRIC_SET: ReadonlySet<string> = new Set(PHASE_METRICS);
/** Whether a metric is a phase's (read from the phases' histograms): `ttfb.p95` is, `p99.9` is not. */
export const isPhaseMetric = (metric: string): metric is PhaseMetric => PHASE_METRIC_SET.has(metric);
/** The metrics a threshold can name. */
export const THRESHOLD_METRICS: ReadonlyArray<(typeof TOTAL_METRICS)[number] | PhaseMetric> = [
  ...TOTAL_METRICS,
  ...PHASE_METRICS,
];
export type ThresholdMetric = (typeof TOTAL_METRICS)[number] | PhaseMetric;
const OPERATORS = ['<=', '>=', '==', '!=', '<', '>'] as const;
type Operator = (typeof OPERATORS)[number];

/** The percentile of each percentile metric of the total latency. */
export const PERCENTILES: Partial<Record<ThresholdMetric, number>> = {
  p50: 50,
  p75: 75,
  p90: 90,
  p95: 95,
  p99: 99,
  'p99.9': 99.9,
};

/** `threshold` is the expression with normalised spacing (the name results use); `delayAbortEval` seconds from the test's start. */
export interface Threshold extends LoadThreshold {
  metric: ThresholdMetric;
  op: Operator;
}

export const MAX_THRESHOLDS = 20;
const EXPRESSION = /^\s*([a-z0-9_.]+)\s*(<=|>=|==|!=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/;

/** One threshold as the start body gives it (a string, or an object as k6 writes it); a message naming the fault when it is not one. */
export function parseThreshold(given: unknown): Threshold | string {
  const object = typeof given === 'object' && given !== null ? (given as Record<string, unknown>) : null;
  const expression = object ? object.threshold : given;
  if (typeof expression !== 'string')
    return 'must be an expression such as "p99 < 300", or {"threshold": "...", "abortOnFail": true}';
  const m = EXPRESSION.exec(expression);
  if (!m) return `"${expression.slice(0, 80)}" is not <metric> <operator> <number> (for example "p99 < 300")`;
  const metric = m[1] as ThresholdMetric;
  if (!THRESHOLD_METRICS.includes(metric))
    return `"${expression.slice(0, 80)}": unknown metric ${metric.slice(0, 40)}; one of ${TOTAL_METRICS.join(', ')}, or <phase>.<statistic> with a phase of ${PHASES.join(', ')} and a statistic of ${Object.keys(PHASE_STATS).join(', ')}`;
  let delay = 0;
  if (object) {
    const extra = Object.keys(object).filter((k) => !['threshold', 'abortOnFail', 'delayAbortEval'].includes(k));
    if (extra.length)
      return `"${expression.slice(0, 80)}": unknown field ${extra[0]!.slice(0, 40)} (threshold, abortOnFail, delayAbortEval)`;
    if (object.abortOnFail !== undefined && typeof object.abortOnFail !== 'boolean')
      return `"${expression.slice(0, 80)}": abortOnFail must be true or false`;
    const d = object.delayAbortEval;
    // k6 writes "10s"; a number is seconds too.
    const seconds =
      typeof d === 'number'
        ? d
        : typeof d === 'string' && /^\d+(\.\d+)?s?$/.test(d)
          ? Number.parseFloat(d)
          : d === undefined
            ? 0
            : Number.NaN;
    if (!Number.isFinite(seconds) || seconds < 0 || seconds > 3600)
      return `"${expression.slice(0, 80)}": delayAbortEval must be seconds from 0 to 3600 (a number, or "10s")`;
    delay = seconds;
  }
  return {
    threshold: `${metric} ${m[2]} ${m[3]}`,
    metric,
    op: m[2] as Operator,
    value: Number(m[3]),
    abortOnFail: object?.abortOnFail === true,
    delayAbortEval: delay,
  };
}

const holds: Record<Operator, (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
};

/** Each threshold against the figures (figures.ts: the merged histograms' and totals'). */
export function evaluateThresholds(
  thresholds: readonly LoadThreshold[],
  figures: Readonly<Record<ThresholdMetric, number>>,
): ThresholdOutcome[] {
  return thresholds.map((t) => {
    const observed = figures[t.metric as ThresholdMetric];
    return { threshold: t.threshold, observed, pass: holds[t.op as Operator](observed, t.value) };
  });
}

/** The results' verdict: passed when every threshold holds. */
export const verdictOf = (outcomes: readonly ThresholdOutcome[]): 'passed' | 'failed' =>
  outcomes.every((o) => o.pass) ? 'passed' : 'failed';

/** The first aborting threshold that fails once its delay has passed (`elapsedSeconds` since the test's start), or null. */
export function abortingFailure(
  thresholds: readonly LoadThreshold[],
  outcomes: readonly ThresholdOutcome[],
  elapsedSeconds: number,
): string | null {
  const i = thresholds.findIndex((t, k) => t.abortOnFail && elapsedSeconds >= t.delayAbortEval && !outcomes[k]!.pass);
  return i < 0 ? null : thresholds[i]!.threshold;
}
