// The words of a threshold's expression (thresholds.ts): ours, `<metric> <operator> <number>` ("p95 < 300",
// "error_rate < 1", "ttfb.p95 < 200"), and k6's, so that a k6 user's thresholds work as written:
// its statistics (`p(95)<300`, `p(99.9)<500`, `avg`, `med`, `min`, `max`, `rate`, `count`) alone or
// after its metric's name (`http_req_duration: p(95)<300`, `http_req_failed: rate<0.01`, `http_reqs:
// rate>100`), its phase metrics mapped to our phases. Words are read whatever their case; a time may
// carry its unit (`300ms`, `1.5s`, `800us`), a percentage `%`. Each is read into one of our metrics,
// with the value in its units (ms, % of attempts): `p(95)<300` is `p95 < 300`, `rate<0.01` on
// http_req_failed is `error_rate < 1`. A fault names the nearest form that would be read.
import { distance } from 'fastest-levenshtein';
import { LATENCY_PERCENTILES, PHASE_STATS, PHASES, type Phase, type PhaseStat } from '../../lib/load/phases.ts';

export const TOTAL_METRICS = [
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
  'total_requests',
  'connection_errors',
  'shard_restarts',
  'seconds_without_traffic',
] as const;
/** A phase's statistic: `ttfb.p95`, `connect.max`, ... (phases.ts). */
export type PhaseMetric = `${Phase}.${PhaseStat}`;
export type ThresholdMetric = (typeof TOTAL_METRICS)[number] | PhaseMetric;
export const PHASE_METRICS = PHASES.flatMap((p) => Object.keys(PHASE_STATS).map((s) => `${p}.${s}` as PhaseMetric));
const PHASE_METRIC_SET: ReadonlySet<string> = new Set(PHASE_METRICS);
/** Whether a metric is a phase's (read from the phases' histograms): `ttfb.p95` is, `p99.9` is not. */
export const isPhaseMetric = (metric: string): metric is PhaseMetric => PHASE_METRIC_SET.has(metric);
/** The metrics a threshold can name. */
export const THRESHOLD_METRICS: readonly ThresholdMetric[] = [...TOTAL_METRICS, ...PHASE_METRICS];

/** The percentile of each percentile metric of the total latency. */
export const PERCENTILES: Partial<Record<ThresholdMetric, number>> = LATENCY_PERCENTILES;
const LATENCY_STATS = new Set<string>([...Object.keys(PERCENTILES), 'avg', 'min', 'max']);

export const OPERATORS = ['<=', '>=', '==', '!=', '<', '>'] as const;
export type Operator = (typeof OPERATORS)[number];

/** k6's metrics, and what each is of ours: the total latency, the failures, the requests, or a phase. */
const K6_METRICS: Record<string, 'duration' | 'failed' | 'reqs' | Phase> = {
  http_req_duration: 'duration',
  http_req_failed: 'failed',
  http_reqs: 'reqs',
  http_req_waiting: 'ttfb',
  http_req_connecting: 'connect',
  http_req_tls_handshaking: 'tls',
  // k6's blocked is the wait before a request could go out: its name lookup is most of it.
  http_req_blocked: 'dns',
  http_req_receiving: 'transfer',
};

/** What each metric's number is, and the units it may be written in (the factor to ours). */
const TIME: Record<string, number> = { '': 1, ms: 1, s: 1000, us: 0.001, µs: 0.001 };
const PERCENT: Record<string, number> = { '': 1, '%': 1 };
/** k6's `rate` of http_req_failed: a fraction of 1, or a percentage written with %. */
const FRACTION: Record<string, number> = { '': 100, '%': 1 };
const PER_SECOND: Record<string, number> = { '': 1, '/s': 1, rps: 1, 'req/s': 1, 'reqs/s': 1 };
const COUNT: Record<string, number> = { '': 1 };
const SECONDS: Record<string, number> = { '': 1, s: 1 };

/** The metrics not counted in milliseconds: what each one's number is, and its units. */
const NOT_TIME: Partial<Record<ThresholdMetric, { is: string; units: Record<string, number> }>> = {
  error_rate: { is: 'a percentage of attempts', units: PERCENT },
  status_5xx_rate: { is: 'a percentage of requests', units: PERCENT },
  throughput: { is: 'requests per second', units: PER_SECOND },
  seconds_without_traffic: { is: 'seconds', units: SECONDS },
  total_requests: { is: 'a count', units: COUNT },
  connection_errors: { is: 'a count', units: COUNT },
  shard_restarts: { is: 'a count', units: COUNT },
};
const measureOf = (metric: ThresholdMetric) => NOT_TIME[metric] ?? { is: 'milliseconds', units: TIME };

/** An expression read: our metric, the operator, the value in our units, and the expression as we write it. */
export interface ReadExpression {
  metric: ThresholdMetric;
  op: Operator;
  value: number;
  threshold: string;
}

/** What is wrong with an expression; `metrics`: the fault is its metric (the known ones are worth listing). */
export interface ExpressionFault {
  fault: string;
  metrics?: true;
}

/**
 * `[<k6 metric>: ]<statistic or metric> <operator> <number>[<unit>]`, read loosely (operators people
 * mistype too). No two quantifiers over spaces meet (one inside an optional group at most): they had
 * taken time quadratic in a run of spaces (2.9 s for 60 KB).
 */
const EXPRESSION = new RegExp(
  [
    String.raw`^\s*(?:([a-z_][a-z0-9_]*)(?:\s*:\s*|\s+)(?=[a-z]))?`, // k6's metric, before a colon or a space
    String.raw`([a-z_][a-z0-9_.]*(?:\(\s*(?:[0-9.]+\s*)?\))?)\s*`, // ours (p95, ttfb.p95), or k6's statistic (p(95))
    String.raw`(===|==|!=|<=|>=|=>|=<|<|>|=)\s*`,
    String.raw`(-?(?:\d+(?:\.\d*)?|\.\d+))(?:\s*([a-zµ%/]+))?\s*$`, // the number and its unit
  ].join(''),
  'i',
);
/** The longest expression read (k6's longest, `http_req_duration: p(99.9) < 1500ms`, is 37 characters). */
export const MAX_EXPRESSION_LENGTH = 200;
/** Operators as they are mistyped, and the one meant. */
const OPERATOR_SLIPS: Record<string, Operator> = { '=': '==', '=>': '>=', '=<': '<=' };
/** Words people reach for, and the metric nearest to what they mean. */
const ALIASES: Record<string, string> = {
  latency: 'p95',
  duration: 'p95',
  response_time: 'avg',
  p95_response_time: 'p95',
  errors: 'error_rate',
  failed: 'error_rate',
  failure_rate: 'error_rate',
  rps: 'throughput',
  requests: 'total_requests',
};

const number = (n: number) => String(Math.round(n * 1e9) / 1e9);

/** `text` read into one of our metrics, or what is wrong with it. */
export function readExpression(text: string): ReadExpression | ExpressionFault {
  const quoted = `"${text.slice(0, 80)}"`;
  if (text.length > MAX_EXPRESSION_LENGTH)
    return { fault: `${quoted}...: an expression is at most ${MAX_EXPRESSION_LENGTH} characters` };
  if (/[{}]/.test(text))
    return { fault: `${quoted}: k6's sub-metrics ({...}) are not read: a threshold is of every request of the test` };
  const m = EXPRESSION.exec(text);
  if (!m)
    return { fault: `${quoted} is not <metric> <operator> <number> (for example "p95 < 300", or k6's "p(95)<300")` };
  const prefix = m[1]?.toLowerCase();
  const word = m[2]!.toLowerCase().replace(/\s+/g, '');
  const [given, digits, unitGiven = ''] = [m[3]!, m[4]!, m[5]];
  const read = metricOf(prefix, word);
  if ('fault' in read) {
    const near = read.near && `${read.near} ${OPERATOR_SLIPS[given] ?? given} ${digits}${unitGiven}`;
    return {
      fault: `${quoted}: ${read.fault}${near ? ` (did you mean "${near}"?)` : ''}`,
      ...(read.metrics ? { metrics: true } : {}),
    };
  }
  const units = read.fraction ? FRACTION : measureOf(read.metric).units;
  const factor = units[unitGiven.toLowerCase()];
  if (factor === undefined) {
    const what = read.fraction ? 'a fraction of 1 (0.01 is 1 %)' : measureOf(read.metric).is;
    const allowed = Object.keys(units).filter(Boolean);
    const which = allowed.length ? `its units are ${allowed.join(', ')}` : 'it takes no unit';
    return {
      fault: `${quoted}: ${read.metric} is ${what}: ${which} (did you mean "${read.metric} ${given} ${digits}"?)`,
    };
  }
  const value = Math.round(Number(digits) * factor * 1e9) / 1e9;
  const op = (given === '===' ? '==' : given) as Operator;
  if (!OPERATORS.includes(op))
    return {
      fault:
        `${quoted} is not <metric> <operator> <number>: ${given} is not an operator ` +
        `(did you mean "${read.metric} ${OPERATOR_SLIPS[given]} ${number(value)}"?)`,
    };
  return { metric: read.metric, op, value, threshold: `${read.metric} ${op} ${number(value)}` };
}

type Read = { metric: ThresholdMetric; fraction?: true } | { fault: string; near?: string; metrics?: true };

/** Our metric for the statistic `word` (after k6's metric `prefix`, when given), or what is wrong with them. */
function metricOf(prefix: string | undefined, word: string): Read {
  const percentile = /^p(?:\((\d+(?:\.\d+)?|\.\d+)\)|(\d+(?:\.\d+)?))$/.exec(word);
  const q = percentile ? Number(percentile[1] ?? percentile[2]) : 0;
  const stat = percentile ? `p${number(q)}` : word === 'med' ? 'p50' : word;
  const before = prefix ? `${prefix}: ` : '';
  if (percentile && !(stat in PERCENTILES))
    return {
      fault: `unknown metric ${stat}: the percentiles kept are 50, 75, 90, 95, 99 and 99.9`,
      near: `${before}${percentile[1] === undefined ? `p${nearestPercentile(q)}` : `p(${nearestPercentile(q)})`}`,
    };
  if (prefix === undefined) {
    if (stat === 'rate') return { metric: 'error_rate', fraction: true };
    if (stat === 'count') return { metric: 'total_requests' };
    if ((THRESHOLD_METRICS as readonly string[]).includes(stat)) return { metric: stat as ThresholdMetric };
    const of = K6_METRICS[stat];
    if (of !== undefined)
      return {
        fault: `${word} needs a statistic`,
        near: `${word}: ${of === 'failed' ? 'rate' : of === 'reqs' ? 'rate' : 'p(95)'}`,
      };
    return {
      fault: `unknown metric ${word.slice(0, 40)}`,
      near:
        ALIASES[word] ??
        ALIASES[nearest(word, Object.keys(ALIASES)) ?? ''] ??
        nearest(word, [...THRESHOLD_METRICS, 'med', 'rate', 'count']) ??
        undefined,
      metrics: true,
    };
  }
  const of = K6_METRICS[prefix];
  if (of === undefined) {
    if (prefix === 'http_req_sending')
      return {
        fault: "http_req_sending is not timed apart: it is in ttfb (k6's http_req_waiting)",
        near: `http_req_waiting: ${word}`,
      };
    const k6 = nearest(prefix, Object.keys(K6_METRICS));
    return { fault: `unknown metric ${prefix.slice(0, 40)}`, ...(k6 ? { near: `${k6}: ${word}` } : {}), metrics: true };
  }
  if (of === 'duration' && LATENCY_STATS.has(stat)) return { metric: stat as ThresholdMetric };
  if (of === 'failed' && (stat === 'rate' || stat === 'error_rate'))
    return stat === 'rate' ? { metric: 'error_rate', fraction: true } : { metric: 'error_rate' };
  if (of === 'reqs' && (stat === 'count' || stat === 'rate'))
    return { metric: stat === 'count' ? 'total_requests' : 'throughput' };
  if (of !== 'duration' && of !== 'failed' && of !== 'reqs' && stat in PHASE_STATS)
    return { metric: `${of}.${stat}` as PhaseMetric };
  const has =
    of === 'failed'
      ? 'rate'
      : of === 'reqs'
        ? 'count and rate'
        : `p(N), avg, med${of === 'duration' ? ', min' : ''} and max`;
  const near =
    stat === 'rate'
      ? 'http_req_failed: rate'
      : stat === 'count'
        ? 'http_reqs: count'
        : LATENCY_STATS.has(stat)
          ? `http_req_duration: ${word}`
          : undefined;
  return { fault: `${prefix} has no statistic ${word.slice(0, 20)} (it has ${has})`, ...(near ? { near } : {}) };
}

function nearestPercentile(q: number): string {
  const known = Object.values(PERCENTILES) as number[];
  return number(known.reduce((best, p) => (Math.abs(p - q) <= Math.abs(best - q) ? p : best), known[0]!));
}

/** The name of `names` that `word` is a slip of the keyboard away from, or null. */
function nearest(word: string, names: readonly string[]): string | null {
  let best: { name: string; d: number } | null = null;
  for (const name of names) {
    const d = distance(word, name);
    if (d <= Math.max(1, Math.floor(name.length / 3)) && (!best || d < best.d)) best = { name, d };
  }
  return best?.name ?? null;
}

/** The metrics, as a fault lists them. */
export const KNOWN_METRICS =
  `one of ${TOTAL_METRICS.join(', ')}, or <phase>.<statistic> with a phase of ${PHASES.join(', ')} ` +
  `and a statistic of ${Object.keys(PHASE_STATS).join(', ')}; ` +
  `or k6's p(N), avg, med, min, max, rate, count, alone or after ${Object.keys(K6_METRICS).join(', ')}`;
