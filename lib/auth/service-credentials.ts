// The service's own credentials as browsers and clients carry them: the cookies of the dashboard and of
// the OAuth pages, API keys, and the access tokens the OAuth server issues. Capture URLs are open to
// anyone and, unless CAPTURE_BASE_URL gives them an origin of their own, share the service's origin: a
// signed-in browser sent there (one link click) would hand its cookies to the webhook's owner. So each
// cookie is scoped to the paths that read it, and what still arrives at a capture URL is removed before
// the capture is stored: a capture is data, never a credential of this service.

/** API keys start with this (`ntk_` and 32 base64url characters). */
export const API_KEY_PREFIX = 'ntk_';

/** The dashboard's session cookie and the CSRF cookie of the dashboard's and the sign-in pages' forms. */
export const DASHBOARD_SESSION_COOKIE = 'netops_session';
export const CSRF_COOKIE = 'netops_csrf';
/** oidc-provider's cookies (the OAuth pages' session and sign-in interaction), named here rather than by default. */
export const OAUTH_COOKIES = {
  session: '_session',
  interaction: '_interaction',
  resume: '_interaction_resume',
} as const;

/** Where each cookie is sent: only below the pages that read it, never to `/webhook/`. */
export const DASHBOARD_PATH = '/dashboard';
export const OAUTH_PATH = '/oauth';

const OURS = new Set([DASHBOARD_SESSION_COOKIE, CSRF_COOKIE, ...Object.values(OAUTH_COOKIES)]);

/**
 * A cookie's name as set: `__Secure-` (sent over https only, set only by a secure origin) when the service is https.
 */
export function cookieName(name: string, secure: boolean): string {
  return secure ? `__Secure-${name}` : name;
}

/** Whether a cookie of this name is one of the service's (in any of its forms: prefixed, or a signature's `.sig`). */
export function isServiceCookie(name: string): boolean {
  const base = name
    .trim()
    .replace(/^__(Secure|Host)-/i, '')
    .replace(/\.(sig|legacy)$/, '');
  return OURS.has(base);
}

/** A Cookie header without the service's cookies (null when none is left); the sender's other cookies as sent. */
export function withoutServiceCookies(header: string): string | null {
  const kept = header.split(';').filter((pair) => {
    const at = pair.indexOf('=');
    return !isServiceCookie(at === -1 ? pair : pair.slice(0, at));
  });
  const joined = kept
    .map((pair) => pair.trim())
    .filter(Boolean)
    .join('; ');
  return joined || null;
}

/** Whether `token` is an API key's form, or an access token this service's OAuth server (`issuer`) signed. */
export function isServiceToken(token: string, issuer: string): boolean {
  if (token.startsWith(API_KEY_PREFIX)) return true;
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { iss?: unknown };
    return claims !== null && typeof claims === 'object' && claims.iss === issuer;
  } catch {
    return false;
  }
}

/**
 * Removes from `headers` (lower-case names, as captured) the service's credentials: its cookies out of
 * `cookie` (the header goes when none is left), and from `x-api-key` and `authorization` each value that
 * carries one of its keys or tokens. A header sent twice arrives as one, its values joined with ", "
 * (lib/net/header-object.ts), so each value is judged on its own: neither a key nor a token holds a
 * comma. A header keeps its other values as sent, and goes when none is left.
 */
export function stripServiceCredentials(headers: Record<string, string>, issuer: string): void {
  if (headers.cookie !== undefined) {
    const kept = withoutServiceCookies(headers.cookie);
    if (kept === null) delete headers.cookie;
    else headers.cookie = kept;
  }
  withoutValues(headers, 'x-api-key', (value) => isServiceToken(value.trim(), issuer));
  withoutValues(headers, 'authorization', (value) => {
    const bearer = /^\s*Bearer\s+(\S+)\s*$/i.exec(value);
    return bearer !== null && isServiceToken(bearer[1]!, issuer);
  });
}

/** `headers[name]` without the comma-separated values `drop` picks (left as it was when it picks none). */
function withoutValues(headers: Record<string, string>, name: string, drop: (value: string) => boolean): void {
  const header = headers[name];
  if (header === undefined) return;
  const values = header.split(',');
  const kept = values.filter((value) => !drop(value));
  if (kept.length === values.length) return;
  const joined = kept
    .map((value) => value.trim())
    .filter(Boolean)
    .join(', ');
  if (joined) headers[name] = joined;
  else delete headers[name];
}
