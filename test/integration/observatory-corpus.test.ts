// Our security grade against the grade MDN's HTTP Observatory method gives, on a corpus of our own:
// each case is a set of headers (and a page) served over loopback HTTPS and plain HTTP on one port,
// with the modifiers the Observatory's documentation gives for it written beside it. The expected
// score comes from those modifiers by the documented rounds (penalties; bonuses only from 90 up).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHeaderCheck } from '../../domain/http-headers/check-url.ts';
import { startObservatorySite, type ObservatorySite, type SiteCase } from '../fixtures/observatory-site.ts';

const GOOD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action " +
  "'self'; frame-ancestors 'none'";
const GOOD = {
  'content-security-policy': GOOD_CSP,
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};
/**
 * GOOD earns: CSP default-src 'none' +10, referrer private +5, framing via CSP frame-ancestors +5, CORP same-origin
 * +10.
 */
const BONUS = [10, 5, 5, 10];
const good = (over: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries({ ...GOOD, ...over }).filter(([, v]) => v !== undefined)) as Record<string, string>;
const page = (inHead: string) =>
  `<!doctype html><html><head><title>t</title>${inHead}</head><body><p>hi</p></body></html>`;

interface Case {
  site: SiteCase;
  /** Every non-zero modifier the Observatory's documentation gives this case. */
  modifiers: number[];
  grade: string;
  scheme?: 'http' | 'https';
}

const CASES: Record<string, Case> = {
  // No headers: CSP not implemented -25, HSTS -20 (no HTTPS over plain HTTP), X-Content-Type-Options -5,
  // X-Frame-Options -20; plus redirection.
  // redirection-missing -20: 10
  'bare-over-http': { scheme: 'http', site: { http: 'serve' }, modifiers: [-25, -20, -20, -5, -20], grade: 'F' },
  // redirection-not-needed-no-http: 30
  'bare-over-https': { site: { http: 'none' }, modifiers: [-25, -20, -5, -20], grade: 'D' },
  'bare-https-http-answers': { site: { http: 'serve' }, modifiers: [-25, -20, -20, -5, -20], grade: 'F' },
  good: { site: { http: 'redirect', headers: GOOD }, modifiers: BONUS, grade: 'A+' }, // 130
  'good-without-http': { site: { http: 'none', headers: GOOD }, modifiers: BONUS, grade: 'A+' },
  'good-given-as-http': { scheme: 'http', site: { http: 'redirect', headers: GOOD }, modifiers: BONUS, grade: 'A+' },
  // Redirection.
  // 95, then 125
  'redirect-off-host': { site: { http: 'redirect-off-host', headers: GOOD }, modifiers: [-5, ...BONUS], grade: 'A+' },
  // 80
  'redirect-to-http': { site: { http: 'redirect-to-http', headers: GOOD }, modifiers: [-20, ...BONUS], grade: 'B+' },
  // 90, then 120
  'redirect-via-http': { site: { http: 'redirect-via-http', headers: GOOD }, modifiers: [-10, ...BONUS], grade: 'A+' },
  'good-over-plain-http': {
    scheme: 'http',
    site: { http: 'serve', headers: GOOD },
    modifiers: [-20, -20, ...BONUS],
    grade: 'C+',
  }, // no HTTPS, no redirect: 60
  // Content-Security-Policy.
  'csp-default-self': {
    site: {
      http: 'redirect',
      headers: good({ 'content-security-policy': "default-src 'self'; frame-ancestors 'none'" }),
    },
    modifiers: [5, 5, 5, 10],
    grade: 'A+',
  },
  'csp-unsafe-inline': {
    site: {
      http: 'redirect',
      headers: good({
        'content-security-policy': "default-src 'none'; script-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
      }),
    },
    modifiers: [-20, 5, 5, 10],
    grade: 'B+',
  },
  'csp-unsafe-eval': {
    site: {
      http: 'redirect',
      headers: good({
        'content-security-policy': "default-src 'none'; script-src 'self' 'unsafe-eval'; frame-ancestors 'none'",
      }),
    },
    modifiers: [-10, 5, 5, 10],
    grade: 'A+',
  },
  'csp-wildcard': {
    site: {
      http: 'redirect',
      headers: good({ 'content-security-policy': "default-src 'none'; script-src *; frame-ancestors 'none'" }),
    },
    modifiers: [-20, 5, 5, 10],
    grade: 'B+',
  },
  'csp-any-https-host': {
    site: {
      http: 'redirect',
      headers: good({ 'content-security-policy': "default-src 'none'; script-src https:; frame-ancestors 'none'" }),
    },
    modifiers: [-20, 5, 5, 10],
    grade: 'B+',
  },
  'csp-object-wildcard': {
    site: {
      http: 'redirect',
      headers: good({ 'content-security-policy': "script-src 'self'; frame-ancestors 'none'" }),
    },
    modifiers: [-20, 5, 5, 10],
    grade: 'B+',
  }, // no object-src nor default-src: any
  'csp-nonce-strict-dynamic': {
    site: {
      http: 'redirect',
      headers: good({
        'content-security-policy':
          "default-src 'none'; script-src 'nonce-r4nd0m' 'strict-dynamic' 'unsafe-inline' https:; " +
          "frame-ancestors 'none'",
      }),
    },
    modifiers: BONUS,
    grade: 'A+',
  },
  'csp-strict-dynamic-alone': {
    site: {
      http: 'redirect',
      headers: good({
        'content-security-policy': "default-src 'none'; script-src 'strict-dynamic'; frame-ancestors 'none'",
      }),
    },
    modifiers: [-25, 5, 5, 10],
    grade: 'B',
  },
  'csp-report-only': {
    site: {
      http: 'redirect',
      headers: good({
        'content-security-policy': undefined,
        'content-security-policy-report-only': GOOD_CSP,
        'x-frame-options': 'DENY',
      }),
    },
    modifiers: [-25, 5, 5, 10],
    grade: 'B',
  },
  'csp-insecure-script-host': {
    site: {
      http: 'redirect',
      headers: good({
        'content-security-policy':
          "default-src 'none'; script-src 'self' http://cdn.example.com; frame-ancestors 'none'",
      }),
    },
    modifiers: [-20, 5, 5, 10],
    grade: 'B+',
  },
  'csp-insecure-images-only': {
    site: {
      http: 'redirect',
      headers: good({
        'content-security-policy': "default-src 'none'; img-src http://img.example.com; frame-ancestors 'none'",
      }),
    },
    modifiers: [-10, 5, 5, 10],
    grade: 'A+',
  },
  'csp-unsafe-inline-styles-only': {
    site: {
      http: 'redirect',
      headers: good({
        'content-security-policy': "default-src 'none'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
      }),
    },
    modifiers: [5, 5, 10],
    grade: 'A+',
  },
  'csp-trailing-comma': {
    site: { http: 'redirect', headers: good({ 'content-security-policy': `${GOOD_CSP},` }) },
    modifiers: [-25, -20, 5, 10],
    grade: 'C',
  }, // invalid: framing not via CSP either
  'csp-in-meta': {
    site: {
      http: 'redirect',
      headers: good({ 'content-security-policy': undefined, 'x-frame-options': 'DENY' }),
      body: page(`<meta http-equiv="Content-Security-Policy" content="${GOOD_CSP}">`),
    },
    modifiers: BONUS,
    grade: 'A+',
  },
  // Strict-Transport-Security.
  'hsts-missing': {
    site: { http: 'redirect', headers: good({ 'strict-transport-security': undefined }) },
    modifiers: [-20, ...BONUS],
    grade: 'B+',
  },
  'hsts-short': {
    site: { http: 'redirect', headers: good({ 'strict-transport-security': 'max-age=86400' }) },
    modifiers: [-10, ...BONUS],
    grade: 'A+',
  },
  'hsts-zero': {
    site: { http: 'redirect', headers: good({ 'strict-transport-security': 'max-age=0' }) },
    modifiers: [-10, ...BONUS],
    grade: 'A+',
  },
  'hsts-preload': {
    site: {
      http: 'redirect',
      headers: good({ 'strict-transport-security': 'max-age=63072000; includeSubDomains; preload' }),
    },
    modifiers: BONUS,
    grade: 'A+',
  },
  'hsts-without-max-age': {
    site: { http: 'redirect', headers: good({ 'strict-transport-security': 'includeSubDomains' }) },
    modifiers: [-20, ...BONUS],
    grade: 'B+',
  },
  // X-Frame-Options (a CSP without frame-ancestors).
  'xfo-deny': {
    site: {
      http: 'redirect',
      headers: good({ 'content-security-policy': "default-src 'none'", 'x-frame-options': 'DENY' }),
    },
    modifiers: BONUS,
    grade: 'A+',
  },
  'xfo-sameorigin': {
    site: {
      http: 'redirect',
      headers: good({ 'content-security-policy': "default-src 'none'", 'x-frame-options': 'SAMEORIGIN' }),
    },
    modifiers: BONUS,
    grade: 'A+',
  },
  'xfo-allow-from': {
    site: {
      http: 'redirect',
      headers: good({
        'content-security-policy': "default-src 'none'",
        'x-frame-options': 'ALLOW-FROM https://example.com/',
      }),
    },
    modifiers: [10, 5, 10],
    grade: 'A+',
  },
  'xfo-invalid': {
    site: {
      http: 'redirect',
      headers: good({ 'content-security-policy': "default-src 'none'", 'x-frame-options': 'ALLOWALL' }),
    },
    modifiers: [-20, 10, 5, 10],
    grade: 'B+',
  },
  'xfo-missing': {
    site: { http: 'redirect', headers: good({ 'content-security-policy': "default-src 'none'" }) },
    modifiers: [-20, 10, 5, 10],
    grade: 'B+',
  },
  // Referrer-Policy, each value.
  'referrer-same-origin': {
    site: { http: 'redirect', headers: good({ 'referrer-policy': 'same-origin' }) },
    modifiers: BONUS,
    grade: 'A+',
  },
  'referrer-strict-origin': {
    site: { http: 'redirect', headers: good({ 'referrer-policy': 'strict-origin' }) },
    modifiers: BONUS,
    grade: 'A+',
  },
  'referrer-strict-origin-when-cross-origin': {
    site: { http: 'redirect', headers: good({ 'referrer-policy': 'strict-origin-when-cross-origin' }) },
    modifiers: BONUS,
    grade: 'A+',
  },
  'referrer-origin': {
    site: { http: 'redirect', headers: good({ 'referrer-policy': 'origin' }) },
    modifiers: [-5, 10, 5, 10],
    grade: 'A+',
  }, // 95, then 120
  'referrer-origin-when-cross-origin': {
    site: { http: 'redirect', headers: good({ 'referrer-policy': 'origin-when-cross-origin' }) },
    modifiers: [-5, 10, 5, 10],
    grade: 'A+',
  },
  'referrer-unsafe-url': {
    site: { http: 'redirect', headers: good({ 'referrer-policy': 'unsafe-url' }) },
    modifiers: [-5, 10, 5, 10],
    grade: 'A+',
  },
  'referrer-no-referrer-when-downgrade': {
    site: { http: 'redirect', headers: good({ 'referrer-policy': 'no-referrer-when-downgrade' }) },
    modifiers: [-5, 10, 5, 10],
    grade: 'A+',
  },
  'referrer-invalid': {
    site: { http: 'redirect', headers: good({ 'referrer-policy': 'nope' }) },
    modifiers: [-5, 10, 5, 10],
    grade: 'A+',
  },
  'referrer-missing': {
    site: { http: 'redirect', headers: good({ 'referrer-policy': undefined }) },
    modifiers: [10, 5, 10],
    grade: 'A+',
  },
  'referrer-meta-wins': {
    site: {
      http: 'redirect',
      headers: good({ 'referrer-policy': 'unsafe-url' }),
      body: page('<meta name="referrer" content="no-referrer">'),
    },
    modifiers: BONUS,
    grade: 'A+',
  },
  // X-Content-Type-Options and Cross-Origin-Resource-Policy.
  'nosniff-missing': {
    site: { http: 'redirect', headers: good({ 'x-content-type-options': undefined }) },
    modifiers: [-5, ...BONUS],
    grade: 'A+',
  },
  'corp-cross-origin': {
    site: { http: 'redirect', headers: good({ 'cross-origin-resource-policy': 'cross-origin' }) },
    modifiers: [10, 5, 5],
    grade: 'A+',
  },
  'corp-invalid': {
    site: { http: 'redirect', headers: good({ 'cross-origin-resource-policy': 'everyone' }) },
    modifiers: [-5, 10, 5, 5],
    grade: 'A+',
  },
  // Cookies: session cookies by name (sess, login), anti-CSRF by name (csrf); HSTS softens a missing Secure.
  'cookie-session-flags': {
    site: { http: 'redirect', headers: good({ 'set-cookie': 'sessionid=1; Path=/; Secure; HttpOnly; SameSite=Lax' }) },
    modifiers: [5, ...BONUS],
    grade: 'A+',
  },
  'cookie-session-no-secure-with-hsts': {
    site: { http: 'redirect', headers: good({ 'set-cookie': 'sessionid=1; Path=/; HttpOnly; SameSite=Lax' }) },
    modifiers: [-10, ...BONUS],
    grade: 'A+',
  },
  'cookie-session-no-secure-no-hsts': {
    site: {
      http: 'redirect',
      headers: good({
        'strict-transport-security': undefined,
        'set-cookie': 'sessionid=1; Path=/; HttpOnly; SameSite=Lax',
      }),
    },
    modifiers: [-20, -40, ...BONUS],
    grade: 'D+',
  },
  'cookie-login-no-httponly': {
    site: { http: 'redirect', headers: good({ 'set-cookie': 'login_token=1; Path=/; Secure; SameSite=Lax' }) },
    modifiers: [-30, ...BONUS],
    grade: 'B',
  },
  'cookie-plain-no-secure-with-hsts': {
    site: { http: 'redirect', headers: good({ 'set-cookie': 'theme=dark; Path=/; SameSite=Lax' }) },
    modifiers: [-5, ...BONUS],
    grade: 'A+',
  },
  'cookie-plain-no-secure-no-hsts': {
    site: {
      http: 'redirect',
      headers: good({ 'strict-transport-security': undefined, 'set-cookie': 'theme=dark; Path=/; SameSite=Lax' }),
    },
    modifiers: [-20, -20, ...BONUS],
    grade: 'C+',
  },
  'cookie-csrf-no-samesite': {
    site: { http: 'redirect', headers: good({ 'set-cookie': 'csrftoken=1; Path=/; Secure' }) },
    modifiers: [-20, ...BONUS],
    grade: 'B+',
  },
  'cookie-samesite-invalid': {
    site: { http: 'redirect', headers: good({ 'set-cookie': 'theme=1; Path=/; Secure; SameSite=Sometimes' }) },
    modifiers: [-20, ...BONUS],
    grade: 'B+',
  },
  'cookie-no-samesite': {
    site: { http: 'redirect', headers: good({ 'set-cookie': 'theme=1; Path=/; Secure' }) },
    modifiers: BONUS,
    grade: 'A+',
  },
  // Subresource integrity of the page's scripts.
  'sri-external-with-integrity': {
    site: {
      http: 'redirect',
      headers: GOOD,
      body: page(
        '<script src="https://cdn.example.com/lib.js" integrity="sha384-abc" crossorigin="anonymous"></script>',
      ),
    },
    modifiers: [5, ...BONUS],
    grade: 'A+',
  },
  'sri-external-without-integrity': {
    site: { http: 'redirect', headers: GOOD, body: page('<script src="https://cdn.example.com/lib.js"></script>') },
    modifiers: [-5, ...BONUS],
    grade: 'A+',
  },
  'sri-external-over-http': {
    site: { http: 'redirect', headers: GOOD, body: page('<script src="http://cdn.example.com/lib.js"></script>') },
    modifiers: [-50, ...BONUS],
    grade: 'C',
  },
  'sri-same-origin-script': {
    site: { http: 'redirect', headers: GOOD, body: page('<script src="/app.js"></script>') },
    modifiers: BONUS,
    grade: 'A+',
  },
  'sri-inline-script': {
    site: { http: 'redirect', headers: GOOD, body: page('<script>var a = 1;</script>') },
    modifiers: BONUS,
    grade: 'A+',
  },
  // CORS, from a preflight.
  'cors-public': { site: { http: 'redirect', headers: GOOD, preflight: 'public' }, modifiers: BONUS, grade: 'A+' },
  'cors-any-origin-with-credentials': {
    site: { http: 'redirect', headers: GOOD, preflight: 'reflect-with-credentials' },
    modifiers: [-50, ...BONUS],
    grade: 'C',
  },
};

/** The documented rounds: penalties from 100; the bonuses too when that leaves 90 or more; never below 0. */
function expectedScore(modifiers: number[]): number {
  const penalised = 100 + modifiers.filter((m) => m < 0).reduce((a, b) => a + b, 0);
  return Math.max(0, penalised >= 90 ? 100 + modifiers.reduce((a, b) => a + b, 0) : penalised);
}

describe("security grades by MDN's HTTP Observatory method, over loopback HTTP and HTTPS", () => {
  let site: ObservatorySite;
  let check: ReturnType<typeof createHeaderCheck>;
  beforeAll(async () => {
    site = await startObservatorySite(Object.fromEntries(Object.entries(CASES).map(([name, c]) => [name, c.site])));
    check = createHeaderCheck({ allow: ['127.0.0.1/32'], ca: [site.ca], timeoutMs: 5000 });
  });
  afterAll(() => site?.close());

  it('has at least 40 cases, over both schemes', () => {
    expect(Object.keys(CASES).length).toBeGreaterThanOrEqual(40);
    expect(Object.values(CASES).some((c) => c.scheme === 'http')).toBe(true);
  });

  it.each(Object.entries(CASES))('%s', async (name, c) => {
    const answer = await check(`${site.origin(c.scheme ?? 'https')}/c/${name}`);
    const security = answer.analysis.security;
    const results = security.checks.filter((k) => k.observatory_test).map((k) => `${k.observatory_result} ${k.score}`);
    expect({ score: security.score, grade: security.grade }, results.join('\n')).toEqual({
      score: expectedScore(c.modifiers),
      grade: c.grade,
    });
    // The modifiers of the results are exactly the documented ones.
    expect(
      security.checks
        .filter((k) => k.observatory_test && k.score !== 0)
        .map((k) => k.score)
        .sort((a, b) => a - b),
      results.join('\n'),
    ).toEqual([...c.modifiers].sort((a, b) => a - b));
  });
});
