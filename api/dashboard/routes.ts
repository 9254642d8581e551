// The dashboard (server-rendered, small scripts served from here, no CDN): sign in and out, API keys
// (created and shown once, named, revoked; the plan and where its windows stand), webhooks (list,
// create, delete, and a live view of captured requests), and the connected apps (OAuth clients
// authorized for /mcp, each with Disconnect). Every form carries the CSRF token; every value from a
// user or a captured request is escaped.
import fs from 'node:fs';
import Router from '@koa/router';
import type { Context } from 'koa';
import { issueApiKey, listApiKeys, revokeOwnedApiKey } from '../../db/api-keys.ts';
import { connectedApps, revokeConnectedApp } from '../../db/oauth-store.ts';
import { findUser, type Account } from '../../db/users.ts';
import { InvalidInputError, NotFoundError } from '../../lib/errors.ts';
import { createClientIp } from '../../lib/net/client-ip.ts';
import { PLAN_LIMITS, planWindows } from '../../lib/plans.ts';
import type { ApiDeps } from '../context.ts';
import { checkCsrf, csrfToken, html, readForm, sendPage, type Html } from '../pages/html.ts';
import { signIn, signInForm } from '../pages/sign-in.ts';
import { startSse } from '../sse.ts';
import { webhookViews } from '../webhook-views.ts';
import { dashboardSessions } from './session.ts';

const LIVE_SCRIPT = fs.readFileSync(new URL('./live-webhook.js', import.meta.url), 'utf8');
const when = (d: Date | string | null) => (d ? html`<time datetime="${new Date(d).toISOString()}">${new Date(d).toISOString().replace('T', ' ').slice(0, 16)} UTC</time>` : 'never');

type Section = 'keys' | 'webhooks' | 'connected-apps';

export function dashboardRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/dashboard' });
  const secure = deps.config.baseUrl.startsWith('https:');
  const sessions = dashboardSessions(deps.kv, secure);
  const clientIp = createClientIp(deps.config.trustedProxies);
  const views = webhookViews(deps.db, deps.config.baseUrl);
  /** Only paths of this site, never another host (`//evil.example`). */
  const safeNext = (next: unknown) => (typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : '/dashboard/keys');

  async function signedIn(ctx: Context): Promise<Account | null> {
    const userId = await sessions.userId(ctx);
    const account = userId === null ? null : await findUser(deps.db, userId);
    if (!account) ctx.redirect(`/dashboard/sign-in?next=${encodeURIComponent(ctx.path)}`);
    return account;
  }

  /** A signed-in page: the navigation, then the section's content. */
  function layout(ctx: Context, account: Account, section: Section, title: string, body: Html, status = 200) {
    const csrf = csrfToken(ctx, secure);
    const link = (href: string, label: string, name?: Section) => html`<a href="${href}"${name === section ? html` aria-current="page"` : ''}>${label}</a>`;
    sendPage(
      ctx,
      `${title} · netops`,
      html`<nav class="top" aria-label="Dashboard">
          ${link('/dashboard/keys', 'API keys', 'keys')} ${link('/dashboard/webhooks', 'Webhooks', 'webhooks')} ${link('/dashboard/connected-apps', 'Connected apps', 'connected-apps')}
          ${link('/docs', 'API docs')} ${deps.temporalUiUrl ? link(deps.temporalUiUrl, 'Temporal UI') : ''}
          <form method="post" action="/dashboard/sign-out"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="secondary">Sign out ${account.email}</button></form>
        </nav>
        ${body}`,
      status,
    );
    return csrf;
  }

  router.get('/', (ctx) => ctx.redirect('/dashboard/keys'));

  router.get('/sign-in', (ctx) => {
    const next = safeNext(ctx.query.next);
    sendPage(ctx, 'Sign in', signInForm({ action: `/dashboard/sign-in?next=${encodeURIComponent(next)}`, csrf: csrfToken(ctx, secure) }));
  });

  router.post('/sign-in', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form, deps.config.baseUrl);
    const next = safeNext(ctx.query.next);
    const outcome = await signIn(deps, form.email ?? '', form.password ?? '', clientIp(ctx.req));
    if ('error' in outcome) {
      return sendPage(ctx, 'Sign in', signInForm({ action: `/dashboard/sign-in?next=${encodeURIComponent(next)}`, csrf: csrfToken(ctx, secure), email: form.email, error: outcome.error }), outcome.status);
    }
    await sessions.start(ctx, outcome.account.id);
    ctx.status = 303;
    ctx.redirect(next);
  });

  router.post('/sign-out', async (ctx) => {
    checkCsrf(ctx, await readForm(ctx), deps.config.baseUrl);
    await sessions.end(ctx);
    ctx.status = 303;
    ctx.redirect('/dashboard/sign-in');
  });

  // API keys: the plan and its windows, the keys (prefix and name only), create and revoke.
  async function keysPage(ctx: Context, account: Account, created?: { apiKey: string; name: string | null }) {
    const [minute, day] = await deps.kv.usage(planWindows(account.id, account.plan));
    const keys = await listApiKeys(deps.db, account.id);
    const limits = PLAN_LIMITS[account.plan];
    const csrf = csrfToken(ctx, secure);
    layout(
      ctx,
      account,
      'keys',
      'API keys',
      html`<h1>API keys</h1>
        ${created ? html`<section aria-labelledby="new-key"><h2 id="new-key">Your new key${created.name ? html` "${created.name}"` : ''}</h2><p>Copy it now: it is shown only once.</p><p class="key" data-testid="new-key">${created.apiKey}</p></section>` : ''}
        <p>Plan <strong>${account.plan}</strong>: this minute ${minute!.limit - minute!.remaining} of ${limits.perMinute} requests (resets in ${minute!.resetSeconds} s), today ${day!.limit - day!.remaining} of ${limits.perDay} (resets at 00:00 UTC). Limits count per account, whichever key is used.</p>
        <form method="post" action="/dashboard/keys"><input type="hidden" name="csrf" value="${csrf}">
          <label for="key-name">Name of the new key</label><input id="key-name" name="name" type="text" maxlength="100" placeholder="ci, laptop, …">
          <button type="submit">Create key</button></form>
        <h2>Your keys</h2>
        ${
          keys.length === 0
            ? html`<p>No keys yet.</p>`
            : html`<div class="table-wrap"><table><thead><tr><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead><tbody>
              ${keys.map(
                (k) => html`<tr><td><code>${k.prefix}…</code></td><td>${k.name ?? ''}</td><td>${when(k.createdAt)}</td><td>${k.revokedAt ? html`revoked ${when(k.revokedAt)}` : 'active'}</td>
                  <td>${k.revokedAt ? '' : html`<form method="post" action="/dashboard/keys/revoke"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="key_id" value="${k.id}"><button type="submit" class="secondary" aria-label="Revoke ${k.prefix}">Revoke</button></form>`}</td></tr>`,
              )}</tbody></table></div>`
        }`,
    );
  }

  router.get('/keys', async (ctx) => {
    const account = await signedIn(ctx);
    if (account) await keysPage(ctx, account);
  });

  router.post('/keys', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form, deps.config.baseUrl);
    const account = await signedIn(ctx);
    if (!account) return;
    const name = (form.name ?? '').trim().slice(0, 100) || null;
    const issued = await issueApiKey(deps.db, account.id, name);
    await keysPage(ctx, account, { apiKey: issued.apiKey, name });
  });

  router.post('/keys/revoke', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form, deps.config.baseUrl);
    const account = await signedIn(ctx);
    if (!account) return;
    const keyId = Number(form.key_id);
    if (!Number.isSafeInteger(keyId) || keyId < 1) throw new InvalidInputError('key_id must be the id of one of your keys', 'key_id');
    await revokeOwnedApiKey(deps.db, account.id, keyId);
    ctx.status = 303;
    ctx.redirect('/dashboard/keys');
  });

  // Webhooks: list with counts, create, delete, and the live view of one.
  router.get('/webhooks', async (ctx) => {
    const account = await signedIn(ctx);
    if (!account) return;
    const { webhooks } = await views.list(account.id);
    const csrf = csrfToken(ctx, secure);
    layout(
      ctx,
      account,
      'webhooks',
      'Webhooks',
      html`<h1>Webhooks</h1>
        <form method="post" action="/dashboard/webhooks"><input type="hidden" name="csrf" value="${csrf}"><button type="submit">Create a webhook</button></form>
        ${
          webhooks.length === 0
            ? html`<p>No webhooks yet.</p>`
            : html`<div class="table-wrap"><table><thead><tr><th scope="col">Capture URL</th><th scope="col">Requests</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>
              ${webhooks.map(
                (w) => html`<tr><td><a href="/dashboard/webhooks/${w.webhook_id}">${w.webhook_url}</a></td><td>${w.request_count}</td><td>${when(w.created_at)}</td>
                  <td><form method="post" action="/dashboard/webhooks/delete"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="webhook_id" value="${w.webhook_id}"><button type="submit" class="secondary" aria-label="Delete ${w.webhook_id}">Delete</button></form></td></tr>`,
              )}</tbody></table></div>`
        }`,
    );
  });

  router.post('/webhooks', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form, deps.config.baseUrl);
    const account = await signedIn(ctx);
    if (!account) return;
    const created = await views.create(account.id);
    ctx.status = 303;
    ctx.redirect(`/dashboard/webhooks/${created.webhook_id}`);
  });

  router.post('/webhooks/delete', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form, deps.config.baseUrl);
    const account = await signedIn(ctx);
    if (!account) return;
    await views.remove(account.id, form.webhook_id ?? '').catch((err) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
    ctx.status = 303;
    ctx.redirect('/dashboard/webhooks');
  });

  router.get('/webhooks/:webhook_id', async (ctx) => {
    const account = await signedIn(ctx);
    if (!account) return;
    const id = ctx.params.webhook_id!;
    let data;
    try {
      data = await views.requests(account.id, id);
    } catch (err) {
      if (err instanceof NotFoundError) return layout(ctx, account, 'webhooks', 'Not found', html`<h1>No such webhook</h1><p>No webhook ${id} among yours. <a href="/dashboard/webhooks">Your webhooks</a></p>`, 404);
      throw err;
    }
    const url = `${deps.config.baseUrl}/webhook/${id}`;
    layout(
      ctx,
      account,
      'webhooks',
      `Webhook ${id}`,
      html`<h1>Webhook</h1>
        <p>Send any request to <code>${url}</code>; it appears below as it arrives.</p>
        <p><code>curl -X POST ${url} -H 'Content-Type: application/json' -d '{"hello":"world"}'</code></p>
        <p role="status" id="live-status" aria-live="polite">Connecting…</p>
        <section id="requests" data-webhook="${id}" data-capture-url="${url}" aria-label="Captured requests">
          ${data.requests.map((r) => requestCard(r, url))}
        </section>
        <script src="/dashboard/assets/live-webhook.js"></script>`,
    );
  });

  router.get('/webhooks/:webhook_id/events', async (ctx) => {
    const account = await signedIn(ctx);
    if (!account) return;
    const id = ctx.params.webhook_id!;
    await views.requests(account.id, id, Number.MAX_SAFE_INTEGER); // 404 before streaming
    // The page already shows what was kept: stream only what comes after it.
    const after = Number(ctx.query.after) || 0;
    const tick = views.requestsStream(account.id, id);
    const url = `${deps.config.baseUrl}/webhook/${id}`;
    let first = true;
    startSse(ctx, async () => {
      const t = await tick();
      t.events = t.events.map((e) => (e.event === 'requests' ? { ...e, data: forPage(e.data, first ? after : 0, url) } : e));
      first = false;
      return t;
    });
  });

  router.get('/assets/live-webhook.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = LIVE_SCRIPT;
  });

  router.get('/connected-apps', async (ctx) => {
    const account = await signedIn(ctx);
    if (!account) return;
    const apps = await connectedApps(deps.db, String(account.id));
    const csrf = csrfToken(ctx, secure);
    const notice = ctx.query.revoked ? html`<p role="status">Disconnected ${String(ctx.query.revoked)}: its tokens no longer work.</p>` : '';
    layout(
      ctx,
      account,
      'connected-apps',
      'Connected apps',
      html`<h1>Connected apps</h1>
        <p>Signed in as ${account.email}.</p>
        ${notice}
        ${
          apps.length === 0
            ? html`<p>No app is connected to your account. MCP clients connect at <code>${deps.config.baseUrl}/mcp</code>.</p>`
            : html`<div class="table-wrap"><table><thead><tr><th scope="col">App</th><th scope="col">Scopes</th><th scope="col">First used</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead><tbody>
              ${apps.map(
                (a) => html`<tr>
                  <td>${a.clientName ?? a.clientId}<br><small>${a.redirectHosts.join(', ')}</small></td>
                  <td>${a.scopes.map((s) => html`<code>${s}</code> `)}</td>
                  <td>${when(a.firstUsedAt)}</td>
                  <td>${when(a.lastUsedAt)}</td>
                  <td><form method="post" action="/dashboard/connected-apps/revoke"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="client_id" value="${a.clientId}"><button type="submit" aria-label="Disconnect ${a.clientName ?? a.clientId}">Disconnect</button></form></td>
                </tr>`,
              )}
              </tbody></table></div>`
        }`,
    );
  });

  router.post('/connected-apps/revoke', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form, deps.config.baseUrl);
    const account = await signedIn(ctx);
    if (!account) return;
    const clientId = form.client_id ?? '';
    const app = (await connectedApps(deps.db, String(account.id))).find((a) => a.clientId === clientId);
    if (!app || !(await revokeConnectedApp(deps.db, String(account.id), clientId))) {
      return layout(ctx, account, 'connected-apps', 'Not connected', html`<h1>Not connected</h1><p>No app ${clientId} is connected to your account.</p><p><a href="/dashboard/connected-apps">Back</a></p>`, 404);
    }
    ctx.status = 303;
    ctx.redirect(`/dashboard/connected-apps?revoked=${encodeURIComponent(app.clientName ?? app.clientId)}`);
  });

  return router;
}

type CapturedView = Awaited<ReturnType<ReturnType<typeof webhookViews>['requests']>>['requests'][number];

/** A stream event for the page: only requests after the ones it rendered, each with its display text and curl. */
function forPage(data: unknown, after: number, url: string) {
  const d = data as { data: { requests: CapturedView[] } };
  const requests = d.data.requests.filter((r) => r.id > after).map((r) => ({ ...r, pretty_body: prettyBody(r.body), curl: curlOf(r, url) }));
  return { ...d, data: { total: requests.length, requests } };
}

/** One captured request, escaped; JSON bodies pretty-printed; a copy-as-curl command for replaying it. */
function requestCard(r: CapturedView, url: string): Html {
  return html`<article class="req" data-id="${r.id}">
    <h2><strong>${r.method}</strong> <time datetime="${r.created_at}">${r.created_at}</time> from ${r.ip_address}</h2>
    <details><summary>Headers</summary><pre>${Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`).join('\n')}</pre></details>
    ${r.query_params ? html`<p>Query <code>${r.query_params}</code></p>` : ''}
    <pre class="body">${prettyBody(r.body)}</pre>
    <button type="button" class="secondary copy-curl" data-curl="${curlOf(r, url)}">Copy as curl</button>
  </article>`;
}

export function prettyBody(body: string | null): string {
  if (body === null || body === '') return '(no body)';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const HOP_HEADERS = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'transfer-encoding']);

export function curlOf(r: Pick<CapturedView, 'method' | 'headers' | 'body'> & { path?: string; query_params?: string | null }, url: string): string {
  const query = r.query_params ? `?${new URLSearchParams(JSON.parse(r.query_params) as Record<string, string>)}` : '';
  const target = r.path ? new URL(r.path, url).href : url;
  const parts = [`curl -X ${r.method} ${shellQuote(target + query)}`];
  for (const [k, v] of Object.entries(r.headers)) if (!HOP_HEADERS.has(k.toLowerCase())) parts.push(`-H ${shellQuote(`${k}: ${v}`)}`);
  if (r.body) parts.push(`--data-binary ${shellQuote(r.body)}`);
  return parts.join(' ');
}
