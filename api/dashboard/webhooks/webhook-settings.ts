// Dashboard: what a webhook's page offers besides its live captures: its settings (the answer its
// senders get, forwarding, signature check, retention), a search of its captures, their export and
// a replay of one. Every form goes through the same schemas and services as the REST API.
import { formRefusal, type FormLabels } from '../form-labels.ts';
import type { Context } from 'koa';
import type { Account } from '../../../db/users.ts';
import type { AppError } from '../../../lib/errors.ts';
import { SIGNATURE_SCHEMES } from '../../../lib/webhooks/webhook-signatures.ts';
import { html, type Html } from '../../pages/html.ts';
import { replayBody, searchQuery, updateBody } from '../../../contract/webhooks/webhooks.ts';
import type { Services } from '../../services/index.ts';
import { validate } from '../../../contract/validate.ts';
import { sendDownload } from '../../download.ts';
import type { DashboardPages } from '../page.ts';
import { headerLines, jsonFromForm, RULE_FORM_LABELS, rulesFieldset } from './webhook-rules.ts';
import { compareForm } from './webhook-diff.ts';

export type WebhookView = Awaited<ReturnType<Services['webhooks']['one']>>;
export const SEARCH_FIELDS = ['method', 'header', 'q', 'since', 'until', 'schema', 'cursor'] as const;

/** The search the page's query asks for, or null for the live view of everything. */
export function searchOf(query: Record<string, unknown>, webhookId: string) {
  const given: Record<string, string> = Object.fromEntries(
    SEARCH_FIELDS.flatMap((k) => (typeof query[k] === 'string' && query[k] !== '' ? [[k, query[k]]] : [])),
  );
  return Object.keys(given).length === 0
    ? null
    : { given, parsed: validate(searchQuery, { ...given, webhook_id: webhookId, limit: '50' }, 'form') };
}

/** The labels of the webhook page's forms (settings, search, replay), by the API field each fills. */
export const WEBHOOK_FORM_LABELS = {
  rules: RULE_FORM_LABELS.rules,
  schema: 'JSON Schema',
  'response.status': 'Status',
  'response.headers': 'Headers',
  'response.body': 'Body',
  'response.delay_ms': 'Delay (ms)',
  forward_url: 'Forward to',
  'signature.scheme': 'Scheme',
  'signature.secret': 'Secret',
  'signature.header': 'Header',
  'retention.max_requests': 'Captures',
  'retention.max_age_days': 'Days',
  method: 'Method',
  header: 'Header',
  q: 'Body text',
  since: 'Since',
  until: 'Until',
  request_id: 'Replay capture #',
  target_url: 'Replay to',
} as const satisfies FormLabels;
type Labelled = keyof typeof WEBHOOK_FORM_LABELS;

/** The settings form, filled with what is set. */
export function settingsForm(w: WebhookView, csrf: string): Html {
  const r = w.response;
  const field = (name: Labelled, input: Html, hint = '') =>
    html`<label><span>${WEBHOOK_FORM_LABELS[name]}</span> ${input}${hint ? html` <small>${hint}</small>` : ''}</label>`;
  return html`<details class="settings-panel"><summary>Settings</summary>
    <form method="post" action="/dashboard/webhooks/${w.webhook_id}/settings" class="settings">
      <input type="hidden" name="csrf" value="${csrf}">
      ${rulesFieldset(w)}
      <fieldset><legend>${w.rules.length ? 'Answer when no rule holds' : 'Answer to senders'}</legend>
        ${field(
          'response.status',
          html`<input name="status" type="number" min="200" max="599" value="\
${r?.status ?? ''}" placeholder="200">`,
          'empty: the default JSON acknowledgement',
        )}
        ${field(
          'response.headers',
          html`<textarea name="headers" rows="2" placeholder="Content-Type: text/plain">${Object.entries(
            r?.headers ?? {},
          )
            .map(([k, v]) => `${k}: ${v}`)
            .join('\n')}</textarea>`,
          'one "Name: value" per line',
        )}
        ${field('response.body', html`<textarea name="body" rows="3">${r?.body ?? ''}</textarea>`)}
        ${field(
          'response.delay_ms',
          html`<input name="delay_ms" type="number" min="0" max="30000" value="\
${r?.delay_ms ?? 0}">`,
        )}
      </fieldset>
      <fieldset><legend>JSON Schema check</legend>
        ${field(
          'schema',
          html`<textarea name="json_schema" rows="\
${w.schema ? 8 : 2}" class="code" spellcheck="false" placeholder='{"type": "object", "required": ["id"]}'>\
${w.schema ? JSON.stringify(w.schema, null, 2) : ''}</textarea>`,
          "draft 2020-12; each capture's body is checked against it when read; empty: no check",
        )}
      </fieldset>
      <fieldset><legend>Forwarding</legend>
        ${field(
          'forward_url',
          html`<input name="forward_url" type="url" value="\
${w.forward_url ?? ''}" \
placeholder="https://staging.example.com/hooks">`,
          'each new capture is sent on, byte for byte; empty: off',
        )}
      </fieldset>
      <fieldset><legend>Signature check</legend>
        ${field(
          'signature.scheme',
          html`<select name="scheme"><option value="">none\
</option>${SIGNATURE_SCHEMES.map(
            (s) => html`<option value="${s}"${w.signature?.scheme === s ? ' selected' : ''}>\
${s}</option>`,
          )}</select>`,
        )}
        ${field(
          'signature.secret',
          html`<input name="secret" type="password" autocomplete="off" \
value="">`,
          w.signature ? 'empty: keep the current one' : '',
        )}
        ${field(
          'signature.header',
          html`<input name="signature_header" value="\
${w.signature?.scheme === 'hmac-sha256' ? w.signature.header : ''}" placeholder="x-signature">`,
          'hmac-sha256 only',
        )}
      </fieldset>
      <fieldset><legend>Keep</legend>
        ${field(
          'retention.max_requests',
          html`<input name="max_requests" type="number" min="1" max="10000" value="\
${w.retention.max_requests}">`,
        )}
        ${field(
          'retention.max_age_days',
          html`<input name="max_age_days" type="number" min="1" max="30" value="\
${w.retention.max_age_days}">`,
        )}
      </fieldset>
      <button type="submit">Save settings</button>
    </form></details>`;
}

/** The update a posted settings form asks for (checked by the REST schema). */
export function settingsFromForm(form: Record<string, string>, w: WebhookView, webhookId: string) {
  const number = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : Number(v));
  const headers = headerLines(form.headers);
  const status = number(form.status);
  const scheme = form.scheme ?? '';
  const keepSecret = scheme !== '' && scheme === w.signature?.scheme && !form.secret;
  return validate(
    updateBody,
    {
      webhook_id: webhookId,
      response:
        status === undefined ? null : { status, headers, body: form.body ?? '', delay_ms: number(form.delay_ms) ?? 0 },
      rules: jsonFromForm(form.rules, 'rules'),
      schema: jsonFromForm(form.json_schema, 'schema'),
      forward_url: form.forward_url?.trim() ? form.forward_url.trim() : null,
      retention: { max_requests: number(form.max_requests), max_age_days: number(form.max_age_days) },
      ...(keepSecret
        ? {}
        : {
            signature:
              scheme === ''
                ? null
                : {
                    scheme,
                    secret: form.secret ?? '',
                    ...(form.signature_header?.trim() ? { header: form.signature_header.trim() } : {}),
                  },
          }),
    },
    'form',
  );
}

/** The search form, above the list of captures: open while a search is shown. */
export function searchForm(w: WebhookView, search: Record<string, string> | null): Html {
  const value = (k: string) => search?.[k] ?? '';
  return html`<details class="search-panel"${search ? html` open` : ''}><summary>Search and filter</summary>
    <form method="get" action="/dashboard/webhooks/${w.webhook_id}" class="search settings" role="search">
      <label>Method <input name="method" size="6" value="${value('method')}"></label>
      <label>Header <input name="header" placeholder="name or name:value" value="${value('header')}"></label>
      <label>Body text <input name="q" value="${value('q')}"></label>
      ${
        w.schema
          ? html`<label>Schema <select name="schema"><option value="">any\
</option>${['valid', 'invalid'].map(
              (v) => html`<option value="${v}"${value('schema') === v ? ' selected' : ''}>\
${v}</option>`,
            )}</select></label>`
          : ''
      }
      <label>Since <input name="since" placeholder="2026-11-23T10:00:00Z" value="${value('since')}"></label>
      <label>Until <input name="until" value="${value('until')}"></label>
      <button type="submit">Search</button> ${
        search
          ? html`<a href="/dashboard/webhooks/\
${w.webhook_id}">Clear (live view)</a>`
          : ''
      }
    </form></details>`;
}

/** The load-test form filled to replay the webhook's captures (those the search's filters pick). */
const replayLoadLink = (webhookId: string, filters: URLSearchParams) =>
  `/dashboard/load-tests?${new URLSearchParams([['replay_webhook', webhookId], ...filters])}#load-form`;

/**
 * The export links (with the search's filters), the replay form and the comparison of two captures
 * (`shown`: the ids listed, newest first).
 */
export function toolsOf(w: WebhookView, csrf: string, search: Record<string, string> | null, shown: number[]): Html {
  const filters = new URLSearchParams(Object.entries(search ?? {}).filter(([k]) => k !== 'cursor'));
  const exportLink = (format: string) =>
    `/dashboard/webhooks/${w.webhook_id}/export?${new URLSearchParams([...filters, ['format', format]])}`;
  return html`<section class="tools"><h2>Replay, compare and export</h2>
    <form method="post" action="/dashboard/webhooks/${w.webhook_id}/replay" class="replay settings" id="replay">
      <input type="hidden" name="csrf" value="${csrf}">
      <label>Replay capture # <input name="request_id" type="number" min="1" required></label>
      <label>to <input name="target_url" type="url" required placeholder="https://staging.example.com/hooks" value="\
${w.forward_url ?? ''}"></label>
      <button type="submit">Replay</button>
    </form>
    ${compareForm(w.webhook_id, shown[1] ?? '', shown[0] ?? '')}
    <p>Export ${search ? 'these' : 'every kept'} capture(s): <a href="${exportLink('json')}" download>JSON</a> · \
<a href="${exportLink('har')}" download>HAR</a> (opens in browser devtools)</p>
    <p><a href="${replayLoadLink(w.webhook_id, filters)}" id="replay-load">Load test with \
${search ? 'these' : 'the kept'} captures\
</a>: their requests, replayed against a target of yours at their recorded pace.</p></section>`;
}

/**
 * The routes of the settings, the replay and the export; `render` draws the webhook's page with a notice
 * or an error.
 */
export function webhookToolRoutes(
  page: DashboardPages,
  { webhooks, webhookReplays, webhookExports }: Pick<Services, 'webhooks' | 'webhookReplays' | 'webhookExports'>,
  render: (ctx: Context, account: Account, notice: { error?: AppError; message?: Html }) => Promise<void>,
): void {
  const owner = (a: Account) => ({ userId: a.id, plan: a.plan });
  /** A refusal the user can act on is shown on the page; anything else is the error page's. */
  const shown = (ctx: Context, account: Account) => (err: unknown) =>
    render(ctx, account, { error: formRefusal(ctx, err, WEBHOOK_FORM_LABELS) });
  page.post('/webhooks/:id/settings', async (ctx, { form, account }) => {
    const id = ctx.params.id!;
    try {
      const current = await webhooks.one(owner(account), id);
      const { webhook_id: _id, ...settings } = settingsFromForm(form, current, id);
      const updated = await webhooks.update(owner(account), id, settings);
      await render(ctx, account, { message: html`${updated.message}` });
    } catch (err) {
      await shown(ctx, account)(err);
    }
  });
  page.post('/webhooks/:id/replay', async (ctx, { form, account }) => {
    const id = ctx.params.id!;
    try {
      const { request_id, target_url } = validate(
        replayBody,
        { webhook_id: id, request_id: Number(form.request_id), target_url: form.target_url ?? '' },
        'form',
      );
      const r = await webhookReplays.replay(account.id, id, request_id, target_url);
      await render(ctx, account, {
        message: html`Replayed capture #${r.request_id} to <code>${r.target_url}</code>: \
<strong>${r.response.status}</strong> in ${r.duration_ms} ms.<pre>${r.response.body.slice(0, 2000)}</pre>`,
      });
    } catch (err) {
      await shown(ctx, account)(err);
    }
  });
  page.get(
    '/webhooks/:id/export',
    async (ctx, account) => {
      const id = ctx.params.id!;
      await page.spend(account); // as the REST export: an API call
      const search = searchOf(ctx.query, id);
      const format = ctx.query.format === 'har' ? 'har' : 'json';
      const f = search?.parsed;
      const chunks = await webhookExports.export(
        account.id,
        id,
        { method: f?.method, header: f?.header, text: f?.q, since: f?.since, until: f?.until },
        format,
      );
      sendDownload(ctx, `webhook-${id}.${format}`, chunks);
    },
    { query: [...SEARCH_FIELDS, 'format'] },
  );
}
