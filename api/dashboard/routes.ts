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
import { AppError, InvalidInputError, NotFoundError } from '../../lib/errors.ts';
import type { ShardSnapshot } from '../../activities/load/generator.ts';
import { intervalTracker, type FinalResults } from '../../activities/load/metrics.ts';
import { readShardSnapshots } from '../../db/load-tests.ts';
import { HTTP_METHODS, loadTestService, startBody } from '../routes/load-testing.ts';
import { validate } from '../validate.ts';
import { resumeHeaders } from '../routes/webhooks.ts';
import { createClientIp } from '../../lib/net/client-ip.ts';
import { PLAN_LIMITS, planWindows } from '../../lib/plans.ts';
import type { ApiDeps } from '../context.ts';
import { checkCsrf, csrfToken, html, readForm, sendPage, type Html } from '../pages/html.ts';
import { signIn, signInForm } from '../pages/sign-in.ts';
import { startSse } from '../sse.ts';
import { webhookViews } from '../webhook-views.ts';
import { dashboardSessions } from './session.ts';

const LIVE_SCRIPT = fs.readFileSync(new URL('./live-webhook.js', import.meta.url), 'utf8');
const CHART_SCRIPT = fs.readFileSync(new URL('./load-chart.js', import.meta.url), 'utf8');
const when = (d: Date | string | null) => (d ? html`<time datetime="${new Date(d).toISOString()}">${new Date(d).toISOString().replace('T', ' ').slice(0, 16)} UTC</time>` : 'never');

type Section = 'keys' | 'webhooks' | 'load-tests' | 'connected-apps';

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

  /** A signed-in form post: the form with its CSRF token checked, and the account (null: sent to sign in). */
  async function signedInForm(ctx: Context): Promise<{ form: Record<string, string>; account: Account } | null> {
    const form = await readForm(ctx);
    checkCsrf(ctx, form, deps.config.baseUrl);
    const account = await signedIn(ctx);
    return account ? { form, account } : null;
  }

  /** A signed-in page: the navigation, then the section's content. */
  function layout(ctx: Context, account: Account, section: Section, title: string, body: Html, status = 200) {
    const csrf = csrfToken(ctx, secure);
    const link = (href: string, label: string, name?: Section) => html`<a href="${href}"${name === section ? html` aria-current="page"` : ''}>${label}</a>`;
    sendPage(
      ctx,
      `${title} · netops`,
      html`<nav class="top" aria-label="Dashboard">
          ${link('/dashboard/keys', 'API keys', 'keys')} ${link('/dashboard/webhooks', 'Webhooks', 'webhooks')} ${link('/dashboard/load-tests', 'Load tests', 'load-tests')} ${link('/dashboard/connected-apps', 'Connected apps', 'connected-apps')}
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
    seeOther(ctx, next);
  });

  router.post('/sign-out', async (ctx) => {
    checkCsrf(ctx, await readForm(ctx), deps.config.baseUrl);
    await sessions.end(ctx);
    seeOther(ctx, '/dashboard/sign-in');
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
    const post = await signedInForm(ctx);
    if (!post) return;
    const { form, account } = post;
    const name = (form.name ?? '').trim().slice(0, 100) || null;
    const issued = await issueApiKey(deps.db, account.id, name);
    await keysPage(ctx, account, { apiKey: issued.apiKey, name });
  });

  router.post('/keys/revoke', async (ctx) => {
    const post = await signedInForm(ctx);
    if (!post) return;
    const { form, account } = post;
    const keyId = Number(form.key_id);
    if (!Number.isSafeInteger(keyId) || keyId < 1) throw new InvalidInputError('key_id must be the id of one of your keys', 'key_id');
    await revokeOwnedApiKey(deps.db, account.id, keyId);
    seeOther(ctx, '/dashboard/keys');
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
    const post = await signedInForm(ctx);
    if (!post) return;
    const { account } = post;
    const created = await views.create(account.id);
    seeOther(ctx, `/dashboard/webhooks/${created.webhook_id}`);
  });

  router.post('/webhooks/delete', async (ctx) => {
    const post = await signedInForm(ctx);
    if (!post) return;
    const { form, account } = post;
    await views.remove(account.id, form.webhook_id ?? '').catch((err) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
    seeOther(ctx, '/dashboard/webhooks');
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
    // The page already shows what was kept: stream only what comes after it, or after the last event
    // received when the browser reconnects.
    const resume = validate(resumeHeaders, ctx.headers, 'header')['last-event-id'];
    const tick = views.requestsStream(account.id, id, resume ?? (Number(ctx.query.after) || 0));
    const url = `${deps.config.baseUrl}/webhook/${id}`;
    startSse(ctx, async () => {
      const t = await tick();
      t.events = t.events.map((e) => (e.event === 'requests' ? { ...e, data: forPage(e.data, url) } : e));
      return t;
    });
  });

  router.get('/assets/live-webhook.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = LIVE_SCRIPT;
  });

  // Load tests: the start form (the API's fields and validation), the history, a live page with a
  // chart while a test runs, and its results when it ends.
  const tests = loadTestService(deps);

  async function loadTestsPage(ctx: Context, account: Account, form: Record<string, string> = {}, error?: string) {
    const { data } = await tests.list(account.id, 20);
    const csrf = csrfToken(ctx, secure);
    const v = (name: string, fallback = '') => form[name] ?? fallback;
    const field = (name: string, label: string, attrs: Html) => html`<p><label for="${name}">${label}</label><input id="${name}" name="${name}" ${attrs} value="${v(name)}"></p>`;
    layout(
      ctx,
      account,
      'load-tests',
      'Load tests',
      html`<h1>Load tests</h1>
        ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
        <form method="post" action="/dashboard/load-tests"><input type="hidden" name="csrf" value="${csrf}">
          <p><label for="targetUrl">Target URL</label><input id="targetUrl" name="targetUrl" type="text" required style="width:100%" value="${v('targetUrl')}" placeholder="https://staging.example.com/health"></p>
          <p><label for="httpMethod">Method</label><select id="httpMethod" name="httpMethod">${HTTP_METHODS.map((m) => html`<option${m === v('httpMethod', 'GET') ? html` selected` : ''}>${m}</option>`)}</select></p>
          ${field('concurrentUsers', 'Concurrent users (1 to 10000)', html`type="number" min="1" max="10000" required`)}
          ${field('testDuration', 'Duration in seconds (10 to 3600)', html`type="number" min="10" max="3600" required`)}
          ${field('rampUpTime', 'Ramp-up in seconds (default 10)', html`type="number" min="0" max="3600"`)}
          ${field('requestsPerSecond', 'Requests per second (0: as fast as answered)', html`type="number" min="0"`)}
          <p><label for="headers">Headers, one "Name: value" per line</label><textarea id="headers" name="headers" rows="3" style="width:100%">${v('headers')}</textarea></p>
          <p><label for="body">Body (POST, PUT, PATCH)</label><textarea id="body" name="body" rows="3" style="width:100%">${v('body')}</textarea></p>
          <p><label for="authType">Authentication</label><select id="authType" name="authType">${['none', 'basic', 'bearer', 'apikey'].map((a) => html`<option${a === v('authType', 'none') ? html` selected` : ''}>${a}</option>`)}</select></p>
          ${field('authUsername', 'Basic: user name', html`type="text" autocomplete="off"`)}
          <p><label for="authPassword">Basic: password</label><input id="authPassword" name="authPassword" type="password" autocomplete="off"></p>
          <p><label for="authToken">Bearer: token</label><input id="authToken" name="authToken" type="password" autocomplete="off"></p>
          ${field('apiKeyHeader', 'API key: header name', html`type="text" placeholder="X-API-Key"`)}
          <p><label for="apiKeyValue">API key: value</label><input id="apiKeyValue" name="apiKeyValue" type="password" autocomplete="off"></p>
          <p><label><input type="checkbox" name="insecureTls" value="true"${v('insecureTls') === 'true' ? html` checked` : ''}> Accept any certificate (https with a self-signed one, say)</label></p>
          <button type="submit">Start the load test</button></form>
        <h2>History</h2>
        ${
          data.tests.length === 0
            ? html`<p>No load tests yet.</p>`
            : html`<div class="table-wrap"><table><thead><tr><th scope="col">Target</th><th scope="col">Status</th><th scope="col">Users</th><th scope="col">Requests</th><th scope="col">p95 (ms)</th><th scope="col">Created</th></tr></thead><tbody>
              ${data.tests.map(
                (t) => html`<tr><td><a href="/dashboard/load-tests/${t.test_id}">${String(t.config.http_method ?? '')} ${String(t.config.target_url ?? '')}</a></td><td>${t.status}</td><td>${String(t.config.concurrent_users ?? '')}</td>
                  <td>${t.summary ? String(t.summary.total_requests) : ''}</td><td>${t.summary ? String(t.summary.p95_response_time) : ''}</td><td>${when(t.created_at)}</td></tr>`,
              )}</tbody></table></div>`
        }`,
      error ? 400 : 200,
    );
  }

  router.get('/load-tests', async (ctx) => {
    const account = await signedIn(ctx);
    if (account) await loadTestsPage(ctx, account);
  });

  router.post('/load-tests', async (ctx) => {
    const post = await signedInForm(ctx);
    if (!post) return;
    const { form, account } = post;
    const { csrf: _csrf, authPassword: _p, authToken: _t, apiKeyValue: _k, ...kept } = form;
    try {
      const answer = await tests.start(validate(startBody, startBodyFromForm(form), 'body'), account.id);
      seeOther(ctx, `/dashboard/load-tests/${answer.test_id}`);
    } catch (err) {
      if (err instanceof InvalidInputError) return loadTestsPage(ctx, account, kept, err.message);
      throw err;
    }
  });

  router.get('/load-tests/:test_id', async (ctx) => {
    const account = await signedIn(ctx);
    if (!account) return;
    let row;
    try {
      row = await tests.owned(ctx.params.test_id!, account.id);
    } catch (err) {
      if (err instanceof NotFoundError) return layout(ctx, account, 'load-tests', 'Not found', html`<h1>No such load test</h1><p><a href="/dashboard/load-tests">Your load tests</a></p>`, 404);
      throw err;
    }
    const status = await tests.status(row);
    const ended = !['pending', 'running'].includes(status.status);
    const final = ended ? (await tests.results(row.id, account.id)).results : null;
    const csrf = csrfToken(ctx, secure);
    const m = status.metrics as Record<string, number>;
    layout(
      ctx,
      account,
      'load-tests',
      `Load test ${row.id}`,
      html`<h1>Load test</h1>
        <p><code>${String(row.config.http_method)} ${String(row.config.target_url)}</code>, ${String(row.config.concurrent_users)} users for ${String(row.config.test_duration)} s</p>
        <p role="status" aria-live="polite" id="load-status" data-test="${row.id}" data-ended="${ended ? 'yes' : 'no'}">Status <strong>${status.status}</strong>, ${status.progress}% done${status.failure_reason ? html`: ${status.failure_reason}` : ''}</p>
        <p id="load-totals">${m.total_requests ?? 0} requests, ${m.throughput ?? 0} per second, ${m.error_rate ?? 0}% errors, average ${m.avg_response_time ?? 0} ms</p>
        ${status.status === 'running' ? html`<form method="post" action="/dashboard/load-tests/${row.id}/stop"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="secondary">Stop</button></form>` : ''}
        <figure><figcaption>Requests per second, error rate and latency (p50, p95, p99) over time</figcaption>
          <div id="load-chart" data-series="${JSON.stringify(final?.requests_per_second ?? [])}"></div></figure>
        ${final ? resultsTable(final) : ''}
        <script src="/dashboard/assets/load-chart.js"></script>`,
    );
  });

  router.post('/load-tests/:test_id/stop', async (ctx) => {
    const post = await signedInForm(ctx);
    if (!post) return;
    const { account } = post;
    const row = await tests.owned(ctx.params.test_id!, account.id);
    await tests.stop(row).catch((err) => {
      if (!(err instanceof AppError && err.status === 409)) throw err;
    });
    seeOther(ctx, `/dashboard/load-tests/${row.id}`);
  });

  // The status answer plus a chart point (the last interval's rate, errors and percentiles) every second.
  router.get('/load-tests/:test_id/events', async (ctx) => {
    const account = await signedIn(ctx);
    if (!account) return;
    const row = await tests.owned(ctx.params.test_id!, account.id);
    const statusTick = tests.statusStream(row.id, account.id);
    const track = intervalTracker();
    startSse(ctx, async () => {
      const t = await statusTick();
      const point = track(await readShardSnapshots<ShardSnapshot>(deps.db, row.id));
      return { events: [...t.events, ...(point && !t.done ? [{ event: 'point', data: point }] : [])], done: t.done };
    });
  });

  router.get('/assets/load-chart.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = CHART_SCRIPT;
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
    const post = await signedInForm(ctx);
    if (!post) return;
    const { form, account } = post;
    const clientId = form.client_id ?? '';
    const app = (await connectedApps(deps.db, String(account.id))).find((a) => a.clientId === clientId);
    if (!app || !(await revokeConnectedApp(deps.db, String(account.id), clientId))) {
      return layout(ctx, account, 'connected-apps', 'Not connected', html`<h1>Not connected</h1><p>No app ${clientId} is connected to your account.</p><p><a href="/dashboard/connected-apps">Back</a></p>`, 404);
    }
    seeOther(ctx, `/dashboard/connected-apps?revoked=${encodeURIComponent(app.clientName ?? app.clientId)}`);
  });

  return router;
}

/** The API's start body from the dashboard's form (numbers as numbers, headers from lines). */
function startBodyFromForm(form: Record<string, string>): Record<string, unknown> {
  const num = (name: string) => (form[name] === undefined || form[name].trim() === '' ? undefined : Number(form[name]));
  const headers: Record<string, string> = {};
  for (const line of (form.headers ?? '').split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (line.trim() === '') continue;
    if (at <= 0) throw new InvalidInputError(`headers: "${line.slice(0, 60)}" is not "Name: value"`, 'headers');
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  const optional = (name: string) => (form[name]?.trim() ? form[name] : undefined);
  return {
    targetUrl: form.targetUrl ?? '',
    httpMethod: form.httpMethod ?? 'GET',
    concurrentUsers: num('concurrentUsers'),
    testDuration: num('testDuration'),
    rampUpTime: num('rampUpTime'),
    requestsPerSecond: num('requestsPerSecond'),
    headers,
    body: optional('body'),
    authType: form.authType || 'none',
    authUsername: optional('authUsername'),
    authPassword: optional('authPassword'),
    authToken: optional('authToken'),
    apiKeyHeader: optional('apiKeyHeader'),
    apiKeyValue: optional('apiKeyValue'),
    insecureTls: form.insecureTls === 'true',
  };
}

function resultsTable(r: FinalResults): Html {
  const rows: Array<[string, string | number]> = [
    ['Total requests', r.total_requests], ['Successful', r.successful_requests], ['Failed', r.failed_requests], ['Error rate', `${r.error_rate}%`],
    ['Throughput', `${r.throughput} requests/s`], ['Average', `${r.avg_response_time} ms`], ['Min', `${r.min_response_time} ms`], ['Max', `${r.max_response_time} ms`],
    ['p50', `${r.p50_response_time} ms`], ['p75', `${r.p75_response_time} ms`], ['p90', `${r.p90_response_time} ms`], ['p95', `${r.p95_response_time} ms`], ['p99', `${r.p99_response_time} ms`],
    ['Bytes sent', r.total_bytes_sent], ['Bytes received', r.total_bytes_received], ['Duration', `${r.duration_seconds} s`], ['Dropped (open model)', r.dropped_requests], ['Shard failures', r.shard_failures],
  ];
  const counts = (title: string, c: Record<string, number>) =>
    html`<h3>${title}</h3>${Object.keys(c).length ? html`<table><tbody>${Object.entries(c).map(([k, n]) => html`<tr><th scope="row">${k}</th><td>${n}</td></tr>`)}</tbody></table>` : html`<p>none</p>`}`;
  return html`<h2>Results</h2><div class="table-wrap"><table id="load-results"><tbody>${rows.map(([k, val]) => html`<tr><th scope="row">${k}</th><td>${val}</td></tr>`)}</tbody></table></div>
    ${counts('Status codes', r.status_codes ?? {})}${counts('Errors', r.errors ?? {})}`;
}

type CapturedView = Awaited<ReturnType<ReturnType<typeof webhookViews>['requests']>>['requests'][number];

/** A stream event for the page: only requests after the ones it rendered, each with its display text and curl. */
function forPage(data: unknown, url: string) {
  const d = data as { data: { requests: CapturedView[] } };
  const requests = d.data.requests.map((r) => ({ ...r, pretty_body: prettyBody(r.body), curl: curlOf(r, url) }));
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

/** After a form post: 303, so a reload does not post again. */
function seeOther(ctx: Context, url: string): void {
  ctx.status = 303;
  ctx.redirect(url);
}
