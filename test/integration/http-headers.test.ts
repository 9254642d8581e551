import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectErrorShape, newAccount, targets } from '../support/client.ts';

describe.each(targets())('GET /api/v1/network/http-headers ($name)', (target) => {
  const account = newAccount(target);
  const check = async (url: string) =>
    call(target, 'GET', `/api/v1/network/http-headers?url=${encodeURIComponent(url)}`, { key: (await account).key });

  it('analyses a bare response: grade F, with every field of the spec', async () => {
    const reply = await check(`${target.siteUrl}/bare`);
    expect(reply.status).toBe(200);
    const b = reply.body;
    expect(b).toMatchObject({
      success: true,
      url: `${target.siteUrl}/bare`,
      effective_url: `${target.siteUrl}/bare`,
      http_code: 200,
      http_version: 1.1,
    });
    for (const k of ['response_time', 'execution_time_ms']) expect(typeof b[k]).toBe('number');
    for (const k of ['dns', 'connect', 'ssl', 'ttfb', 'total']) expect(typeof b.timings[k], k).toBe('number');
    expect(b.timings.ssl).toBeGreaterThan(0);
    expect(b.network).toEqual({
      primary_ip: '127.0.0.1',
      primary_port: Number(new URL(target.siteUrl).port),
      redirect_count: 0,
    });
    expect(b.size.download).toBe('<html>bare</html>'.length);
    expect(b.size.total).toBe(b.size.header + b.size.download);
    expect(b.headers['x-powered-by']).toBe('PHP/7.4.3');
    const { security, ssl_tls, cache, performance, cdn_waf, cookies } = b.analysis;
    expect(security.grade).toBe('F');
    expect(security.checks.length).toBeGreaterThanOrEqual(15);
    for (const c of security.checks) {
      expect(Object.keys(c)).toEqual(
        expect.arrayContaining([
          'name',
          'category',
          'max_score',
          'score',
          'present',
          'passed',
          'description',
          'details',
        ]),
      );
    }
    // The fixture's certificate is self-signed: reported, not fatal.
    expect(ssl_tls).toMatchObject({
      enabled: true,
      grade: 'F',
      ssl_version: 'TLSv1.3',
      certificate: { subject: 'localhost', issuer: 'localhost' },
    });
    expect(typeof ssl_tls.certificate.valid_to).toBe('string');
    expect(cache).toMatchObject({ cacheable: false });
    expect(performance).toMatchObject({ compression: 'none', http2: false, http3: false });
    expect(cdn_waf).toMatchObject({ cdn: '', waf: '' });
    expect(cookies.cookies[0]).toMatchObject({ name: 'PHPSESSID', secure: false, httponly: false });
    expect(b.overall_score).toMatchObject({ max_score: 100 });
    expect(b.overall_score.grade).toMatch(/^[DF]/);
  });

  it('reports HTTP/2 when the server offers it in the TLS handshake (ALPN)', async () => {
    const b = (await check(`${target.h2SiteUrl}/hardened`)).body;
    expect(b).toMatchObject({ http_code: 200, http_version: 2 });
    expect(b.analysis.performance.http2).toBe(true);
  });

  it(
    'follows a redirect and grades the hardened page: every test passes but HSTS, which an untrusted ' +
      'certificate voids',
    async () => {
      const b = (await check(`${target.siteUrl}/to-hardened`)).body;
      expect(b.effective_url).toBe(`${target.siteUrl}/hardened`);
      expect(b.network.redirect_count).toBe(1);
      // The fixture's certificate is self-signed: hsts-invalid-cert -20 leaves 80, so no bonuses (B+), as the
      // Observatory
      // grades it.
      expect(b.analysis.security).toMatchObject({
        score: 80,
        grade: 'B+',
        summary: { critical: 1, high: 0, medium: 0, low: 0 },
      });
      const failed = b.analysis.security.checks.filter((c: any) => c.observatory_test && !c.passed);
      expect(failed.map((c: any) => c.observatory_result)).toEqual(['hsts-invalid-cert']);
      expect(b.analysis.cookies.cookies[0]).toMatchObject({
        name: '__Host-sid',
        secure: true,
        httponly: true,
        samesite: 'Strict',
        issues: [],
      });
    },
  );

  describe('SSRF guard', () => {
    let forbidden: http.Server;
    let connections = 0;
    let port = 0;
    beforeAll(async () => {
      forbidden = http.createServer((_req, res) => res.end('secret'));
      forbidden.on('connection', () => (connections += 1));
      await new Promise<void>((r) => forbidden.listen(0, '127.0.0.2', () => r()));
      port = (forbidden.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((r) => forbidden.close(() => r())));

    it('refuses loopback targets outside NETWORK_ALLOW with 400, before connecting', async () => {
      for (const url of [`http://127.0.0.2:${port}/`, `http://[::1]:${port}/`, `http://[::ffff:127.0.0.2]:${port}/`]) {
        const reply = await check(url);
        expectErrorShape(reply, 400);
        expect(reply.body.message, url).toMatch(/target not allowed/);
      }
      expect(connections).toBe(0);
    });

    it('answers 400 for a missing or non-http url', async () => {
      expectErrorShape(await call(target, 'GET', '/api/v1/network/http-headers', { key: (await account).key }), 400);
      const ftp = await check('ftp://example.com/');
      expectErrorShape(ftp, 400);
      expect(ftp.body.message).toMatch(/^url: must be a full http:\/\/ or https:\/\/ URL/);
    });
  });
});
