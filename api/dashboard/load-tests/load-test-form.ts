// Dashboard: the load-test start form. The API's start body as fields, with thresholds one per line
// and the rest of the body (stages, steps, ...) as JSON under "More options"; validated by the API's
// own schema when submitted. Only the credential fields of the chosen authentication show
// (load-form.js; without scripts they all do).
import { InvalidInputError } from '../../../lib/errors.ts';
import { assetPath } from '../assets.ts';
import { html, type Html } from '../../pages/html.ts';
import { HTTP_METHODS } from '../../../contract/load/load-test-start.ts';
import type { FormLabels } from '../form-labels.ts';
import type { PlanLimits } from '../../../lib/plans.ts';
import { spellDuration } from '../../../lib/duration.ts';

const AUTH_TYPES = ['none', 'basic', 'bearer', 'apikey'] as const;

/** The form's labels, by the start body's field each fills (its refusals name them so). */
export const START_LABELS = {
  targetUrl: 'Target URL',
  httpMethod: 'Method',
  concurrentUsers: 'Concurrent users',
  testDuration: 'Duration',
  rampUpTime: 'Ramp-up',
  requestsPerSecond: 'Requests per second',
  httpVersion: 'HTTP version',
  http2: 'HTTP/2: users per connection',
  thresholds: 'Thresholds',
  headers: 'Headers',
  body: 'Body',
  authType: 'Authentication',
  authUsername: 'Basic: user name',
  authPassword: 'Basic: password',
  authToken: 'Bearer: token',
  apiKeyHeader: 'API key: header name',
  apiKeyValue: 'API key: value',
  startBody: 'Start body fields',
} as const satisfies FormLabels;
type Field = keyof typeof START_LABELS;

/**
 * The start form, filled with what was typed (secrets aside) when it comes back with an error; its ranges
 * the account's plan's (`limits`): what the API would refuse is not offered.
 */
export function startForm(
  csrf: string,
  form: Record<string, string>,
  limits: Pick<PlanLimits, 'loadTestUsers' | 'loadTestSeconds'>,
): Html {
  const v = (name: string, fallback = '') => form[name] ?? fallback;
  const label = (name: Field, more = '') => html`<label for="${name}">${START_LABELS[name]}${more}</label>`;
  const input = (name: Field, more: string, attrs: Html) =>
    html`<div class="field">${label(name, more)}<input id="${name}" name="${name}" ${attrs} value="${v(name)}"></div>`;
  const secret = (name: Field) =>
    html`<div class="field">${label(name)}<input id="${name}" name="${name}" type="password" autocomplete="off"></div>`;
  // Seconds or a duration as REST takes them ("90", "10m", "1h30m"): text, read by the API's own parser.
  const duration = (examples: string) =>
    html`type="text" autocomplete="off" spellcheck="false" placeholder="${examples}"`;
  const auth = v('authType', 'none');
  const users = limits.loadTestUsers;
  return html`<form method="post" action="/dashboard/load-tests" id="load-form" class="stack">\
<input type="hidden" name="csrf" value="${csrf}">
    <div class="field">${label('targetUrl')}<input id="targetUrl" name="targetUrl" type="text" required value="\
${v('targetUrl')}" placeholder="https://staging.example.com/health"></div>
    <div class="row">
      <div class="field">${label('httpMethod')}<select id="httpMethod" name="httpMethod">\
${HTTP_METHODS.map((m) => html`<option${m === v('httpMethod', 'GET') ? html` selected` : ''}>${m}</option>`)}</select>\
</div>
      ${input('concurrentUsers', ` (1 to ${users})`, html`type="number" min="1" max="${users}"`)}
      ${input('testDuration', ` (10s to ${spellDuration(limits.loadTestSeconds)})`, duration('90s, 10m or 1h30m'))}
      ${input('rampUpTime', ' (default 10s)', duration('30s or 1m'))}
      ${input('requestsPerSecond', ' (0: as fast as answered)', html`type="number" min="0"`)}
    </div>
    <div class="row">
      <div class="field">${label('httpVersion')}<select id="httpVersion" name="httpVersion">${[
        ['1.1', 'HTTP/1.1'],
        ['2', 'HTTP/2 (h2 over https, h2c over http)'],
      ].map(
        ([value, text]) =>
          html`<option value="${value}"${value === v('httpVersion', '1.1') ? html` selected` : ''}>${text}</option>`,
      )}</select></div>
      <div class="field">\
${label('http2', ' (1 to 1000, default 1)')}<input id="http2" name="streamsPerConnection" type="number" min="1" \
max="1000" value="${v('streamsPerConnection')}"></div>
    </div>
    <div class="field">\
${label('thresholds', ', one per line')}<textarea id="thresholds" name="thresholds" rows="2" placeholder="p95 \
< 300&#10;error_rate < 1">${v('thresholds')}</textarea>\
<small>Pass/fail figures, as k6 writes them: p50 to p99.9, avg, max, error_rate, throughput, ...</small></div>
    <div class="field">\
${label('headers', ', one "Name: value" per line')}<textarea id="headers" name="headers" rows="2">\
${v('headers')}</textarea></div>
    <div class="field">${label('body', ' (POST, PUT, PATCH)')}<textarea id="body" name="body" rows="2">\
${v('body')}</textarea></div>
    <div class="field">${label('authType')}<select id="authType" name="authType">${AUTH_TYPES.map(
      (a) => html`<option\
${a === auth ? html` selected` : ''}>${a}</option>`,
    )}</select></div>
    <div class="row" data-auth="basic">\
${input('authUsername', '', html`type="text" autocomplete="off"`)}${secret('authPassword')}</div>
    <div class="row" data-auth="bearer">${secret('authToken')}</div>
    <div class="row" data-auth="apikey">\
${input('apiKeyHeader', '', html`type="text" placeholder="X-API-Key"`)}${secret('apiKeyValue')}</div>
    <label class="check"><input type="checkbox" name="insecureTls" value="true"\
${v('insecureTls') === 'true' ? html` checked` : ''}> Accept any certificate (https with a self-signed one, say)</label>
    <details${v('startBody') ? html` open` : ''}>\
<summary>More options: stages, steps, a replay (the start body as JSON)</summary>
      <div class="field">\
${label('startBody', ' (JSON), over the fields above')}<textarea id="startBody" name="startBody" rows="6" class="code" \
placeholder='{"stages": [{"duration": 30, "target": 50}, {"duration": 60, "target": 50}], "steps": [...]}'>\
${v('startBody')}</textarea>
      <small>Any field of <a href="/docs#/Load%20testing">the API's start body</a>; the same checks apply.</small></div>
    </details>
    <button type="submit">Start the load test</button></form>
  <script src="${assetPath('load-form.js')}"></script>`;
}

/**
 * The form filled to replay a webhook's captures as the load (the webhook page's link): the start
 * body's `replay` with the webhook and the search's filters (those a replay takes), the rest for the
 * user to fill. Checked as any start body when submitted (the webhook must be theirs).
 */
export function replayFormOf(query: Record<string, unknown>): Record<string, string> {
  const webhookId = query.replay_webhook;
  if (typeof webhookId !== 'string' || webhookId === '') return {};
  const filter = Object.fromEntries(
    REPLAY_FILTERS.flatMap((k) => (typeof query[k] === 'string' && query[k] !== '' ? [[k, query[k]]] : [])),
  );
  const replay = { webhook_id: webhookId, ...(Object.keys(filter).length ? { filter } : {}), speed: 1 };
  return { startBody: JSON.stringify({ replay }, null, 2) };
}
/** The search's filters a replay takes (contract/load/load-replay.ts: captureFilter). */
export const REPLAY_FILTERS = ['method', 'header', 'q', 'since', 'until'] as const;

/**
 * The API's start body from the form (numbers as numbers, durations as typed for the API's parser to
 * read, headers and thresholds from lines, then the JSON fields over them).
 */
export function startBodyFromForm(form: Record<string, string>): Record<string, unknown> {
  const num = (name: string) => (form[name] === undefined || form[name].trim() === '' ? undefined : Number(form[name]));
  const headers: Record<string, string> = {};
  for (const line of (form.headers ?? '').split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (line.trim() === '') continue;
    if (at <= 0) throw new InvalidInputError(`Headers: "${line.slice(0, 60)}" is not "Name: value"`, 'headers');
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  const thresholds = (form.thresholds ?? '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const optional = (name: string) => (form[name]?.trim() ? form[name] : undefined);
  const authType = form.authType || 'none';
  // The credentials of the chosen type only: fields of another type, filled before the type changed, are not sent.
  const credentials =
    { basic: ['authUsername', 'authPassword'], bearer: ['authToken'], apikey: ['apiKeyHeader', 'apiKeyValue'] }[
      authType
    ] ?? [];
  const json = jsonFields(form.startBody);
  const fields = {
    targetUrl: form.targetUrl ?? '',
    // A replay's requests each have their own method: the form's (a select, always sent) is not.
    ...('replay' in json ? {} : { httpMethod: form.httpMethod ?? 'GET' }),
    concurrentUsers: num('concurrentUsers'),
    // "90", "90s", "10m", "1h30m": the contract reads them as REST's body (and refuses them naming the field).
    testDuration: optional('testDuration')?.trim(),
    rampUpTime: optional('rampUpTime')?.trim(),
    requestsPerSecond: num('requestsPerSecond'),
    headers,
    body: optional('body'),
    authType,
    ...Object.fromEntries(credentials.map((c) => [c, optional(c)])),
    insecureTls: form.insecureTls === 'true',
    ...(form.httpVersion === '2'
      ? {
          httpVersion: '2',
          ...(num('streamsPerConnection') !== undefined
            ? { http2: { streamsPerConnection: num('streamsPerConnection') } }
            : {}),
        }
      : form.httpVersion
        ? { httpVersion: form.httpVersion }
        : {}),
    ...(thresholds.length ? { thresholds } : {}),
  };
  return { ...fields, ...json };
}

function jsonFields(text: string | undefined): Record<string, unknown> {
  if (!text?.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError(`Start body fields: not JSON (${(err as Error).message})`, 'startBody');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidInputError('Start body fields: must be a JSON object, such as {"stages": [...]}', 'startBody');
  return parsed as Record<string, unknown>;
}
