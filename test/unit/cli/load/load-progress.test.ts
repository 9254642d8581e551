// The progress line's fields (cli/load/load-progress.ts): the users counted in words that agree with
// their number, and the connection errors said apart.
import { describe, expect, it } from 'vitest';
import { payload, type LiveStatus } from '../../../../cli/load/load-progress.ts';

const status = (users: number | undefined, connectionErrors = 0): LiveStatus => ({
  status: 'running',
  progress: 50,
  metrics: {
    total_requests: 3,
    throughput: 1,
    error_rate: 0,
    avg_response_time: 1,
    connection_errors: connectionErrors,
  },
  started_at: null,
  estimated_completion: null,
  config: { concurrent_users: users, test_duration: 10 },
});

describe('load progress line', () => {
  it('says 1 user, 2 users, and ? users before the config is known', () => {
    expect(payload(status(1)).users).toBe('1 user');
    expect(payload(status(2)).users).toBe('2 users');
    expect(payload(status(undefined)).users).toBe('? users');
    expect(payload(status(2, 1)).errors).toBe('0% (1 connection error)');
  });
});
