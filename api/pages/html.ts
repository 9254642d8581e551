// Server-rendered pages (sign-in, consent, dashboard): one layout, escaping for every value, forms
// read as application/x-www-form-urlencoded, and CSRF protection by a double-submitted token: a
// random value in an HttpOnly SameSite=Strict cookie that every form must echo, plus a same-origin
// check on the Origin header when the browser sends one.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { AppError, ForbiddenError } from '../../lib/errors.ts';
import { cookieName, CSRF_COOKIE, DASHBOARD_PATH, OAUTH_PATH } from '../../lib/auth/service-credentials.ts';
import { readBody } from '../read-body.ts';
import { STYLESHEET_PATHS } from './styles.ts';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A tagged template that escapes every interpolated value unless it is already `Html`. */
export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += (Array.isArray(v) ? v.map(render).join('') : render(v)) + strings[i + 1]!;
  });
  return new Html(out);
}
function render(v: unknown): string {
  return v instanceof Html ? v.value : v === null || v === undefined || v === false ? '' : escapeHtml(String(v));
}

/** A page: its head (the stylesheets served from here, api/pages/styles/) and its content in <main>. */
export function page(title: string, body: Html): string {
  const head = html`<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>${STYLESHEET_PATHS.map((href) => html`<link rel="stylesheet" href="${href}">`)}`;
  return html`<!doctype html><html lang="en"><head>${head}</head><body><main>${body}</main></body></html>`.value;
}

declare module 'koa' {
  interface DefaultContext {
    /** BASE_URL's origin, where the service's pages are served (set on the app's context: api/app.ts). */
    pagesOrigin?: string;
  }
}

/** Where the dashboard's and the sign-in pages' scripts and stylesheets are served (api/dashboard/assets.ts). */
const DASHBOARD_ASSETS = '/dashboard/assets/';
/** A host a policy can name: a name or IPv4 address, and a port (CSP has no syntax for an IPv6 literal). */
const NAMEABLE_HOST = /^[a-z0-9.-]+(?::\d{1,5})?$/i;

/**
 * Sources of a page's own files in a Content-Security-Policy: the paths below which they are served, on
 * BASE_URL's origin and on the host the page was asked on (a proxy may pass a Host without the port the
 * browser used, or another name: BASE_URL's is the one browsers see). `'self'` would take any address of
 * the origin, and capture URLs may share it: an owner's answer, typed as JavaScript or CSS, would then run
 * as a page's script or style if markup of theirs ever reached a page. `'self'` only when neither host can
 * be named (IPv6 literals).
 */
export function ownFiles(ctx: Pick<Context, 'host' | 'pagesOrigin'>, ...paths: string[]): string {
  const base = ctx.pagesOrigin && URL.parse(ctx.pagesOrigin);
  const hosts = [
    ...(base && NAMEABLE_HOST.test(base.host) ? [base.origin] : []),
    ...(NAMEABLE_HOST.test(ctx.host) && (!base || ctx.host.toLowerCase() !== base.host) ? [ctx.host] : []),
  ];
  return hosts.length ? hosts.flatMap((h) => paths.map((p) => `${h}${p}`)).join(' ') : "'self'";
}

/**
 * Sends a page with a strict Content-Security-Policy. `formTargets`: other origins a form post of the
 * page may end up at through redirects (browsers apply form-action to the redirects after a post: the
 * OAuth pages' posts end at the client's redirect URI).
 */
export function sendPage(
  ctx: Context,
  title: string,
  body: Html,
  status = 200,
  options: { formTargets?: string[] } = {},
): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  const targets = (options.formTargets ?? []).flatMap((t) => {
    const url = URL.parse(t);
    if (!url) return [];
    if (url.protocol === 'https:' || url.protocol === 'http:') return [` ${url.origin}`];
    // A native app's own scheme (cursor:, com.example.app:): a scheme source, nothing more.
    return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? [` ${url.protocol}`] : [];
  });
  ctx.set(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      `script-src ${ownFiles(ctx, DASHBOARD_ASSETS)}`,
      "connect-src 'self'",
      // The stylesheets are served from there; a few elements carry a style attribute (a colour swatch).
      `style-src ${ownFiles(ctx, DASHBOARD_ASSETS)} 'unsafe-inline'`,
      `form-action 'self'${targets.join('')}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
  );
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = page(title, body);
}

const FORM_LIMIT_BYTES = 16 * 1024;

/** The fields of a urlencoded form (the last value of a repeated name). */
export async function readForm(ctx: Context): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded'))
    throw new AppError('unsupported_media_type', 'Forms are sent as application/x-www-form-urlencoded');
  const text = (await readBody(ctx.req, FORM_LIMIT_BYTES)).toString('utf8');
  return Object.fromEntries(new URLSearchParams(text));
}

/** The forms of the OAuth pages post below /oauth, the dashboard's below /dashboard: each has its own cookie. */
const csrfPath = (ctx: Context) => (ctx.path.startsWith(`${OAUTH_PATH}/`) ? OAUTH_PATH : DASHBOARD_PATH);

/** The CSRF token of this browser (set in a cookie when it has none); put it in every form. */
export function csrfToken(ctx: Context, secure: boolean): string {
  const name = cookieName(CSRF_COOKIE, secure);
  const existing = ctx.cookies.get(name);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  ctx.cookies.set(name, token, { httpOnly: true, sameSite: 'strict', secure, path: csrfPath(ctx), overwrite: true });
  return token;
}

/** Refuses (403) a form post whose token does not match the cookie, or that comes from another origin. */
export function checkCsrf(ctx: Context, form: Record<string, string>, baseUrl: string): void {
  const origin = ctx.get('origin');
  if (origin && origin !== 'null' && origin !== new URL(baseUrl).origin)
    throw new ForbiddenError(`Form posted from another origin (${origin.slice(0, 100)})`);
  const cookie = ctx.cookies.get(cookieName(CSRF_COOKIE, baseUrl.startsWith('https:'))) ?? '';
  const sent = form.csrf ?? '';
  const ok =
    cookie.length > 0 && sent.length === cookie.length && timingSafeEqual(Buffer.from(sent), Buffer.from(cookie));
  if (!ok) throw new ForbiddenError('The form expired or was not sent from this site: reload the page and try again');
}
