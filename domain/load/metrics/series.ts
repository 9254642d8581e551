// A load test's per-second series, as the series endpoint streams it: for each second of the test
// (by the second a request was sent in, since the load's start), the users, the requests sent, the
// answers to them, how many failed, their latency (mean, percentiles, slowest), their status classes
// and errors, the attempts that never became requests (connection errors), and the mean of each
// phase. Merged exactly across reports, shards and attempts
// (per-second.ts): the percentiles come from each second's histograms added bucket by bucket.
import type { SecondFigures } from '../../../lib/load/snapshot.ts';
import { type SERIES_COLUMNS, SERIES_PERCENTILES, STATUS_CLASSES } from '../../../contract/load/series-columns.ts';
import { PHASES } from '../../../lib/load/phases.ts';
import { mergeSeconds, type MergedSecond } from './per-second.ts';
import { END_GRACE_MS, REQUEST_TIMEOUT_MS } from '../shard.ts';
import { errorRate } from './totals.ts';
import { yieldToEventLoop } from '../../../lib/concurrency/slices.ts';

/**
 * A row; a second of a test stored before its seconds had histograms and statuses has null (an empty CSV cell) for
 * what they give.
 */
export type SeriesRow = Record<(typeof SERIES_COLUMNS)[number], number | string | null>;

const round2 = (n: number) => Math.round(n * 100) / 100;
const ms = (us: number) => round2(us / 1000);

/**
 * The rows of seconds [from, to) of a test that started at `startAt` (epoch ms), from its seconds
 * merged with their histograms (mergeSeconds) and its users at each second.
 */
export function seriesRows(
  seconds: readonly MergedSecond[],
  startAt: number,
  from: number,
  to: number,
  usersAt: (second: number) => number,
): SeriesRow[] {
  const rows: SeriesRow[] = [];
  for (let second = from; second < to; second += 1) {
    const s = seconds[second];
    const answered = s?.answered ?? 0;
    const h = s?.histogram ?? null;
    const statuses = Object.entries(s?.statusCodes ?? {});
    const inClass = (c: string) => statuses.reduce((n, [code, count]) => n + (code.startsWith(c) ? count : 0), 0);
    const withStatus = statuses.reduce((n, [, count]) => n + count, 0);
    const known = !s || s.detailed === answered;
    const detail = <T>(v: T): T | null => (known ? v : null);
    rows.push({
      second,
      time: new Date(startAt + second * 1000).toISOString(),
      users: usersAt(second),
      requests: s?.sent ?? 0,
      answered,
      failed: s?.failed ?? 0,
      // Of the attempts: connection errors fail too, as in the results.
      error_rate: errorRate(s?.failed ?? 0, answered, s?.connectionErrors ?? 0),
      avg_response_time: answered ? ms(s!.latencySumUs / answered) : 0,
      ...(Object.fromEntries(
        Object.entries(SERIES_PERCENTILES).map(([p, q]) => [
          `${p}_response_time`,
          // HDR gives a bucket's highest value: never above the slowest answer measured.
          detail(h?.totalCount ? ms(Math.min(h.getValueAtPercentile(q), s!.latencyMaxUs)) : 0),
        ]),
      ) as Record<`${keyof typeof SERIES_PERCENTILES}_response_time`, number | null>),
      max_response_time: ms(s?.latencyMaxUs ?? 0),
      ...(Object.fromEntries(STATUS_CLASSES.map((c) => [`status_${c}xx`, detail(inClass(c))])) as Record<
        `status_${(typeof STATUS_CLASSES)[number]}xx`,
        number | null
      >),
      errors: detail(answered - withStatus),
      connection_errors: s?.connectionErrors ?? 0,
      ...(Object.fromEntries(
        PHASES.map((p, i) => [`${p}_avg`, detail(s?.phased ? ms(s.phaseSumUs[i]! / s.phased) : 0)]),
      ) as Record<`${(typeof PHASES)[number]}_avg`, number | null>),
    });
  }
  return rows;
}

/** Seconds whose histograms are decoded at a time by secondPercentiles. */
const CHUNK_SECONDS = 60;

/**
 * Each second's p50, p95 and p99 latency in ms, as the series gives them (null for a second without
 * answers, or stored before seconds had histograms), merged from every report's histograms a minute of the test at a
 * time, the event loop free between minutes: a 1-hour test of 20 shards decodes 72,000 histograms,
 * seconds of work. Done once, when the test ends: the results keep them.
 */
export async function secondPercentiles(
  reports: ReadonlyArray<readonly SecondFigures[]>,
  seconds: number,
): Promise<Record<'p50' | 'p95' | 'p99', Array<number | null>>> {
  const out = { p50: [] as Array<number | null>, p95: [] as Array<number | null>, p99: [] as Array<number | null> };
  // Every report's seconds sorted by minute once: merging every report again for each minute made an
  // hour's test 60 passes over all of them (10 of its 13 s, 20 shards).
  const byMinute: SecondFigures[][] = [];
  for (const report of reports)
    for (const f of report) {
      const minute = Math.floor(f.second / CHUNK_SECONDS);
      byMinute[minute] ??= [];
      byMinute[minute].push(f);
    }
  for (let from = 0; from < seconds; from += CHUNK_SECONDS) {
    const to = Math.min(seconds, from + CHUNK_SECONDS);
    const merged = mergeSeconds([byMinute[from / CHUNK_SECONDS] ?? []], () => true);
    for (const row of seriesRows(merged, 0, from, to, () => 0)) {
      // A second without answers has no latency (the series says 0): a chart leaves a gap, never a fast 0.
      const at = (k: 'p50_response_time' | 'p95_response_time' | 'p99_response_time') =>
        row.answered === 0 ? null : (row[k] as number | null);
      out.p50.push(at('p50_response_time'));
      out.p95.push(at('p95_response_time'));
      out.p99.push(at('p99_response_time'));
    }
    await yieldToEventLoop();
  }
  return out;
}

/** A second is over once every shard has reported this long past its end (a request due then may still be queued). */
const SECOND_OVER_MS = 1000;

/**
 * While the test runs: how many of the seconds from `from` on are final (the series sends them, an
 * output's interval ends with them). None before every shard has reported (the count each stores);
 * then each second over for every shard whose requests have all been answered, or that is older than
 * the longest an answer may take.
 */
export function settledSeconds(
  seconds: readonly MergedSecond[],
  from: number,
  rows: ReadonlyArray<{ shard: number; snapshot: { takenAt: number; shards?: number } }>,
  startAt: number,
): number {
  const latest = new Map<number, number>();
  for (const r of rows) latest.set(r.shard, Math.max(latest.get(r.shard) ?? 0, r.snapshot.takenAt));
  const shards = Math.max(0, ...rows.map((r) => r.snapshot.shards ?? 0));
  if (!latest.size || latest.size < shards) return 0;
  const seen = Math.min(...latest.values());
  const over = Math.floor((seen - SECOND_OVER_MS - startAt) / 1000);
  const settled = Math.floor((seen - SECOND_OVER_MS - REQUEST_TIMEOUT_MS - END_GRACE_MS - startAt) / 1000);
  let second = from;
  // A second no report holds yet counts as nothing sent, nothing answered (seriesRows gives it zeros).
  for (; second < seconds.length; second++) {
    const s = seconds[second]!;
    if (second >= over || (s.answered !== s.sent && second >= settled)) break;
  }
  return second - from;
}
