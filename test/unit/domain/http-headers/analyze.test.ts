import { describe, expect, it } from 'vitest';
import { analyzeHeaders, overallScore } from '../../../../domain/http-headers/analyze.ts';

const HARDENED = {
  'content-type': 'text/html; charset=utf-8',
  'strict-transport-security': 'max-age=63072000; includeSubDomains; preload',
  'content-security-policy':
    "default-src 'self'; script-src 'self' 'nonce-abc'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'permissions-policy': 'camera=(), microphone=()',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'public, max-age=600',
  etag: '"abc"',
  'content-encoding': 'br',
  'alt-svc': 'h3=":443"; ma=86400',
  server: 'nginx',
};

/** A response over HTTPS (plain HTTP not answering, no preflight answer) unless `site` says otherwise. */
const analyze = (
  headers: Record<string, string>,
  setCookies: string[] = [],
  https = true,
  site: Partial<Parameters<typeof analyzeHeaders>[0]['site']> = {},
) =>
  analyzeHeaders({
    headers,
    setCookies,
    https,
    httpVersion: 1.1,
    site: {
      certValid: https,
      html: '<!doctype html><title>t</title>',
      url: `${https ? 'https' : 'http'}://site.example/`,
      httpChain: null,
      preflight: null,
      ...site,
    },
  });

describe('HTTP header analysis', () => {
  it("grades a bare response by the Observatory's method, and says what each failing test wants", () => {
    const analysis = analyze(
      { 'content-type': 'text/html', server: 'Apache/2.4.41 (Ubuntu)', 'x-powered-by': 'PHP/7.4.3' },
      ['PHPSESSID=abc; path=/'],
    );
    const s = analysis.security;
    // CSP -25, a session cookie without Secure and no HSTS -40, HSTS -20, nosniff -5, framing -20: below 0, so 0.
    expect(s).toMatchObject({
      score: 0,
      max_score: 100,
      percentage: 0,
      grade: 'F',
      observatory: { algorithm_version: 5, tests_quantity: 10 },
    });
    const byName = Object.fromEntries(s.checks.map((c) => [c.name, c]));
    expect(byName['Content-Security-Policy']).toMatchObject({
      present: false,
      passed: false,
      score: -25,
      max_score: 10,
      category: 'critical',
      observatory_test: 'content-security-policy',
      observatory_result: 'csp-not-implemented',
    });
    expect(byName['Content-Security-Policy']!.recommendation).toMatch(/default-src 'self'/);
    expect(byName['Set-Cookie']).toMatchObject({
      score: -40,
      observatory_result: 'cookies-session-without-secure-flag',
    });
    expect(byName.Server).toMatchObject({
      present: true,
      passed: false,
      value: 'Apache/2.4.41 (Ubuntu)',
      max_score: 0,
      score: 0,
      observatory_test: null,
    });
    expect(analysis.cookies.cookies[0]).toMatchObject({
      name: 'PHPSESSID',
      secure: false,
      httponly: false,
      samesite: '',
    });
    expect(analysis.performance).toMatchObject({ compression: 'none', http2: false, http3: false });
    expect(overallScore(analysis, 100).grade).toMatch(/^[DF]/);
  });

  it('grades a hardened response A+ with its bonuses (130), and our extra checks weigh nothing', () => {
    const analysis = analyze(HARDENED, ['__Host-session=x; Path=/; Secure; HttpOnly; SameSite=Lax']);
    const tested = analysis.security.checks.filter((c) => c.observatory_test);
    expect(tested.filter((c) => !c.passed).map((c) => c.name)).toEqual([]);
    // CSP +5 (default-src 'self', not 'none'), cookies +5, referrer +5, framing via CSP +5, CORP +10.
    expect(analysis.security).toMatchObject({
      score: 130,
      percentage: 100,
      grade: 'A+',
      summary: { critical: 0, high: 0, medium: 0, low: 0 },
    });
    expect(
      analysis.security.checks.filter((c) => !c.observatory_test).every((c) => c.max_score === 0 && c.score === 0),
    ).toBe(true);
    // Each header checked once: Cross-Origin-Resource-Policy is the Observatory's test, not also one of ours.
    const names = analysis.security.checks.map((c) => c.name);
    expect(names.filter((n) => n === 'Cross-Origin-Resource-Policy')).toHaveLength(1);
    expect(new Set(names).size).toBe(names.length);
    expect(analysis.cache).toMatchObject({ cacheable: true, score: 10 });
    expect(analysis.performance).toMatchObject({ compression: 'br', http2: false, http3: true });
  });

  it('gives no HSTS credit over plain HTTP and asks for HTTPS', () => {
    const hsts = analyze(HARDENED, [], false).security.checks.find((c) => c.name === 'Strict-Transport-Security')!;
    expect(hsts).toMatchObject({ score: -20, passed: false, observatory_result: 'hsts-not-implemented-no-https' });
    expect(hsts.recommendation).toMatch(/HTTPS/);
  });

  it('counts HSTS max-age=0 as short, and CSP frame-ancestors * as framing control (as the Observatory does)', () => {
    const checks = analyze({
      'content-security-policy': "default-src 'none'; frame-ancestors *",
      'strict-transport-security': 'max-age=0',
    }).security.checks;
    expect(checks.find((c) => c.name === 'X-Frame-Options')).toMatchObject({
      score: 5,
      observatory_result: 'x-frame-options-implemented-via-csp',
    });
    expect(checks.find((c) => c.name === 'Strict-Transport-Security')).toMatchObject({ score: -10, passed: false });
  });

  it('flags an API that lets any origin read it with credentials, from its preflight answer', () => {
    const reflecting = {
      origin: 'https://cors-probe.netops.invalid',
      headers: {
        'access-control-allow-origin': 'https://cors-probe.netops.invalid',
        'access-control-allow-credentials': 'true',
      },
    };
    const cors = analyze({}, [], true, { preflight: reflecting }).security.checks.find(
      (c) => c.name === 'Access-Control-Allow-Origin',
    )!;
    expect(cors).toMatchObject({
      score: -50,
      passed: false,
      observatory_result: 'cross-origin-resource-sharing-implemented-with-universal-access',
    });
  });
});
