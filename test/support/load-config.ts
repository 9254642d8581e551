// A stored load test's config as tests and benchmarks write it: 2 users sending GET to `target_url`
// as fast as answered for 10 s, no ramp-up, no thresholds; `over` sets the rest.
import type { LoadTestConfig } from '../../lib/jobs/load-test.ts';

export const loadTestConfig = (target_url: string, over: Partial<LoadTestConfig> = {}): LoadTestConfig => ({
  target_url,
  concurrent_users: 2,
  test_duration: 10,
  ramp_up_time: 0,
  requests_per_second: 0,
  http_method: 'GET',
  auth_type: 'none',
  header_names: [],
  body_bytes: 0,
  insecure_tls: false,
  http_version: '1.1',
  thresholds: [],
  ...over,
});
