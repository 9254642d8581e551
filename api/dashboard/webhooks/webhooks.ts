// Dashboard: webhooks (list with counts, create, delete) and the live view of one's captured requests.
import type { Context } from 'koa';
import type { Account } from '../../../db/users.ts';
import { AppError, NotFoundError } from '../../../lib/errors.ts';
import { assetPath } from '../assets.ts';
import { html, type Html } from '../../pages/html.ts';
import { resumeHeaders } from '../../../contract/webhooks/webhooks.ts';
import type { Services } from '../../services/index.ts';
import { startSse } from '../../sse.ts';
import { validate } from '../../../contract/validate.ts';
import { breakableUrl, dataTable, seeOther, when, type DashboardPages } from '../page.ts';
import { captureItem, forPage, requestCard } from './webhook-cards.ts';
import { labelled } from '../form-labels.ts';
import { rulesTestForm, webhookRuleRoutes } from './webhook-rules.ts';
import { webhookDiffRoutes } from './webhook-diff.ts';
import {
  SEARCH_FIELDS,
  searchForm,
  searchOf,
  settingsForm,
  toolsOf,
  WEBHOOK_FORM_LABELS,
  webhookToolRoutes,
} from './webhook-settings.ts';

export function webhookSection(
  page: DashboardPages,
  services: Pick<Services, 'webhooks' | 'streams' | 'webhookReplays' | 'webhookExports'>,
): void {
  const { webhooks, streams } = services;
  /** The list with counts and the create form; `error` (a bound of the plan, say) above them. */
  async function webhooksPage(ctx: Context, account: Account, error?: AppError) {
    const { webhooks: list } = await webhooks.list({ userId: account.id, plan: account.plan });
    const csrf = page.csrf(ctx);
    page.layout(
      ctx,
      account,
      'webhooks',
      'Webhooks',
      html`<h1>Webhooks</h1>
        ${error ? html`<p class="error" role="alert">${error.message}</p>` : ''}
        <form method="post" action="/dashboard/webhooks"><input type="hidden" name="csrf" value="${csrf}">\
<button type="submit">Create a webhook</button></form>
        ${
          list.length === 0
            ? html`<p>No webhooks yet.</p>`
            : dataTable(
                ['Capture URL', 'Requests', 'Created', { label: 'Actions', hidden: true }],
                list.map((w) => [
                  html`<a class="long" href="/dashboard/webhooks/${w.webhook_id}">${breakableUrl(w.webhook_url)}</a>`,
                  w.request_count,
                  when(w.created_at),
                  html`<form method="post" action="/dashboard/webhooks/delete">\
<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="webhook_id" value="${w.webhook_id}">\
<button type="submit" class="secondary" aria-label="Delete ${w.webhook_id}">Delete</button></form>`,
                ]),
              )
        }`,
      error?.status ?? 200,
    );
  }

  // Webhooks: list with counts, create, delete, and the live view of one.
  page.get('/webhooks', (ctx, account) => webhooksPage(ctx, account));

  page.post('/webhooks', async (ctx, { account }) => {
    try {
      const created = await webhooks.create({ userId: account.id, plan: account.plan });
      seeOther(ctx, `/dashboard/webhooks/${created.webhook_id}`);
    } catch (err) {
      if (err instanceof AppError && err.code === 'plan_limit') return webhooksPage(ctx, account, err);
      throw err;
    }
  });

  page.post(
    '/webhooks/delete',
    async (ctx, { form, account }) => {
      await webhooks.remove(account.id, form.webhook_id ?? '').catch((err) => {
        if (!(err instanceof NotFoundError)) throw err;
      });
      seeOther(ctx, '/dashboard/webhooks');
    },
    { refusable: false },
  );

  /** One webhook's page: its settings and tools, then its captures (live, or those a search found); `notice` above. */
  async function webhookPage(
    ctx: Context,
    account: Account,
    notice: { error?: AppError; message?: Html; tried?: Record<string, string> } = {},
  ) {
    const id = ctx.params.id!;
    const owner = { userId: account.id, plan: account.plan };
    const webhook = await webhooks.one(owner, id);
    let search: ReturnType<typeof searchOf> = null;
    let error = notice.error;
    try {
      search = searchOf(ctx.query, id);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      error ??= labelled(err, WEBHOOK_FORM_LABELS);
    }
    const found = search
      ? await webhooks.search(account.id, id, {
          filter: {
            method: search.parsed.method,
            header: search.parsed.header,
            text: search.parsed.q,
            since: search.parsed.since,
            until: search.parsed.until,
          },
          limit: search.parsed.limit,
          cursor: search.parsed.cursor,
          schema: search.parsed.schema,
        })
      : await webhooks.requests(account.id, id);
    const url = webhook.webhook_url;
    const csrf = page.csrf(ctx);
    const next =
      'next_cursor' in found && found.next_cursor
        ? `/dashboard/webhooks/${id}?${new URLSearchParams({ ...search!.given, cursor: String(found.next_cursor) })}`
        : null;
    const curl = `curl -X POST ${url} -H 'Content-Type: application/json' -d '{"hello":"world"}'`;
    const selected = found.requests[0]?.id;
    page.layout(
      ctx,
      account,
      'webhooks',
      `Webhook ${id}`,
      html`<h1>Webhook</h1>
        <div class="capture-url"><p>Send any request to this URL; it appears below as it arrives.</p>
          <div class="copy-row"><code id="capture-url">${url}</code>\
<button type="button" class="secondary copy" data-copy="${url}">Copy URL</button></div>
          <div class="copy-row curl-row"><code class="curl">${curl}</code>\
<button type="button" class="secondary copy" data-copy="${curl}">Copy curl</button></div>
          ${summaryOf(webhook)}</div>
        ${error ? html`<p class="error" role="alert">${error.message}</p>` : ''}
        ${notice.message ? html`<div class="notice" role="status">${notice.message}</div>` : ''}
        <div class="inspector">
          <section class="captures" aria-labelledby="captures-heading">
            <h2 id="captures-heading">Captures</h2>
            ${
              search
                ? html`<p role="status">${found.total} capture(s) match${
                    next
                      ? html`; \
<a href="${next}">older ones</a>`
                      : ''
                  }.</p>`
                : html`<p role="status" id="live-status" aria-live="polite">Connecting…\
</p>`
            }
            ${searchForm(webhook, search?.given ?? null)}
            <ol id="capture-list" class="capture-list">\
${found.requests.map((r) => captureItem(r, r.id === selected))}</ol>
            ${
              found.requests.length
                ? ''
                : html`<p id="no-captures">Nothing captured${search ? ' matches' : ' yet'}.\
</p>`
            }
          </section>
          <section id="requests" class="capture-detail" data-webhook="${id}" data-capture-url="\
${url}" aria-label="The selected capture">
            ${found.requests.map((r) => requestCard(r, url, r.id === selected))}
          </section>
        </div>
        ${toolsOf(
          webhook,
          csrf,
          search?.given ?? null,
          found.requests.map((r) => r.id),
        )}
        ${settingsForm(webhook, csrf)}
        ${rulesTestForm(webhook, csrf, notice.tried)}
        <script src="${assetPath('live-webhook.js')}"></script>`,
      error ? error.status : 200,
    );
  }

  /** What the webhook does besides capturing, in one line: its answer, forwarding, signature check. */
  function summaryOf(w: Awaited<ReturnType<typeof webhooks.one>>): Html {
    const answer = w.response
      ? `${w.response.status}${w.response.delay_ms ? ` after ${w.response.delay_ms} ms` : ''}`
      : 'the default 200 JSON';
    const parts = [
      w.rules.length
        ? `answers by its ${w.rules.length} rule${w.rules.length === 1 ? '' : 's'}, else ${answer}`
        : `answers ${answer}`,
      w.forward_url ? `forwards to ${w.forward_url}` : null,
      w.signature ? `checks ${w.signature.scheme} signatures` : null,
      `keeps ${w.retention.max_requests} captures for ${w.retention.max_age_days} days`,
    ].filter(Boolean);
    return html`<p class="summary">This webhook ${parts.join(', ')} (Settings below).</p>`;
  }

  page.item(
    '/webhooks/:id',
    'webhooks',
    'webhook',
    (id, account) => webhooks.one({ userId: account.id, plan: account.plan }, id),
    async (ctx, account) => {
      // A search reads and filters up to 10,000 captures: it counts as an API call (page views are free).
      if (Object.keys(ctx.query).length) await page.spend(account);
      await webhookPage(ctx, account);
    },
    { query: SEARCH_FIELDS },
  );
  webhookToolRoutes(page, services, webhookPage);
  webhookRuleRoutes(page, services, webhookPage);
  webhookDiffRoutes(page, services);

  page.get(
    '/webhooks/:webhook_id/events',
    async (ctx, account) => {
      const id = ctx.params.webhook_id!;
      await webhooks.requests(account.id, id, Number.MAX_SAFE_INTEGER); // 404 before streaming
      // The page already shows what was kept: stream only what comes after it, or after the last event
      // received when the browser reconnects.
      const resume = validate(resumeHeaders, ctx.headers, 'header')['last-event-id'];
      const tick = webhooks.requestsStream(account.id, id, resume ?? (Number(ctx.query.after) || 0));
      const url = (await webhooks.one({ userId: account.id, plan: account.plan }, id)).webhook_url;
      await page.spend(account);
      const lease = await streams.open({ userId: account.id, plan: account.plan });
      startSse(
        ctx,
        async () => {
          const t = await tick();
          t.events = t.events.map((e) => (e.event === 'requests' ? { ...e, data: forPage(e.data, url) } : e));
          return t;
        },
        { lease, wake: (notify) => webhooks.watch(id, notify) },
      );
    },
    { query: ['after'] },
  );
}
