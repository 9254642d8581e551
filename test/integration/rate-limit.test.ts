import { afterAll, describe, expect, it } from 'vitest';
import { call, expectErrorShape, freshWindow, newAccount, targets } from '../support/client.ts';
import { startApp, tempDir, type AppProcess } from '../support/processes.ts';

const path = '/api/v1/network/my-webhooks';

describe.each(targets())('rate limits ($name)', (target) => {
  it(
    'lets the free plan make 10 requests a minute, ' + 'then answers 429 with Retry-After and RateLimit headers',
    async () => {
      const { key } = await newAccount(target, 'free');
      await freshWindow();
      for (let i = 1; i <= 10; i++) {
        const reply = await call(target, 'GET', path, { key });
        expect(reply.status, `request ${i}`).toBe(200);
        expect(reply.headers.get('ratelimit-limit')).toBe('10');
        expect(reply.headers.get('ratelimit-remaining')).toBe(String(10 - i));
        const reset = Number(reply.headers.get('ratelimit-reset'));
        expect(reset).toBeGreaterThanOrEqual(1);
        expect(reset).toBeLessThanOrEqual(60);
      }
      const refused = await call(target, 'GET', path, { key });
      expectErrorShape(refused, 429);
      expect(refused.body.message).toMatch(/10 requests per minute/);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('ratelimit-policy')).toBe('10;w=60, 100;w=86400');
    },
  );

  it('counts per user, so another user is not limited by the first', async () => {
    const a = await newAccount(target, 'free');
    const b = await newAccount(target, 'free');
    await freshWindow();
    for (let i = 0; i < 10; i++) await call(target, 'GET', path, { key: a.key });
    expect((await call(target, 'GET', path, { key: a.key })).status).toBe(429);
    expect((await call(target, 'GET', path, { key: b.key })).status).toBe(200);
  });

  it('allows the pro plan exactly 100 requests a minute', async () => {
    const { key } = await newAccount(target, 'pro');
    await freshWindow();
    const statuses = [];
    for (let i = 0; i < 100; i++) statuses.push((await call(target, 'GET', path, { key })).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect((await call(target, 'GET', path, { key })).status).toBe(429);
  });

  it('counts concurrent requests exactly: 30 at once on the free plan, 10 pass', async () => {
    const { key } = await newAccount(target, 'free');
    await freshWindow();
    const replies = await Promise.all(Array.from({ length: 30 }, () => call(target, 'GET', path, { key })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(10);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(20);
  });
});

// Two API processes that share one Redis (and one database) must enforce one limit between them.
const external = targets().find((t) => t.name === 'external' && t.env.REDIS_URL && t.env.DATABASE_URL);
if (external)
  describe('rate limits across API processes sharing Redis', () => {
    let second: AppProcess | undefined;
    afterAll(() => second?.stop());

    it('refuses the 11th free-plan request whichever process gets it', async () => {
      const first = external!;
      second = await startApp({
        ...first.env,
        ROLE: 'api',
        PORT: '',
        TEMPORAL_ADDRESS: first.temporalAddress,
        DATA_DIR: await tempDir('second-api'),
      });
      const secondTarget = { ...first, baseUrl: second.baseUrl };
      const { key } = await newAccount(first, 'free');
      await freshWindow();
      const statuses = [];
      for (let i = 0; i < 12; i++)
        statuses.push((await call(i % 2 ? secondTarget : first, 'GET', path, { key })).status);
      expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
      expect(statuses.slice(10)).toEqual([429, 429]);
    });
  });
