// Server-rendered pages (sign-in, consent, dashboard): one layout, escaping for every value, forms
// read as application/x-www-form-urlencoded, and CSRF protection by a double-submitted token: a
// random value in an HttpOnly SameSite=Strict cookie that every form must echo, plus a same-origin
// check on the Origin header when the browser sends one.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { AppError, ForbiddenError } from '../../lib/errors.ts';
import { cookieName, CSRF_COOKIE, DASHBOARD_PATH, OAUTH_PATH } from '../../lib/service-credentials.ts';
import { readBody } from '../read-body.ts';
import { CHART_CSS } from './load-figures.js';

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

const STYLE = `
:root{color-scheme:light;font-family:system-ui,sans-serif;line-height:1.5}
body{margin:0;background:#f6f7f9;color:#1b1f24}
main{overflow-wrap:break-word;max-width:60rem;margin:2rem auto;padding:1.5rem;background:#fff;border:1px solid #d0d7de;border-radius:8px}
h1{font-size:1.4rem;margin-top:0}
label{display:block;font-weight:600;margin-top:1rem}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.6rem;font-size:1rem;border:1px solid #57606a;border-radius:6px}
button{margin-top:1.25rem;min-height:44px;padding:.6rem 1.2rem;font-size:1rem;border-radius:6px;border:1px solid #1f4f99;background:#1f5fbf;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1f4f99}
.error{color:#a40e26;font-weight:600}
.client-mark{display:inline-block;margin-left:.25rem;padding:0 .5rem;border:1px solid #9a6700;border-radius:999px;background:#fff8c5;color:#6c4400;font-size:.8rem;font-weight:600;vertical-align:.1rem}
.client-card{border:1px solid #d0d7de;border-radius:6px;padding:.25rem .75rem;margin:1rem 0}.client-card.unverified{border-color:#9a6700;border-left-width:4px;background:#fffdf0}
.client-card p{margin:.5rem 0}.client-card .facts th{width:8rem;font-weight:600}.client-card .facts tr:last-child>*{border-bottom:0}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem;border-bottom:1px solid #d0d7de;vertical-align:top}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
code{background:#eef1f4;padding:0 .2rem;border-radius:4px}
nav.top{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;margin-bottom:1rem;padding-bottom:.75rem;border-bottom:1px solid #d0d7de}
nav.top a{color:#0b4fa8;padding:.5rem 0;min-height:24px}nav.top a[aria-current=page]{font-weight:700;color:#1b1f24}
nav.top form{margin-left:auto}nav.top button{margin-top:0}
a{color:#0b4fa8}
select,textarea,input[type=number]{padding:.5rem;font-size:1rem;border:1px solid #57606a;border-radius:6px;box-sizing:border-box;max-width:100%;font-family:inherit}
input[type=text],input[type=url],input:not([type]){padding:.5rem;font-size:1rem;border:1px solid #57606a;border-radius:6px;box-sizing:border-box;max-width:100%}
.key{font-family:ui-monospace,monospace;font-size:1.05rem;background:#fff8c5;padding:.5rem;border:1px solid #9a6700;border-radius:6px;word-break:break-all}
.req{border:1px solid #d0d7de;border-radius:6px;padding:.75rem;margin:.75rem 0}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;padding:.5rem;border-radius:6px;max-height:20rem;overflow:auto}
.table-wrap{overflow-x:auto}
.grade{display:inline-block;min-width:3.2rem;padding:.35rem .6rem;border-radius:8px;font-size:1.6rem;font-weight:700;text-align:center;color:#fff;vertical-align:middle}
.grade-good{background:#1a7f37}.grade-fair{background:#9a6700}.grade-poor{background:#a40e26}
.verdict{display:flex;gap:.75rem;align-items:center;flex-wrap:wrap}
tr.failed>td:first-child{color:#a40e26;font-weight:600}
.phases{display:flex;height:1.5rem;border-radius:4px;overflow:hidden;border:1px solid #d0d7de}.phases span{display:block;min-width:2px}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;margin-right:.3rem;vertical-align:-.1rem}
.facts th{width:12rem}.facts td{overflow-wrap:anywhere}
section.lookup{border-top:1px solid #d0d7de;margin-top:1.5rem}
#lookup-answer{border:1px solid #d0d7de;border-radius:6px;padding:.75rem;margin:1rem 0}
td,th{overflow-wrap:break-word}time{white-space:nowrap}
figure{margin:1rem 0}figcaption{color:#57606a}
.field{margin-top:.75rem}.field label{margin-top:0}.field input,.field textarea{width:100%}.field select{width:100%;max-width:20rem}
.row .field{display:flex;flex-direction:column;justify-content:flex-end}
small{display:block;color:#57606a;font-weight:400}
.row{display:grid;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));gap:0 1rem}.row[hidden]{display:none}
label.check{font-weight:400;display:flex;gap:.5rem;align-items:center;margin-top:.75rem}
textarea.code{font-family:ui-monospace,monospace;font-size:.9rem}
details{margin-top:1rem}summary{cursor:pointer;font-weight:600;min-height:24px}
.status-row{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}.status-row p{margin:0}.status-row button{margin-top:0}
button.danger{background:#a40e26;border-color:#7d0a1d}
.capture-url{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.75rem;margin-bottom:1rem}.capture-url p{margin:.25rem 0}
.copy-row{display:flex;gap:.5rem;align-items:center;margin:.4rem 0}.copy-row code{flex:1;min-width:0;overflow-wrap:anywhere;font-size:.9rem}.copy-row button{margin:0;min-height:32px;padding:.3rem .7rem;font-size:.9rem;white-space:nowrap}
.inspector{display:grid;grid-template-columns:minmax(15rem,21rem) minmax(0,1fr);gap:1rem;align-items:start}
.inspector h2{font-size:1.1rem;margin:.25rem 0}
.capture-list{list-style:none;padding:0;margin:.5rem 0 0;max-height:75vh;overflow-y:auto;border:1px solid #d0d7de;border-radius:6px}
.capture-list a{display:grid;grid-template-columns:auto minmax(0,1fr) auto;gap:0 .5rem;align-items:baseline;padding:.45rem .6rem;color:inherit;text-decoration:none;border-bottom:1px solid #eef1f4;min-height:24px}
.capture-list a:hover{background:#f6f8fa}.capture-list a[aria-current=true]{background:#eaf2ff;box-shadow:inset 3px 0 #1f5fbf}
.capture-list .path{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;background:none;padding:0}.capture-list time{font-size:.85rem;color:#57606a}
.capture-list .meta{grid-column:1/-1;font-size:.8rem}
.method{font:600 .75rem ui-monospace,monospace;padding:.1rem .35rem;border-radius:4px;background:#1f5fbf;color:#fff}
.mark.valid,.mark.success{color:#1a7f37}.mark.invalid,.mark.failed,.mark.missing{color:#a40e26}
.fresh{animation:fresh 2s ease-out}@keyframes fresh{from{background:#fff8c5}to{background:transparent}}
.capture-detail .req{margin-top:0}.capture-detail h2{font-size:1.05rem}.capture-detail h3{font-size:.95rem;margin:.75rem 0 .25rem}.req .meta{color:#57606a;font-size:.9rem;margin:.25rem 0}
table.kv th{width:35%;font-weight:600;font-family:ui-monospace,monospace;font-size:.85rem}table.kv td{font-family:ui-monospace,monospace;font-size:.85rem;overflow-wrap:anywhere}
.actions{display:flex;gap:.5rem;flex-wrap:wrap}.actions button{margin-top:.25rem}
form.settings label,form.search label{display:grid;grid-template-columns:10rem minmax(0,1fr);gap:.25rem .75rem;align-items:center;font-weight:600;margin-top:.6rem}
form.settings label small{grid-column:2}form.settings input,form.settings textarea,form.settings select{width:100%}
fieldset{border:1px solid #d0d7de;border-radius:6px;margin:1rem 0 0;padding:.25rem .75rem .75rem}legend{font-weight:600;padding:0 .25rem}
section.tools{margin-top:1.5rem}
textarea.code{font:.85rem/1.4 ui-monospace,monospace}ol.rules{margin:.5rem 0 0;padding-left:2rem}ol.rules li{margin:.2rem 0}ol.rules code{white-space:normal;overflow-wrap:anywhere}p.hint{color:#57606a;margin:.5rem 0 0}
.schema.valid strong{color:#1a7f37}.schema.invalid strong{color:#a40e26}.schema ul{margin:.25rem 0;font-size:.9rem}
table.diff td,table.diff th{font:.85rem ui-monospace,monospace;overflow-wrap:anywhere;vertical-align:top}table.diff tr.added td:first-child{color:#1a7f37}table.diff tr.removed td:first-child{color:#a40e26}table.diff tr.changed td:first-child{color:#9a6700}
pre.patch ins{color:#1a7f37;background:#dafbe1;text-decoration:none}pre.patch del{color:#a40e26;background:#ffebe9;text-decoration:none}pre.patch .hunk{color:#57606a}
@media (max-width:800px){.inspector{grid-template-columns:minmax(0,1fr)}}
@media (max-width:480px){form.settings label,form.search label{grid-template-columns:minmax(0,1fr)}form.settings label small{grid-column:1}}
.outcome{padding:.1rem .5rem;border-radius:6px;color:#fff}.outcome.passed{background:#1a7f37}.outcome.failed{background:#a40e26}
${CHART_CSS}
@media (max-width:480px){#load-phases{font-size:.875rem}#load-phases th,#load-phases td{padding:.3rem .25rem}}
@media (max-width:480px){main{margin:0;border-radius:0;padding:1rem}th,td{padding:.3rem}
  table.reflow thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
  table.reflow tr{display:block;border-bottom:1px solid #d0d7de;padding:.4rem 0}
  table.reflow td{display:block;border:0;padding:.15rem 0}
  table.reflow td[data-label]::before{content:attr(data-label) ": ";font-weight:600}
  .facts th{width:auto}
  nav.top .who,.capture-url .curl-row{display:none}}
a.long{overflow-wrap:anywhere}
`;

export function page(title: string, body: Html): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><style>${new Html(STYLE)}</style></head><body><main>${body}</main></body></html>`
    .value;
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
    `default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; form-action 'self'${targets.join('')}; frame-ancestors 'none'; base-uri 'none'`,
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
