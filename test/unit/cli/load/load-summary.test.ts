// The end-of-test summary (cli/load/load-summary.ts) counts in words that agree with their number:
// "1 connection", "1 attempt", "1 req" where the count is one, the plural otherwise.
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { summary, type Results } from '../../../../cli/load/load-summary.ts';

const results = (over: Partial<Results>): Results => ({
  total_requests: 1,
  successful_requests: 1,
  failed_requests: 0,
  total_bytes_sent: 100,
  total_bytes_received: 200,
  avg_response_time: 1,
  min_response_time: 1,
  max_response_time: 1,
  p50_response_time: 1,
  p90_response_time: 1,
  p95_response_time: 1,
  p99_response_time: 1,
  throughput: 1,
  error_rate: 0,
  ...over,
});
const text = (r: Results) => stripVTControlCharacters(summary({ test_id: 't', status: 'completed', results: r }));

describe('load summary', () => {
  it.each([
    {
      n: 1,
      said: ['(1 connection, server allows 1 stream each)', '1 attempt not sent', '(1 of 2 attempts)', '1 req, 0%'],
    },
    {
      n: 2,
      said: ['(2 connections, server allows 2 streams each)', '2 attempts not sent', '(2 of 4 attempts)', '2 reqs, 0%'],
    },
  ])('says $n of a thing in words that agree with the number', ({ n, said }) => {
    const summed = text(
      results({
        total_requests: n,
        connection_errors: n,
        protocols: { h2: n },
        http2: { connections: n, server_max_concurrent_streams: n },
        steps: [{ step: 1, name: 'login', requests: n, error_rate: 0, p95_response_time: 1 }],
      }),
    );
    for (const words of said) expect(summed).toContain(words);
    expect(summed).not.toMatch(/\b1 (connections|streams|attempts|reqs)\b/);
  });
});
