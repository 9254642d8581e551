// The HTTP Observatory's single-header tests and its cookies test, from MDN's scoring documentation
// (our own implementation): strict-transport-security, referrer-policy, x-content-type-options,
// x-frame-options, cross-origin-resource-policy, cookies.
import { resultsOf, type TestResult } from './types.ts';

/** The Observatory's floor for max-age: 180 days (not quite six months). */
export const HSTS_MIN_AGE = 15_552_000;
const HSTS_ADVICE = 'Strict-Transport-Security: max-age=63072000; includeSubDomains; preload';

export function hstsTest(value: string | undefined, https: boolean, certValid: boolean): TestResult {
  const r = resultsOf({
    test: 'strict-transport-security',
    name: 'Strict-Transport-Security',
    best: 0,
    description: 'Makes browsers use HTTPS for this host on every later visit.',
  });
  if (!https)
    return r(
      'hsts-not-implemented-no-https',
      -20,
      false,
      `Serve the site over HTTPS, redirect HTTP to it, then set ${HSTS_ADVICE}`,
      ['served over plain HTTP: HSTS cannot apply'],
    );
  if (!certValid)
    return r(
      'hsts-invalid-cert',
      -20,
      false,
      'Use a certificate browsers trust (HSTS is ignored over an untrusted one)',
    );
  if (value === undefined) return r('hsts-not-implemented', -20, false, HSTS_ADVICE);
  const maxAge = /max-age\s*=\s*"?(\d+)/i.exec(value);
  if (value.includes(',') || !/max-age\s*=/i.test(value))
    return r('hsts-header-invalid', -20, false, `Send the header once, with max-age: ${HSTS_ADVICE}`, [
      value.includes(',') ? 'the header is sent more than once' : 'no max-age',
    ]);
  const age = Number(maxAge?.[1] ?? Infinity);
  const details = [
    `max-age ${maxAge?.[1] ?? 'unreadable'}`,
    ...(/includesubdomains/i.test(value) ? ['includeSubDomains'] : []),
    ...(/preload/i.test(value) ? ['preload'] : []),
  ];
  if (age < HSTS_MIN_AGE)
    return r(
      'hsts-implemented-max-age-less-than-six-months',
      -10,
      false,
      `Raise max-age to at least ${HSTS_MIN_AGE} (a year or two is usual)`,
      details,
    );
  return r('hsts-implemented-max-age-at-least-six-months', 0, true, undefined, details);
}

const PRIVATE_REFERRER = new Set(['no-referrer', 'same-origin', 'strict-origin', 'strict-origin-when-cross-origin']);
const UNSAFE_REFERRER = new Set(['origin', 'origin-when-cross-origin', 'unsafe-url', 'no-referrer-when-downgrade']);

/** The header's values, then the page's <meta name="referrer">: the last value a browser knows wins. */
export function referrerTest(header: string | undefined, meta: string | undefined): TestResult {
  const r = resultsOf({
    test: 'referrer-policy',
    name: 'Referrer-Policy',
    best: 5,
    description: 'How much of the URL is sent to other sites as Referer.',
  });
  if (header === undefined && meta === undefined)
    return r(
      'referrer-policy-not-implemented',
      0,
      true,
      'Referrer-Policy: strict-origin-when-cross-origin (for the bonus)',
      ['browsers apply their default (strict-origin-when-cross-origin)'],
    );
  const known = [header, meta]
    .filter((v) => v !== undefined)
    .join(',')
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter((v) => PRIVATE_REFERRER.has(v) || UNSAFE_REFERRER.has(v));
  const effective = known.pop();
  if (effective === undefined)
    return r('referrer-policy-header-invalid', -5, false, 'Referrer-Policy: strict-origin-when-cross-origin', [
      'no value a browser knows',
    ]);
  if (PRIVATE_REFERRER.has(effective)) return r('referrer-policy-private', 5, true, undefined, [effective]);
  return r('referrer-policy-unsafe', -5, false, 'Referrer-Policy: strict-origin-when-cross-origin', [
    `${effective} sends full URLs or origins to other sites`,
  ]);
}

export function contentTypeOptionsTest(value: string | undefined): TestResult {
  const r = resultsOf({
    test: 'x-content-type-options',
    name: 'X-Content-Type-Options',
    best: 0,
    description: 'Stops browsers from guessing content types (MIME sniffing).',
  });
  const v = value?.trim().toLowerCase();
  if (v === undefined) return r('x-content-type-options-not-implemented', -5, false, 'X-Content-Type-Options: nosniff');
  if (v === 'nosniff') return r('x-content-type-options-nosniff', 0, true);
  return r('x-content-type-options-header-invalid', -5, false, 'X-Content-Type-Options: nosniff (once, nothing else)', [
    `value ${value}`,
  ]);
}

export function frameOptionsTest(value: string | undefined, cspFrameAncestors: boolean): TestResult {
  const r = resultsOf({
    test: 'x-frame-options',
    name: 'X-Frame-Options',
    best: 5,
    description: 'Stops other sites from framing the page (clickjacking); CSP frame-ancestors supersedes it.',
  });
  if (cspFrameAncestors)
    return r('x-frame-options-implemented-via-csp', 5, true, undefined, [
      'CSP frame-ancestors decides who may frame the page',
    ]);
  const v = value?.trim().toLowerCase();
  if (v === undefined)
    return r(
      'x-frame-options-not-implemented',
      -20,
      false,
      "Content-Security-Policy: frame-ancestors 'self' (or X-Frame-Options: DENY)",
    );
  if (v === 'deny' || v === 'sameorigin') return r('x-frame-options-sameorigin-or-deny', 5, true);
  if (v.startsWith('allow-from'))
    return r(
      'x-frame-options-allow-from-origin',
      0,
      true,
      "ALLOW-FROM is not supported by browsers: use CSP frame-ancestors 'self' https://trusted.example",
    );
  return r('x-frame-options-header-invalid', -20, false, 'X-Frame-Options: DENY or SAMEORIGIN (once)', [
    `value ${value}`,
  ]);
}

export function resourcePolicyTest(value: string | undefined): TestResult {
  const r = resultsOf({
    test: 'cross-origin-resource-policy',
    name: 'Cross-Origin-Resource-Policy',
    best: 10,
    description: 'Which origins may embed this response (Spectre-style leaks).',
  });
  if (value === undefined)
    return r('corp-not-implemented', 0, true, 'Cross-Origin-Resource-Policy: same-origin (for the bonus)');
  const v = value.slice(0, 256).trim().toLowerCase();
  if (v === 'same-origin') return r('corp-implemented-with-same-origin', 10, true);
  if (v === 'same-site') return r('corp-implemented-with-same-site', 10, true);
  if (v === 'cross-origin')
    return r(
      'corp-implemented-with-cross-origin',
      0,
      true,
      'same-origin or same-site, unless other sites must embed it',
    );
  return r('corp-header-invalid', -5, false, 'Cross-Origin-Resource-Policy: same-origin (once)', [`value ${value}`]);
}

interface Cookie {
  name: string;
  secure: boolean;
  httpOnly: boolean;
  /** The SameSite attribute as sent; null when absent. */
  sameSite: string | null;
}

function parseCookie(header: string): Cookie {
  const [pair = '', ...attributes] = header.split(';');
  const attrs = new Map(
    attributes.map((a) => [a.split('=')[0]!.trim().toLowerCase(), a.split('=').slice(1).join('=').trim()] as const),
  );
  return {
    name: pair.split('=')[0]!.trim(),
    secure: attrs.has('secure'),
    httpOnly: attrs.has('httponly'),
    sameSite: attrs.has('samesite') ? attrs.get('samesite')!.toLowerCase() : null,
  };
}

/**
 * Cookies by the Observatory's rules: session cookies by name (login, sess), anti-CSRF ones (csrf); the worst finding
 * wins.
 */
export function cookiesTest(setCookies: readonly string[], hsts: boolean): TestResult {
  const r = resultsOf({
    test: 'cookies',
    name: 'Set-Cookie',
    best: 5,
    description: 'Cookies carry Secure, HttpOnly (session cookies) and SameSite.',
  });
  const cookies = setCookies
    .map(parseCookie)
    .filter((c) => c.name && c.name.toLowerCase() !== 'heroku-session-affinity');
  if (cookies.length === 0) return r('cookies-not-found', 0, true);
  // From least to most severe: a later finding replaces an earlier one.
  const order: Array<[string, number, string]> = [
    ['cookies-without-secure-flag-but-protected-by-hsts', -5, 'Set Secure on every cookie'],
    ['cookies-without-secure-flag', -20, 'Set Secure on every cookie'],
    ['cookies-session-without-secure-flag-but-protected-by-hsts', -10, 'Set Secure on session cookies'],
    ['cookies-samesite-flag-invalid', -20, 'SameSite=Strict or Lax (None only with Secure)'],
    ['cookies-anticsrf-without-samesite-flag', -20, 'Set SameSite=Strict on anti-CSRF cookies'],
    ['cookies-session-without-httponly-flag', -30, 'Set HttpOnly on session cookies: scripts must not read them'],
    [
      'cookies-session-without-secure-flag',
      -40,
      'Set Secure on session cookies (and serve the site over HTTPS with HSTS)',
    ],
  ];
  let worst = -1;
  const details: string[] = [];
  const find = (i: number, why: string) => {
    details.push(why);
    worst = Math.max(worst, i);
  };
  for (const c of cookies) {
    const name = c.name.toLowerCase();
    const session = name.includes('login') || name.includes('sess');
    if (!c.secure) find(session ? (hsts ? 2 : 6) : hsts ? 0 : 1, `${c.name}: no Secure`);
    if (
      (c.sameSite !== null && !['lax', 'strict', 'none'].includes(c.sameSite)) ||
      (c.sameSite === 'none' && !c.secure)
    )
      find(3, `${c.name}: SameSite=${c.sameSite}`);
    if (name.includes('csrf') && c.sameSite === null) find(4, `${c.name}: anti-CSRF cookie without SameSite`);
    if (session && !c.httpOnly) find(5, `${c.name}: session cookie without HttpOnly`);
  }
  if (worst >= 0) {
    const [result, modifier, advice] = order[worst]!;
    return r(result, modifier, false, advice, details);
  }
  return cookies.every((c) => c.sameSite !== null)
    ? r('cookies-secure-with-httponly-sessions-and-samesite', 5, true)
    : r('cookies-secure-with-httponly-sessions', 0, true, 'Set SameSite=Lax or Strict on every cookie (for the bonus)');
}
