// A shard's load generator and the SSRF guard: a refused URL or literal address is the guard's error
// before any connection; a name is checked by each connection's lookup, and a refusal there is that
// request's error. The one server is on loopback, started here, and counts the connections it accepts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShardGenerator, type ShardPlan } from '../../../../domain/load/generator.ts';
import { ForbiddenAddressError } from '../../../../lib/net/target-guard.ts';
import { startLoadTarget, type LoadTarget } from '../../../fixtures/load-target.ts';

function plan(url: string, allow: readonly string[] = [], durationMs = 10_000): ShardPlan {
  const startAt = Date.now();
  return {
    target: { url, method: 'GET', headers: {} },
    users: 1,
    firstUser: 0,
    totalUsers: 1,
    startAt,
    endAt: startAt + durationMs,
    rampUpMs: 0,
    rate: 0,
    requestTimeoutMs: 1000,
    allow,
  };
}

describe('shard generator target', () => {
  let site: LoadTarget;
  let port = '';
  beforeAll(async () => {
    site = await startLoadTarget();
    port = new URL(site.url).port;
  });
  afterAll(() => site.close());

  it.each(['http://10.0.0.1/', 'http://[::ffff:10.0.0.1]/', 'http://169.254.169.254/latest/meta-data/'])(
    'refuses the literal private address of %s with the guard error',
    async (url) => {
      const refusal = ShardGenerator.create(plan(url));
      await expect(refusal).rejects.toBeInstanceOf(ForbiddenAddressError);
      await expect(refusal).rejects.toMatchObject({
        status: 400,
        field: 'targetUrl',
        message: expect.stringMatching(/^targetUrl: target not allowed: /),
      });
    },
  );

  it(
    'refuses a loopback target: a literal before the test, a name resolving to it on every connection, never ' +
      'connecting',
    async () => {
      const before = site.connections;
      await expect(ShardGenerator.create(plan(`http://127.0.0.1:${port}/`))).rejects.toBeInstanceOf(
        ForbiddenAddressError,
      );
      await expect(ShardGenerator.create(plan(`http://[::1]:${port}/`))).rejects.toBeInstanceOf(ForbiddenAddressError);
      const byName = await (await ShardGenerator.create(plan(`http://localhost:${port}/`, [], 300))).run();
      // The guard's refusal is a connection error: no request reached anyone.
      expect(byName.total).toBe(0);
      expect(byName.connectionErrors).toBeGreaterThan(0);
      expect(byName.errors).toEqual({ ForbiddenAddressError: byName.connectionErrors });
      expect(site.connections).toBe(before);
    },
  );

  it('refuses what is not an http(s) URL as invalid input naming targetUrl', async () => {
    await expect(ShardGenerator.create(plan('ftp://example.com/'))).rejects.toMatchObject({
      status: 400,
      field: 'targetUrl',
      message: expect.stringMatching(/only http and https/),
    });
  });

  it('loads an allowed target through the checked URL', async () => {
    const generator = await ShardGenerator.create(plan(`${site.url}/allowed`, ['127.0.0.1/32'], 300));
    const result = await generator.run();
    expect(result.total).toBeGreaterThan(0);
    expect(site.count('/allowed')).toBe(result.total);
    expect(result.statusCodes).toEqual({ 200: result.total });
    expect(result.errors).toEqual({});
  });
});
