// Pass/fail thresholds of a load test as the start body gives them, read: as k6 writes them ("p(95)<300",
// "http_req_failed: rate<0.01") or as we do ("p95 < 300", "error_rate < 1": threshold-words.ts reads
// both). A threshold may abort the test when it fails (`abortOnFail`), once `delayAbortEval` seconds of
// the test have passed. The start body gives them as a list, or as k6's object of lists by metric
// ({"http_req_duration": ["p(95)<300"]}); every refused one is named. domain/load/metrics/thresholds.ts
// evaluates them.
import type { LoadThreshold } from '../../lib/jobs/load-test.ts';
import { DURATION_EXAMPLES, parseDuration } from '../../lib/duration.ts';
import { KNOWN_METRICS, readExpression, type Operator, type ThresholdMetric } from './threshold-words.ts';

/**
 * `threshold` is the expression as we write it (the name results use); `delayAbortEval` seconds from
 * the test's start.
 */
export interface Threshold extends LoadThreshold {
  metric: ThresholdMetric;
  op: Operator;
}

export const MAX_THRESHOLDS = 20;

/** A threshold refused: what is wrong, and whether the metric is (the known ones are then worth listing). */
interface Refusal {
  fault: string;
  metrics?: true;
}

function readThreshold(given: unknown): Threshold | Refusal {
  const object = typeof given === 'object' && given !== null ? (given as Record<string, unknown>) : null;
  const expression = object ? object.threshold : given;
  if (typeof expression !== 'string')
    return { fault: 'must be an expression such as "p95 < 300", or {"threshold": "...", "abortOnFail": true}' };
  const read = readExpression(expression);
  if ('fault' in read) return read;
  const quoted = `"${expression.slice(0, 80)}"`;
  let delay = 0;
  if (object) {
    const extra = Object.keys(object).filter((k) => !['threshold', 'abortOnFail', 'delayAbortEval'].includes(k));
    if (extra.length)
      return { fault: `${quoted}: unknown field ${extra[0]!.slice(0, 40)} (threshold, abortOnFail, delayAbortEval)` };
    if (object.abortOnFail !== undefined && typeof object.abortOnFail !== 'boolean')
      return { fault: `${quoted}: abortOnFail must be true or false` };
    // k6 writes "10s"; a number is seconds too (lib/duration.ts, as testDuration reads them).
    const seconds = object.delayAbortEval === undefined ? 0 : parseDuration(object.delayAbortEval);
    if (seconds === null || seconds > 3600)
      return { fault: `${quoted}: delayAbortEval must be seconds from 0 to 3600 (${DURATION_EXAMPLES})` };
    delay = seconds;
  }
  return {
    threshold: read.threshold,
    metric: read.metric,
    op: read.op,
    value: read.value,
    abortOnFail: object?.abortOnFail === true,
    delayAbortEval: delay,
  };
}

const message = (r: Refusal) => (r.metrics ? `${r.fault}; ${KNOWN_METRICS}` : r.fault);

/**
 * One threshold as the start body gives it (a string, or an object as k6 writes it); a message naming
 * the fault when it is not one.
 */
export function parseThreshold(given: unknown): Threshold | string {
  const read = readThreshold(given);
  return 'fault' in read ? message(read) : read;
}

/**
 * The thresholds field as a list: k6's object form, {"http_req_duration": ["p(95)<300", {"threshold":
 * "p(99)<500", "abortOnFail": true}]}, becomes each expression after its metric's name
 * ("http_req_duration: p(95)<300"); a list stays as it is (so reading it twice gives the same list).
 */
export function thresholdList(given: Readonly<Record<string, readonly unknown[]>> | readonly unknown[]): unknown[] {
  if (Array.isArray(given)) return [...given];
  return Object.entries(given).flatMap(([metric, list]) =>
    (list as readonly unknown[]).map((t) => {
      if (typeof t === 'string') return `${metric}: ${t}`;
      if (typeof t === 'object' && t !== null && typeof (t as { threshold?: unknown }).threshold === 'string')
        return { ...t, threshold: `${metric}: ${(t as { threshold: string }).threshold}` };
      return t;
    }),
  );
}

/**
 * Every refused threshold of `list` at once: none (null); one, named by its place (`path` [i]); or
 * several, named in one message at the list (the metrics listed once, at its end).
 */
export function refusedThresholds(list: readonly unknown[]): { path: number[]; message: string } | null {
  const refused = list.flatMap((t, i) => {
    const read = readThreshold(t);
    return 'fault' in read ? [{ i, read }] : [];
  });
  if (!refused.length) return null;
  if (refused.length === 1) return { path: [refused[0]!.i], message: message(refused[0]!.read) };
  const each = refused.map(({ i, read }) => `${i}: ${read.fault}`).join('; ');
  const listed = refused.some(({ read }) => read.metrics) ? `. Metrics: ${KNOWN_METRICS}` : '';
  return { path: [], message: `${refused.length} of ${list.length} thresholds refused: ${each}${listed}` };
}
