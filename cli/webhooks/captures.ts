// Webhooks and their captures as the API answers them (contract/webhooks/responses-webhooks.ts), and how a
// terminal shows them: a table row per capture, one capture whole, a webhook's rules in words.
import type { z } from 'zod';
import type { capturedRequest, webhookListResult } from '../../contract/webhooks/responses-webhooks.ts';
import { sentQuery } from '../../lib/webhooks/capture-query.ts';
import { fields, localTime, out } from '../output.ts';

export type Capture = z.output<typeof capturedRequest>;
export type Webhook = z.output<typeof webhookListResult>['data']['webhooks'][number];
type Rule = Webhook['rules'][number];
type ValueTest = { equals?: string; present?: boolean; regex?: string };

/** The capture's query as sent (rebuilt from its pairs when the service does not say: its release before). */
const queryOf = (c: Pick<Capture, 'query_params'> & { query_string?: string | null }) =>
  sentQuery({ queryString: c.query_string, queryParams: c.query_params });

/** The path below the capture URL, with the query as it was sent. */
export function sentPath(
  c: Pick<Capture, 'path' | 'query_params'> & { query_string?: string | null },
  webhookId: string,
): string {
  const below = c.path.slice(`/webhook/${webhookId}`.length) || '/';
  const query = queryOf(c);
  return query === null ? below : `${below}?${query}`;
}

/** The status the capture was answered with, when it is not 200 (nothing when not recorded). */
const answeredOther = (r: Capture) =>
  r.answered_status !== null && r.answered_status !== undefined && r.answered_status !== 200
    ? r.answered_status
    : undefined;

/** The schema verdict: valid, invalid with its first error, or unknown with why (a check past its budget). */
export function schemaVerdict(schema: NonNullable<Capture['schema']>): string {
  if (schema.valid === true) return 'schema valid';
  if (schema.valid === null) return `schema unknown: ${schema.error ?? 'not checked'}`;
  const first = schema.errors[0];
  return first ? `schema invalid: ${first.path || '(body)'} ${first.message}` : 'schema invalid';
}

/** What the service judged of a capture: the rule that answered it, its signature, schema and delivery. */
function notes(r: Capture): string {
  return [
    answeredOther(r) !== undefined && `answered ${r.answered_status}`,
    r.matched_rule !== null && r.matched_rule !== undefined && `rule ${r.matched_rule}`,
    r.signature && `signature ${r.signature.status}`,
    r.schema && schemaVerdict(r.schema),
    r.delivery && `delivery ${r.delivery.status}`,
  ]
    .filter(Boolean)
    .join(', ');
}

export const CAPTURE_HEAD = ['Id', 'Captured', 'Method', 'Path', 'Body', 'Notes'];
export function captureRows(requests: Capture[], webhookId: string): Array<Array<string | number>> {
  return requests.map((r) => [
    r.id,
    localTime(r.created_at),
    r.method,
    sentPath(r, webhookId),
    `${r.body_size} B`,
    notes(r),
  ]);
}

/** One capture whole: what it was, its headers, its body (binary bodies by size: --json has their base64). */
export function captureView(r: Capture, webhookId: string): string {
  const head = fields([
    ['Capture', r.id],
    ['Captured', localTime(r.created_at)],
    ['Request', `${out.bold(r.method)} ${sentPath(r, webhookId)}`],
    ['From', `${r.ip_address}${r.user_agent ? ` (${r.user_agent})` : ''}`],
    ['Answered', r.answered_status ?? undefined],
    ['Rule', r.matched_rule ?? undefined],
    ['Signature', r.signature && `${r.signature.status}: ${r.signature.reason}`],
    ['Schema', r.schema && schemaVerdict(r.schema).replace(/^schema /, '')],
    ['Delivery', r.delivery?.status],
  ]);
  const headers = Object.entries(r.headers).map(([k, v]) => `${out.dim(`${k}:`)} ${v}`);
  const body =
    r.body === null
      ? out.dim('(no body)')
      : r.body_encoding === 'base64'
        ? out.dim(`(binary body, ${r.body_size} bytes: its base64 is in --json)`)
        : r.body;
  return `${head}\n\n${headers.join('\n')}\n\n${body}`;
}

function valueTest(name: string, t: ValueTest): string {
  if (t.present !== undefined) return `${name} ${t.present ? 'present' : 'absent'}`;
  if (t.regex !== undefined) return `${name} ~ /${t.regex}/`;
  return `${name} = ${JSON.stringify(t.equals)}`;
}

/** A rule's match in words: `POST /orders/* header authorization absent`. */
export function matchText(m: Rule['match']): string {
  const b = m.body;
  const body =
    b &&
    (b.pointer === undefined
      ? `body ~ /${b.regex}/`
      : `body ${b.pointer} ${
          b.exists !== undefined
            ? b.exists
              ? 'present'
              : 'absent'
            : b.regex !== undefined
              ? `~ /${b.regex}/`
              : `= ${JSON.stringify(b.equals)}`
        }`);
  const parts = [
    m.method?.join('|'),
    m.path,
    ...Object.entries(m.query ?? {}).map(([n, t]) => `query ${valueTest(n, t)}`),
    ...Object.entries(m.header ?? {}).map(([n, t]) => `header ${valueTest(n, t)}`),
    body,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'every request';
}

/** The rules, one line each in order: `0  POST /orders → 409`. */
export function ruleLines(rules: Rule[]): string[] {
  return rules.map(
    (r, i) => `${out.dim(String(i).padStart(2))}  ${matchText(r.match)} → ${out.bold(String(r.response.status))}`,
  );
}

/** A webhook's settings as label/value lines, its rules below them in order. */
export function settingsFields(w: Omit<Webhook, 'id' | 'request_count'> & { request_count?: number }): string {
  const r = w.response;
  const delay = r?.delay_ms ? ` after ${r.delay_ms} ms` : '';
  const body = r?.body ? `: ${JSON.stringify(r.body.slice(0, 60))}` : '';
  const answer = r ? `${r.status}${delay}${body}` : 'the default JSON acknowledgement';
  const head = fields([
    ['Webhook', w.webhook_id],
    ['Capture URL', out.bold(w.webhook_url)],
    ['Captures', w.request_count],
    ['Created', localTime(w.created_at)],
    ['Answers', w.rules.length ? `${answer} when no rule matches` : answer],
    ['Schema', w.schema ? 'bodies checked against a JSON Schema' : 'not checked'],
    [
      'Signatures',
      w.signature ? `${w.signature.scheme}${w.signature.header ? ` (${w.signature.header})` : ''}` : 'not checked',
    ],
    ['Forwards to', w.forward_url ?? 'nowhere'],
    ['Keeps', `${w.retention.max_requests} captures, ${w.retention.max_age_days} days`],
  ]);
  return w.rules.length
    ? `${head}\n${out.dim('Rules')} (the first that matches answers)\n${ruleLines(w.rules).join('\n')}`
    : head;
}
