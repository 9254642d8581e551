// The dashboard (server-rendered): sign in and out, and the connected apps, the OAuth clients the
// user authorized for /mcp, with their scopes and first and last use, each with a Disconnect button
// that revokes its grants, so that its access and refresh tokens stop working at once.
import Router from '@koa/router';
import type { Context } from 'koa';
import { connectedApps, revokeConnectedApp } from '../../db/oauth-store.ts';
import { findUser } from '../../db/users.ts';
import { createClientIp } from '../../lib/net/client-ip.ts';
import type { ApiDeps } from '../context.ts';
import { checkCsrf, csrfToken, html, readForm, sendPage } from '../pages/html.ts';
import { signIn, signInForm } from '../pages/sign-in.ts';
import { dashboardSessions } from './session.ts';

export function dashboardRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/dashboard' });
  const secure = deps.config.baseUrl.startsWith('https:');
  const sessions = dashboardSessions(deps.kv, secure);
  const clientIp = createClientIp(deps.config.trustedProxies);
  /** Only paths of this site, never another host (`//evil.example`). */
  const safeNext = (next: unknown) => (typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : '/dashboard/connected-apps');

  async function signedIn(ctx: Context) {
    const userId = await sessions.userId(ctx);
    const account = userId === null ? null : await findUser(deps.db, userId);
    if (!account) ctx.redirect(`/dashboard/sign-in?next=${encodeURIComponent(ctx.path)}`);
    return account;
  }

  router.get('/', (ctx) => ctx.redirect('/dashboard/connected-apps'));

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

  router.get('/connected-apps', async (ctx) => {
    const account = await signedIn(ctx);
    if (!account) return;
    const apps = await connectedApps(deps.db, String(account.id));
    const csrf = csrfToken(ctx, secure);
    const when = (d: Date | null) => (d ? html`<time datetime="${d.toISOString()}">${d.toISOString().replace('T', ' ').slice(0, 16)} UTC</time>` : 'never');
    const notice = ctx.query.revoked ? html`<p role="status">Disconnected ${String(ctx.query.revoked)}: its tokens no longer work.</p>` : '';
    sendPage(
      ctx,
      'Connected apps',
      html`<h1>Connected apps</h1>
        <p>Signed in as ${account.email}.</p>
        ${notice}
        ${
          apps.length === 0
            ? html`<p>No app is connected to your account. MCP clients connect at <code>${deps.config.baseUrl}/mcp</code>.</p>`
            : html`<table><thead><tr><th scope="col">App</th><th scope="col">Scopes</th><th scope="col">First used</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead><tbody>
              ${apps.map(
                (a) => html`<tr>
                  <td>${a.clientName ?? a.clientId}<br><small>${a.redirectHosts.join(', ')}</small></td>
                  <td>${a.scopes.map((s) => html`<code>${s}</code> `)}</td>
                  <td>${when(a.firstUsedAt)}</td>
                  <td>${when(a.lastUsedAt)}</td>
                  <td><form method="post" action="/dashboard/connected-apps/revoke"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="client_id" value="${a.clientId}"><button type="submit" aria-label="Disconnect ${a.clientName ?? a.clientId}">Disconnect</button></form></td>
                </tr>`,
              )}
              </tbody></table>`
        }
        <form method="post" action="/dashboard/sign-out"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="secondary">Sign out</button></form>`,
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
      return sendPage(ctx, 'Not connected', html`<h1>Not connected</h1><p>No app ${clientId} is connected to your account.</p><p><a href="/dashboard/connected-apps">Back</a></p>`, 404);
    }
    ctx.status = 303;
    ctx.redirect(`/dashboard/connected-apps?revoked=${encodeURIComponent(app.clientName ?? app.clientId)}`);
  });

  return router;
}
