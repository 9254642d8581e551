import { describe, expect, it } from 'vitest';
import { analyzeHeaders, overallScore } from '../../activities/http-headers/analyze.ts';
import { CDN_WAF_SIGNATURE_COUNT, detectCdnWaf } from '../../activities/http-headers/cdn-waf.ts';
import { parseSetCookie } from '../../activities/http-headers/cookies.ts';
import { cspWeaknesses, parsePolicies } from '../../activities/http-headers/csp.ts';
import { grade } from '../../activities/http-headers/grades.ts';

const HARDENED = {
  'content-type': 'text/html; charset=utf-8',
  'strict-transport-security': 'max-age=63072000; includeSubDomains; preload',
  'content-security-policy': "default-src 'self'; script-src 'self' 'nonce-abc'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'",
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

describe('HTTP header analysis', () => {
  it('grades a bare response F and says what is missing', () => {
    const analysis = analyzeHeaders({ headers: { 'content-type': 'text/html', server: 'Apache/2.4.41 (Ubuntu)', 'x-powered-by': 'PHP/7.4.3' }, setCookies: ['PHPSESSID=abc; path=/'], https: true, httpVersion: 1.1 });
    const s = analysis.security;
    expect(s.grade).toBe('F');
    expect(s.summary.critical).toBe(2);
    const byName = Object.fromEntries(s.checks.map((c) => [c.name, c]));
    expect(byName['Content-Security-Policy']).toMatchObject({ present: false, passed: false, score: 0, category: 'critical' });
    expect(byName['Content-Security-Policy']!.recommendation).toMatch(/default-src 'self'/);
    expect(byName.Server).toMatchObject({ present: true, passed: false, value: 'Apache/2.4.41 (Ubuntu)' });
    expect(byName['Set-Cookie']!.details.join(' ')).toMatch(/PHPSESSID: missing Secure/);
    expect(analysis.cookies.cookies[0]).toMatchObject({ name: 'PHPSESSID', secure: false, httponly: false, samesite: '' });
    expect(analysis.performance).toMatchObject({ compression: 'none', http2: false, http3: false });
    expect(overallScore(analysis, 100).grade).toMatch(/^[DF]/);
  });

  it('grades a hardened response A+', () => {
    const analysis = analyzeHeaders({ headers: HARDENED, setCookies: ['__Host-session=x; Path=/; Secure; HttpOnly; SameSite=Lax'], https: true, httpVersion: 2 });
    expect(analysis.security.checks.filter((c) => !c.passed).map((c) => c.name)).toEqual([]);
    expect(analysis.security).toMatchObject({ percentage: 100, grade: 'A+', summary: { critical: 0, high: 0, medium: 0, low: 0 } });
    expect(analysis.cache).toMatchObject({ cacheable: true, score: 10 });
    expect(analysis.performance).toMatchObject({ compression: 'br', http2: true, http3: true, score: 10 });
    expect(overallScore(analysis, 100)).toEqual({ score: 100, max_score: 100, percentage: 100, grade: 'A+' });
  });

  it('gives no HSTS credit over plain HTTP and asks for HTTPS', () => {
    const hsts = analyzeHeaders({ headers: HARDENED, setCookies: [], https: false, httpVersion: 1.1 }).security.checks.find((c) => c.name === 'Strict-Transport-Security')!;
    expect(hsts).toMatchObject({ score: 0, passed: false });
    expect(hsts.recommendation).toMatch(/HTTPS/);
  });

  it('finds CSP weaknesses', () => {
    expect(cspWeaknesses(parsePolicies("default-src * 'unsafe-inline' 'unsafe-eval'"))).toEqual([
      "script sources allow 'unsafe-inline': injected inline scripts run",
      "script sources allow 'unsafe-eval'",
      'script sources allow any host or scheme (*, http:, https: or data:)',
      "object-src is not 'none': plugins may load",
      'no base-uri: an injected <base> can redirect relative URLs',
      'no frame-ancestors: framing is governed only by X-Frame-Options',
    ]);
    // A nonce makes 'unsafe-inline' a fallback for old browsers only.
    expect(cspWeaknesses(parsePolicies("script-src 'nonce-x' 'unsafe-inline'; object-src 'none'; base-uri 'none'; frame-ancestors 'self'"))).toEqual([]);
    // Two policies: browsers enforce both, so the second one's strict script-src blocks inline scripts.
    expect(cspWeaknesses(parsePolicies("script-src 'self' 'unsafe-inline'; object-src 'none', default-src 'self'; base-uri 'self'; frame-ancestors 'none'"))).toEqual([]);
    expect(cspWeaknesses(parsePolicies("default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors *"))).toEqual(['frame-ancestors allows any site to frame the page']);
  });

  it("does not credit framing protection that allows any site, nor HSTS with max-age=0", () => {
    const checks = analyzeHeaders({ headers: { 'content-security-policy': 'frame-ancestors *', 'strict-transport-security': 'max-age=0' }, setCookies: [], https: true, httpVersion: 1.1 }).security.checks;
    expect(checks.find((c) => c.name === 'X-Frame-Options')).toMatchObject({ score: 0, passed: false });
    expect(checks.find((c) => c.name === 'Strict-Transport-Security')).toMatchObject({ score: 0, passed: false });
  });

  it('flags wildcard CORS with credentials', () => {
    const cors = analyzeHeaders({ headers: { 'access-control-allow-origin': '*', 'access-control-allow-credentials': 'true' }, setCookies: [], https: true, httpVersion: 1.1 })
      .security.checks.find((c) => c.name === 'Access-Control-Allow-Origin')!;
    expect(cors).toMatchObject({ score: 0, passed: false });
  });

  it('reads cookie attributes and prefix rules', () => {
    expect(parseSetCookie('id=1; Secure; HttpOnly; SameSite=strict', true)).toMatchObject({ secure: true, httponly: true, samesite: 'Strict', score: 10, issues: [] });
    expect(parseSetCookie('x=1; SameSite=None; HttpOnly', true).issues).toContain('SameSite=None without Secure: browsers reject this cookie');
    expect(parseSetCookie('__Host-x=1; Secure; HttpOnly; SameSite=Lax; Domain=example.com; Path=/', true).issues).toContain('__Host- prefix requires Path=/ and no Domain');
  });

  it('detects at least 15 CDNs and WAFs from their signatures', () => {
    expect(CDN_WAF_SIGNATURE_COUNT).toBeGreaterThanOrEqual(15);
    expect(detectCdnWaf({ 'cf-ray': '8abc-FRA', server: 'cloudflare' }, [])).toMatchObject({ cdn: 'Cloudflare', waf: 'Cloudflare' });
    expect(detectCdnWaf({ 'x-amz-cf-id': 'x', via: '1.1 abc.cloudfront.net (CloudFront)' }, ['aws-waf-token'])).toMatchObject({ cdn: 'Amazon CloudFront', waf: 'AWS WAF' });
    expect(detectCdnWaf({ 'x-served-by': 'cache-fra-etou8220088-FRA' }, [])).toMatchObject({ cdn: 'Fastly', waf: '' });
    expect(detectCdnWaf({}, [])).toEqual({ cdn: '', waf: '', details: ['no CDN or WAF signature found'] });
  });

  it('grades on the Observatory scale', () => {
    expect([100, 95, 89, 84, 75, 66, 61, 55, 46, 41, 31, 26, 10].map(grade)).toEqual(['A+', 'A', 'A-', 'B+', 'B', 'B-', 'C+', 'C', 'C-', 'D+', 'D', 'D-', 'F']);
  });
});
