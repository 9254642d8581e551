// Dashboard: a webhook's response rules, in the settings (in order, each in a line of words, edited
// as the JSON list the API takes), and a box to try a request against them ("this request would
// get: ..."), answered by the same service that the capture URL's matching uses.
import type { Context } from 'koa';
import type { Account } from '../../../db/users.ts';
import { type AppError, InvalidInputError } from '../../../lib/errors.ts';
import type { ResponseRule, ValueTest } from '../../../lib/webhooks/webhook-rules.ts';
import { html, type Html } from '../../pages/html.ts';
import { ruleTryBody } from '../../../contract/webhooks/webhook-rules.ts';
import type { Services } from '../../services/index.ts';
import { validate } from '../../../contract/validate.ts';
import { formRefusal, type FormLabels } from '../form-labels.ts';
import type { DashboardPages } from '../page.ts';

/** What these forms read of a webhook. */
type WithRules = { webhook_id: string; rules: ResponseRule[] };

export const RULE_FORM_LABELS = {
  rules: 'Rules',
  method: 'Request method',
  path: 'Request path',
  headers: 'Request headers',
  body: 'Request body',
} as const satisfies FormLabels;

const valueWords = (name: string, t: ValueTest) =>
  t.present !== undefined
    ? `${name} ${t.present ? 'present' : 'absent'}`
    : t.regex !== undefined
      ? `${name} ~ /${t.regex}/`
      : `${name} = "${t.equals}"`;

/** A rule's match and answer in one line of words. */
export function ruleWords({ match, response }: ResponseRule): string {
  const { body } = match;
  const tests = [
    match.method ? match.method.join(' or ') : null,
    match.path !== undefined ? `path ${match.path}` : null,
    ...Object.entries(match.query ?? {}).map(([k, t]) => valueWords(`query ${k}`, t)),
    ...Object.entries(match.header ?? {}).map(([k, t]) => valueWords(`header ${k}`, t)),
    body
      ? body.pointer === undefined
        ? `body ~ /${body.regex}/`
        : body.exists !== undefined
          ? `body ${body.pointer || '(whole)'} ${body.exists ? 'exists' : 'absent'}`
          : body.regex !== undefined
            ? `body ${body.pointer} ~ /${body.regex}/`
            : `body ${body.pointer} = ${JSON.stringify(body.equals)}`
      : null,
  ].filter((t) => t !== null);
  const when = tests.length ? tests.join(', ') : 'every request';
  return `${when} → ${response.status}${response.delay_ms ? ` after ${response.delay_ms} ms` : ''}`;
}

/** The settings' fieldset: the rules in order, and the JSON list to edit. */
export function rulesFieldset(w: WithRules): Html {
  return html`<fieldset><legend>Response rules</legend>
    ${
      w.rules.length
        ? html`<ol class="rules" start="0">${w.rules.map((r) => html`<li><code>${ruleWords(r)}</code></li>`)}</ol>`
        : html`<p class="hint">No rules: every capture gets the answer below.</p>`
    }
    <label><span>${RULE_FORM_LABELS.rules}</span> \
<textarea name="rules" rows="\
${w.rules.length ? 8 : 3}" class="code" spellcheck="false" placeholder='[{"match": {"header": {"authorization": \
false}}, "response": {"status": 401}}]'>${w.rules.length ? JSON.stringify(w.rules, null, 2) : ''}</textarea>
    <small>A JSON list of {match, response}; the first whose match holds answers. Empty: none. The same as the API's \
<code>rules</code> (<a href="/docs#/Webhooks">reference</a>).</small></label>
  </fieldset>`;
}

/** A JSON box of a posted settings form (the rules, the schema), as `field`: null when it is empty. */
export function jsonFromForm(text: string | undefined, field: string): unknown {
  if (!text?.trim()) return null;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError(`${field}: is not JSON (${(err as Error).message})`, field);
  }
}

/** The box that tries a request against the rules. */
export function rulesTestForm(w: WithRules, csrf: string, tried?: Record<string, string>): Html {
  const value = (k: string, fallback = '') => tried?.[k] ?? fallback;
  return html`<details class="rules-test"${tried ? html` open` : ''}><summary>Try the rules</summary>
    <form method="post" action="/dashboard/webhooks/${w.webhook_id}/rules-test" class="settings">
      <input type="hidden" name="csrf" value="${csrf}">
      <label><span>${RULE_FORM_LABELS.method}</span> <input name="method" value="${value('method', 'POST')}" size="8">\
</label>
      <label><span>${RULE_FORM_LABELS.path}</span> \
<input name="path" value="${value('path', '/')}" placeholder="/orders/7?x=1"> \
<small>below the capture URL, with its query</small></label>
      <label><span>${RULE_FORM_LABELS.headers}</span> \
<textarea name="headers" rows="2" placeholder="Authorization: Bearer t">${value('headers')}</textarea> \
<small>one "Name: value" per line</small></label>
      <label><span>${RULE_FORM_LABELS.body}</span> \
<textarea name="body" rows="3" class="code" placeholder='{"order": {"id": "dup-1"}}'>${value('body')}</textarea></label>
      <button type="submit">Try</button>
    </form></details>`;
}

/** "Name: value" lines as a header object (the settings' answer headers are written the same way). */
export function headerLines(text: string | undefined): Record<string, string> {
  return Object.fromEntries(
    (text ?? '')
      .split(/\r?\n/)
      .filter((l) => l.trim() !== '')
      .map((l) =>
        l.includes(':') ? [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()] : [l.trim(), ''],
      ),
  );
}

export function webhookRuleRoutes(
  page: DashboardPages,
  { webhooks }: Pick<Services, 'webhooks'>,
  render: (
    ctx: Context,
    account: Account,
    notice: { error?: AppError; message?: Html; tried?: Record<string, string> },
  ) => Promise<void>,
): void {
  page.post('/webhooks/:id/rules-test', async (ctx, { form, account }) => {
    const tried = {
      method: form.method ?? '',
      path: form.path ?? '',
      headers: form.headers ?? '',
      body: form.body ?? '',
    };
    try {
      const request = validate(ruleTryBody, { ...tried, headers: headerLines(tried.headers) }, 'form');
      const got = await webhooks.tryRules({ userId: account.id, plan: account.plan }, ctx.params.id!, request);
      const headers = Object.entries(got.response.headers).map(([k, v]) => `${k}: ${v}`);
      await render(ctx, account, {
        tried,
        message: html`This request would get${
          got.matched_rule === null
            ? html` no rule's answer (none holds): `
            : html` rule #${got.matched_rule}'s answer: `
        }<strong>${got.response.status}</strong>${got.response.delay_ms ? ` after ${got.response.delay_ms} ms` : ''}.\
<pre>${[...headers, '', got.response.body.slice(0, 4000)].join('\n')}</pre>`,
      });
    } catch (err) {
      return render(ctx, account, { tried, error: formRefusal(ctx, err, RULE_FORM_LABELS) });
    }
  });
}
