// The report of an ended load test (and, side by side, another of the caller's): everything its
// results hold that a person keeps or compares (configuration, verdict and thresholds, totals and
// percentiles, phases, status codes and error kinds, each second's figures with the percentiles its
// results keep), as one JSON document that api/pages/load-report.ts turns into one
// self-contained HTML file. Owner checks as everywhere: another user's test is an unknown one.
import type { FinalResults, LoadTestConfig } from '../../../lib/jobs/load-test.ts';
import { InvalidInputError } from '../../../lib/errors.ts';
import type { LoadTestService } from './load-tests.ts';

const SUMMARY = [
  'total_requests',
  'successful_requests',
  'failed_requests',
  'connection_errors',
  'error_rate',
  'throughput',
  'duration_seconds',
  'dropped_requests',
  'requests_lost',
  'shard_restarts',
  'seconds_without_traffic',
  'avg_response_time',
  'min_response_time',
  'p50_response_time',
  'p75_response_time',
  'p90_response_time',
  'p95_response_time',
  'p99_response_time',
  'max_response_time',
  'total_bytes_sent',
  'total_bytes_received',
] as const satisfies ReadonlyArray<keyof FinalResults>;

export interface ReportTest {
  test_id: string;
  status: string;
  config: LoadTestConfig;
  started_at: string | null;
  completed_at: string | null;
  failure_reason: string | null;
  verdict: 'passed' | 'failed' | null;
  /** Why it failed (target_unreachable: every attempt failed), and in words. */
  verdict_reason?: FinalResults['verdict_reason'] | null;
  verdict_detail?: string | null;
  aborted_by: string | null;
  thresholds: NonNullable<FinalResults['thresholds']>;
  summary: Partial<Record<(typeof SUMMARY)[number], number>>;
  phases: FinalResults['phases'] | null;
  steps: NonNullable<FinalResults['steps']>;
  status_codes: Record<string, number>;
  errors: Record<string, number>;
  /**
   * Answers by protocol (empty for tests run before it was counted); HTTP/2's connections and the
   * server's stream limit.
   */
  protocols: Record<string, number>;
  http2: FinalResults['http2'] | null;
  /**
   * Per second of the test: requests sent, and of them the % failed, mean and slowest latency (ms),
   * the errors (failed answers and connection errors) and the latency's p50, p95 and p99 (null for a
   * second without answers; all empty for results kept before the test's end kept them).
   */
  series: {
    requests_per_second: number[];
    error_rate_per_second: number[];
    avg_response_time_per_second: number[];
    max_response_time_per_second: number[];
    errors_per_second: number[];
    p50_response_time_per_second: Array<number | null>;
    p95_response_time_per_second: Array<number | null>;
    p99_response_time_per_second: Array<number | null>;
  };
}

export interface LoadReport {
  success: true;
  generated_at: string;
  /** The test, then the one it is compared with. */
  tests: ReportTest[];
}

export function loadReportService({ loadTests }: { loadTests: LoadTestService }) {
  async function one(testId: string, userId: number): Promise<ReportTest> {
    const answer = await loadTests.results(testId, userId);
    const r = (answer.results ?? {}) as Partial<FinalResults>;
    return {
      test_id: answer.test_id,
      status: answer.status,
      config: answer.config,
      started_at: answer.started_at,
      completed_at: answer.completed_at,
      failure_reason: answer.failure_reason ?? null,
      verdict: r.verdict ?? null,
      verdict_reason: r.verdict_reason ?? null,
      verdict_detail: r.verdict_detail ?? null,
      aborted_by: r.aborted_by ?? null,
      thresholds: r.thresholds ?? [],
      summary: Object.fromEntries(SUMMARY.filter((k) => typeof r[k] === 'number').map((k) => [k, r[k] as number])),
      phases: r.phases ?? null,
      steps: r.steps ?? [],
      status_codes: r.status_codes ?? {},
      errors: r.errors ?? {},
      protocols: r.protocols ?? {},
      http2: r.http2 ?? null,
      series: {
        requests_per_second: r.requests_per_second ?? [],
        error_rate_per_second: r.error_rate_per_second ?? [],
        avg_response_time_per_second: r.avg_response_time_per_second ?? [],
        max_response_time_per_second: r.max_response_time_per_second ?? [],
        // Kept with the results when the test ended (results kept before then lack them: the charts
        // draw each second's mean and slowest instead, rather than merging every second again here).
        errors_per_second: r.errors_per_second ?? [],
        p50_response_time_per_second: r.p50_response_time_per_second ?? [],
        p95_response_time_per_second: r.p95_response_time_per_second ?? [],
        p99_response_time_per_second: r.p99_response_time_per_second ?? [],
      },
    };
  }

  return {
    /** What the report holds of one ended test of the caller's (an ended test's dashboard page draws its charts). */
    test: one,
    /** The report of `testId`, with `compare` beside it; 404 for a test not the caller's, 409 while one runs. */
    async report(testId: string, userId: number, compare?: string): Promise<LoadReport> {
      if (compare !== undefined && compare === testId)
        throw new InvalidInputError('compare: must be another of your tests than test_id', 'compare');
      const tests = [await one(testId, userId), ...(compare ? [await one(compare, userId)] : [])];
      return { success: true, generated_at: new Date().toISOString(), tests };
    },
  };
}

export type LoadReportService = ReturnType<typeof loadReportService>;
