// A threshold's expression in our words or k6's, read into one of our metrics with its value in our
// units; a fault names the nearest form that would be read.
import { describe, expect, it } from 'vitest';
import { readExpression } from '../../../../contract/load/threshold-words.ts';

const read = (text: string) => {
  const r = readExpression(text);
  return 'fault' in r ? r.fault : r.threshold;
};

describe('threshold expressions', () => {
  it.each([
    // ours, whatever the case and spacing
    ['p95 < 300', 'p95 < 300'],
    ['P95 < 300', 'p95 < 300'],
    ['  p99.9   >=  1.5 ', 'p99.9 >= 1.5'],
    ['Error_Rate < 1', 'error_rate < 1'],
    ['ttfb.p95 < 200', 'ttfb.p95 < 200'],
    ['connection_errors == 0', 'connection_errors == 0'],
    // k6's statistics, alone: on http_req_duration, rate on http_req_failed, count on http_reqs
    ['p(95)<300', 'p95 < 300'],
    ['p(99.9)<500', 'p99.9 < 500'],
    ['p(90.0) <= 250', 'p90 <= 250'],
    ['avg<200', 'avg < 200'],
    ['med<100', 'p50 < 100'],
    ['min>1', 'min > 1'],
    ['max<1000', 'max < 1000'],
    ['rate<0.01', 'error_rate < 1'],
    ['rate<0.07', 'error_rate < 7'],
    ['count>100', 'total_requests > 100'],
    ['p(95)===300', 'p95 == 300'],
    // after k6's metric names
    ['http_req_duration: p(95)<300', 'p95 < 300'],
    ['HTTP_REQ_DURATION p(95) < 300', 'p95 < 300'],
    ['http_req_failed: rate<0.01', 'error_rate < 1'],
    ['http_reqs: count>1000', 'total_requests > 1000'],
    ['http_reqs: rate>100', 'throughput > 100'],
    ['http_req_waiting: p(95)<200', 'ttfb.p95 < 200'],
    ['http_req_connecting: max<50', 'connect.max < 50'],
    ['http_req_tls_handshaking: avg<10', 'tls.avg < 10'],
    ['http_req_blocked: p(99)<5', 'dns.p99 < 5'],
    ['http_req_receiving: med<3', 'transfer.p50 < 3'],
    // units on the number
    ['p95 < 300ms', 'p95 < 300'],
    ['p95 < 3 ms', 'p95 < 3'],
    ['p(95)<1.5s', 'p95 < 1500'],
    ['avg < 800us', 'avg < 0.8'],
    ['error_rate < 1%', 'error_rate < 1'],
    ['http_req_failed: rate<1%', 'error_rate < 1'],
    ['throughput > 100/s', 'throughput > 100'],
    ['seconds_without_traffic <= 2s', 'seconds_without_traffic <= 2'],
  ])('reads %j as %j', (text, ours) => {
    expect(read(text)).toBe(ours);
  });

  it.each([
    ['p(97)<300', /unknown metric p97: the percentiles kept are .* \(did you mean "p\(99\) < 300"\?\)/],
    ['p97 < 300', /did you mean "p99 < 300"\?/],
    ['latency < 300', /unknown metric latency \(did you mean "p95 < 300"\?\)/],
    ['erorr_rate < 1', /unknown metric erorr_rate \(did you mean "error_rate < 1"\?\)/],
    ['error_rate < 1ms', /error_rate is a percentage of attempts: its units are % \(did you mean "error_rate < 1"\?\)/],
    ['total_requests > 5s', /total_requests is a count: it takes no unit/],
    ['rate < 1ms', /error_rate is a fraction of 1/],
    ['p95 => 300', /is not <metric> <operator> <number>: => is not an operator \(did you mean "p95 >= 300"\?\)/],
    ['p(95) = 0.3s', /= is not an operator \(did you mean "p95 == 300"\?\)/],
    [
      'http_req_duration < 300',
      /http_req_duration needs a statistic \(did you mean "http_req_duration: p\(95\) < 300"\?\)/,
    ],
    ['http_req_duration: rate<0.01', /has no statistic rate .*\(did you mean "http_req_failed: rate < 0.01"\?\)/],
    ['http_req_failed: p(95)<300', /has no statistic p\(95\) .*\(did you mean "http_req_duration: p\(95\) < 300"\?\)/],
    ['http_req_sending: p(95)<10', /not timed apart.*\(did you mean "http_req_waiting: p\(95\) < 10"\?\)/],
    [
      'http_req_duraton: p(95)<300',
      /unknown metric http_req_duraton \(did you mean "http_req_duration: p\(95\) < 300"\?\)/,
    ],
    ['http_req_duration{status:200}: p(95)<300', /sub-metrics/],
    ['p99 <', /"p99 <" is not <metric> <operator> <number>/],
    ['p99 < abc', /is not <metric> <operator> <number>/],
  ])('refuses %j with the nearest form', (text, fault) => {
    const r = readExpression(text);
    expect('fault' in r && r.fault).toMatch(fault);
  });

  it('reads expressions up to 200 characters, spaces anywhere, and refuses a longer one by its length', () => {
    const spaced = `http_req_duration${' '.repeat(40)}:${' '.repeat(40)}p(${' '.repeat(20)}95)${' '.repeat(40)}<300 ms`;
    expect(readExpression(spaced)).toMatchObject({ threshold: expect.any(String) });
    const long = `a${' '.repeat(20_000)}a${' '.repeat(20_000)}<${' '.repeat(20_000)}!`;
    expect(readExpression(long)).toMatchObject({ fault: expect.stringMatching(/at most 200 characters$/) });
  });

  it('marks a fault of the metric, so that the known metrics are listed with it', () => {
    expect(readExpression('latency < 3')).toMatchObject({ metrics: true });
    expect(readExpression('error_rate < 1ms')).not.toHaveProperty('metrics');
  });
});
