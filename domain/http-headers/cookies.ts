// Set-Cookie attributes (RFC 6265bis) and what is missing from each cookie.
export interface CookieReport {
  name: string;
  secure: boolean;
  httponly: boolean;
  samesite: string;
  score: number;
  issues: string[];
}

export const COOKIE_MAX_SCORE = 10;

/** Points a cookie loses, documented in one place. */
const PENALTY = {
  noSecure: 4, // sent over plain HTTP, readable on the wire
  noHttpOnly: 3, // readable by any script on the page, XSS steals it
  noSameSite: 2, // left to the browser's default; sent on some cross-site requests
  noneWithoutSecure: 4, // SameSite=None without Secure: browsers reject the cookie
  badPrefix: 4, // __Secure-/__Host- prefix whose rules are broken: browsers reject the cookie
} as const;

export function parseSetCookie(header: string, https: boolean): CookieReport {
  const [pair = '', ...attributes] = header.split(';');
  const name = pair.split('=')[0]!.trim();
  const attrs = new Map<string, string>();
  for (const a of attributes) {
    const [k = '', ...v] = a.split('=');
    attrs.set(k.trim().toLowerCase(), v.join('=').trim());
  }
  const secure = attrs.has('secure');
  const httponly = attrs.has('httponly');
  const samesiteRaw = attrs.get('samesite') ?? '';
  const samesite = samesiteRaw ? samesiteRaw[0]!.toUpperCase() + samesiteRaw.slice(1).toLowerCase() : '';
  const issues: string[] = [];
  let score = COOKIE_MAX_SCORE;
  if (!secure) {
    issues.push(
      https
        ? 'missing Secure: the cookie would also travel over plain HTTP'
        : 'missing Secure (and the site is served over plain HTTP)',
    );
    score -= PENALTY.noSecure;
  }
  if (!httponly) {
    issues.push('missing HttpOnly: scripts on the page can read it');
    score -= PENALTY.noHttpOnly;
  }
  if (!samesite) {
    issues.push('missing SameSite: set Lax or Strict');
    score -= PENALTY.noSameSite;
  } else if (samesite === 'None' && !secure) {
    issues.push('SameSite=None without Secure: browsers reject this cookie');
    score -= PENALTY.noneWithoutSecure;
  }
  if ((name.startsWith('__Secure-') || name.startsWith('__Host-')) && !secure) {
    issues.push(`${name.split('-')[0]}- prefix requires Secure`);
    score -= PENALTY.badPrefix;
  } else if (name.startsWith('__Host-') && (attrs.has('domain') || attrs.get('path') !== '/')) {
    issues.push('__Host- prefix requires Path=/ and no Domain');
    score -= PENALTY.badPrefix;
  }
  return { name, secure, httponly, samesite, score: Math.max(0, score), issues };
}

export function analyzeCookies(setCookies: readonly string[], https: boolean) {
  const cookies = setCookies.map((c) => parseSetCookie(c, https));
  const score =
    cookies.length === 0
      ? COOKIE_MAX_SCORE
      : Math.round((cookies.reduce((s, c) => s + c.score, 0) / cookies.length) * 10) / 10;
  return { score, max_score: COOKIE_MAX_SCORE, cookies };
}
