// A connection's requests with their headers in the server's dynamic table (HPACK): inserted by its first
// request, then an index each, against Node's HTTP/2 server (nghttp2), which must read every request's
// headers whole with its table at the default size, smaller, or off (a smaller table must be told).
import { afterAll, describe, expect, it } from 'vitest';
import { ShardGenerator, type ShardPlan } from '../../../../../domain/load/generator.ts';
import { startH2Target, type H2Target } from '../../../../fixtures/h2-target.ts';

const TOKEN = `Bearer t-${'1'.repeat(400)}`;

function plan(url: string): ShardPlan {
  const startAt = Date.now();
  return {
    target: {
      url,
      method: 'GET',
      headers: { authorization: TOKEN },
      insecureTls: true,
      httpVersion: '2',
      streamsPerConnection: 10,
    },
    users: 10,
    firstUser: 0,
    totalUsers: 10,
    startAt,
    endAt: startAt + 500,
    rampUpMs: 0,
    rate: 0,
    requestTimeoutMs: 2000,
    allow: ['127.0.0.1/32'],
  };
}

describe.each([
  ['at its default size', undefined, true],
  ['at 100 bytes, too small for the headers', 100, false],
  ['off (0)', 0, false],
] as const)('a server whose header table is %s', (_, headerTableSize, indexes) => {
  let site: H2Target;
  afterAll(() => site?.close());

  it.each(['h2Url', 'h2cUrl'] as const)('reads every request whole (%s)', async (key) => {
    site ??= await startH2Target(headerTableSize === undefined ? {} : { headerTableSize });
    site.reset();
    const result = await (await ShardGenerator.create(plan(`${site[key]}/orders`))).run();
    // /orders answers 401 unless the token came whole.
    expect(result.errors).toEqual({});
    expect(result.total).toBeGreaterThan(50);
    expect(result.statusCodes).toEqual({ 200: result.total });
    expect(site.paths['/orders']?.h2).toBe(result.total);
    // The 400-byte token once a connection when the table holds it, else on every request.
    const perRequest = result.bytesSent / result.total;
    if (indexes) expect(perRequest).toBeLessThan(100);
    else expect(perRequest).toBeGreaterThan(400);
  });
});
