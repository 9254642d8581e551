// A load test as the report shows it (api/services/load-tests/load-report.ts's ReportTest): failed after
// 10 s of 2 users' GETs to `targetUrl`, one step, 10 requests of HTTP/1.1 answered 200, three seconds of
// series; `over` sets the rest.
import type { ReportTest } from '../../api/services/load-tests/load-report.ts';
import { loadTestConfig } from './load-config.ts';

export const reportTest = (id: string, targetUrl: string, over: Partial<ReportTest> = {}): ReportTest => ({
  test_id: id,
  status: 'failed',
  config: loadTestConfig(targetUrl),
  started_at: '2026-11-23T10:00:00.000Z',
  completed_at: '2026-11-23T10:00:10.000Z',
  failure_reason: null,
  verdict: 'failed',
  aborted_by: null,
  thresholds: [{ threshold: 'p99 < 1', observed: 3, pass: false }],
  summary: { total_requests: 10, throughput: 1, p95_response_time: 2 },
  phases: null,
  steps: [
    {
      step: 1,
      name: 'home',
      requests: 1,
      failed_requests: 0,
      error_rate: 0,
      capture_failures: 0,
      avg_response_time: 1,
      p50_response_time: 1,
      p95_response_time: 1,
      p99_response_time: 1,
      max_response_time: 1,
      status_codes: {},
    },
  ],
  status_codes: { '200': 10 },
  errors: {},
  protocols: { 'http/1.1': 10 },
  http2: null,
  series: {
    requests_per_second: [1, 2, 3],
    error_rate_per_second: [0, 0, 0],
    avg_response_time_per_second: [1, 1, 1],
    max_response_time_per_second: [2, 2, 2],
    errors_per_second: [0, 1, 0],
    p50_response_time_per_second: [1, 1, 1],
    p95_response_time_per_second: [1.5, 2, 1.5],
    p99_response_time_per_second: [2, 2, 2],
  },
  ...over,
});
