// How the dashboard shows captured requests: a list (method, path, how long ago, size, signature and
// delivery marks) and the selected one in full, escaped, JSON bodies pretty-printed, with a
// copy-as-curl command that replays it.
import { html, type Html } from '../../pages/html.ts';
import type { CaptureDelivery } from '../../../db/schema.ts';
import { sentQuery } from '../../../lib/webhooks/capture-query.ts';
import type { CapturedView } from '../../services/webhooks/webhooks.ts';

/**
 * A stream event for the page: only requests after the ones it rendered, each as its list item and its
 * detail, rendered (escaped) here.
 */
export function forPage(data: unknown, url: string) {
  const d = data as { data: { requests: CapturedView[] } };
  const requests = d.data.requests.map((r) => ({
    ...r,
    item: captureItem(r, false).value,
    card: requestCard(r, url, false).value,
  }));
  return { ...d, data: { total: requests.length, requests } };
}

/**
 * When a capture arrived, to the millisecond (the order of a sender's retries can hang on it), in UTC
 * as the dashboard's tables write their times.
 */
export function arrivedAt(iso: string): Html {
  const at = new Date(iso).toISOString();
  return html`<time datetime="${at}" title="${at}">${at.replace('T', ' ').slice(0, 23)}\u00a0UTC</time>`;
}

/** "12 s ago", "5 min ago", "3 h ago", "2 d ago": how long before `now` (the exact time goes in a title). */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** 0 B, 512 B, 1.5 KB, 2.3 MB. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 102.4) / 10} KB`;
  return `${Math.round(bytes / 104_857.6) / 10} MB`;
}

/** The path after the capture URL's own (`/webhook/<id>`): what the sender added, or `/`. */
const shortPath = (path: string) => path.replace(/^\/webhook\/[^/]+/, '') || '/';

type Query = { query_params?: string | null; query_string?: string | null };
/** `?` and the query as it was sent (rebuilt from its pairs for captures stored before it was kept), or nothing. */
const search = (r: Query) => {
  const query = sentQuery({ queryString: r.query_string, queryParams: r.query_params ?? null });
  return query === null ? '' : `?${query}`;
};

/** The status the sender was answered with, where it was not 200 (a mark in the list). */
const answeredMark = (r: { answered_status?: number | null }) =>
  r.answered_status === null || r.answered_status === undefined || r.answered_status === 200
    ? ''
    : html` · <span class="mark answered">answered ${r.answered_status}</span>`;

type Card = CapturedView & {
  delivery?: CaptureDelivery | null;
  signature?: { status: string; reason: string };
  schema?: { valid: boolean | null; errors: Array<{ path: string; message: string }>; error?: string };
};

/** A schema verdict in a word: valid, invalid, or unchecked (`valid: null`: past its budget, or not run yet). */
const schemaWord = (s: { valid: boolean | null }) => (s.valid === null ? 'unchecked' : s.valid ? 'valid' : 'invalid');

/** A capture in the list: method, path, when, size, and its signature and delivery outcomes; a link to its detail. */
export function captureItem(r: Card, selected: boolean): Html {
  const [full, short] = [r.path + search(r), shortPath(r.path) + search(r)];
  return html`<li><a href="#capture-${r.id}" data-id="${r.id}"${selected ? html` aria-current="true"` : ''}>
    <span class="method">${r.method}</span><code class="path" title="${full}">${short}</code>\
<time datetime="${r.created_at}" title="${r.created_at}">${ago(r.created_at)}</time>
    <small class="meta">#${r.id} · ${size(r.body_size ?? 0)}${answeredMark(r)}${
      r.signature
        ? html` · \
<span class="mark ${r.signature.status}">signature ${r.signature.status}</span>`
        : ''
    }${
      r.schema
        ? html` · \
<span class="mark ${schemaWord(r.schema)}">schema ${schemaWord(r.schema)}</span>`
        : ''
    }${
      r.delivery
        ? html` · \
<span class="mark ${r.delivery.status}">forwarded: ${r.delivery.status}</span>`
        : ''
    }</small></a></li>`;
}

/**
 * One captured request in full, escaped: headers and query as tables, the body pretty-printed when JSON
 * (raw beside), binary as a hex preview; copy as curl and replay.
 */
export function requestCard(r: Card, url: string, selected = true): Html {
  const { delivery, signature, schema } = r;
  const query = r.query_params ? (JSON.parse(r.query_params) as Record<string, string | string[]>) : null;
  const pretty = prettyBody(r.body);
  const binary = r.body_encoding === 'base64';
  return html`<article class="req" id="capture-${r.id}" data-id="${r.id}"${selected ? '' : html` hidden`}>
    <h2>#${r.id} <strong>${r.method}</strong> <code class="path">${r.path}${search(r)}</code></h2>
    <p class="meta">${arrivedAt(r.created_at)} · from \
${r.ip_address} · ${size(r.body_size ?? 0)}${answeredLine(r)}</p>
    ${
      signature
        ? html`<p class="signature ${signature.status}">Signature \
<strong>${signature.status}</strong>: ${signature.reason}</p>`
        : ''
    }
    ${
      schema
        ? html`<div class="schema ${schemaWord(schema)}"><p>Schema \
<strong>${schema.valid === null ? 'not checked' : schemaWord(schema)}</strong>${
            schema.valid === null
              ? `: \
${schema.error ?? ''}`
              : schema.valid
                ? ''
                : ':'
          }</p>${
            schema.errors.length
              ? html`<ul>${schema.errors.map(
                  (e) => html`<li>\
<code>${e.path || '(body)'}</code> ${e.message}</li>`,
                )}</ul>`
              : ''
          }</div>`
        : ''
    }
    ${delivery ? deliveryLog(delivery) : ''}
    <div class="actions"><button type="button" class="secondary copy-curl" data-curl="${curlOf(r, url)}">Copy as curl\
</button> <button type="button" class="secondary replay-this" data-id="${r.id}">Replay…</button></div>
    <h3>Headers</h3>${pairs(Object.entries(r.headers))}
    ${
      query
        ? html`<h3>Query</h3>\
${pairs(queryPairs(query))}`
        : ''
    }
    <h3>Body</h3>
    ${
      binary
        ? html`<p>${size(r.body_size ?? 0)} of binary data; the first bytes:</p>\
<pre class="body hex">${hexPreview(r.body ?? '')}</pre>`
        : html`<pre class="body">${pretty}</pre>\
${
  pretty !== (r.body ?? '') && r.body
    ? html`<details><summary>Raw body</summary><pre class="raw">${r.body}</pre>\
</details>`
    : ''
}`
    }
  </article>`;
}

/** The meta line's answer: its status when recorded, and the rule that gave it. */
function answeredLine(r: Card): string {
  const rule = r.matched_rule === null || r.matched_rule === undefined ? null : r.matched_rule;
  const status = r.answered_status ?? null;
  if (status === null) return rule === null ? '' : ` · answered by rule #${rule}`;
  return ` · answered ${status}${rule === null ? '' : ` by rule #${rule}`}`;
}

const pairs = (rows: Array<[string, string]>) =>
  html`<div class="table-wrap"><table class="kv"><tbody>${rows.map(
    ([k, v]) => html`<tr><th scope="row">${k}</th>\
<td>${v}</td></tr>`,
  )}</tbody></table></div>`;

/** The first 256 bytes of a base64 body as hex, 16 a line. */
function hexPreview(base64: string): string {
  const bytes = Buffer.from(base64, 'base64').subarray(0, 256);
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += 16)
    lines.push([...bytes.subarray(i, i + 16)].map((b) => b.toString(16).padStart(2, '0')).join(' '));
  return lines.join('\n');
}

/** A capture's delivery to the forward URL: its outcome, then every attempt. */
function deliveryLog(d: CaptureDelivery): Html {
  return html`<details class="delivery"><summary>Forwarded: \
<strong>${d.status}</strong> after ${d.attempts} attempt(s)${
    d.response_status === null
      ? ''
      : html`, last answer \
${d.response_status}`
  }${d.duration_ms === null ? '' : html` in ${d.duration_ms} ms`}</summary>
    <ol>${d.history.map(
      (a) => html`<li><time datetime="${a.at}">${a.at}</time>: \
${a.response_status ?? 'no answer'} in ${a.duration_ms} ms${a.error ? html` (${a.error})` : ''}</li>`,
    )}</ol></details>`;
}

function prettyBody(body: string | null): string {
  if (body === null || body === '') return '(no body)';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** Headers curl sets itself for what it sends (the target's host, the body's length, its connection). */
const CURL_SETS = new Set(['host', 'content-length', 'connection', 'transfer-encoding']);

/**
 * A shell command that sends the captured request again: the same method, path and query (as sent;
 * rebuilt from its pairs for captures stored before it was kept), every header but those curl sets
 * itself, and the body byte for byte (a binary one decoded from its base64 on the way in).
 */
export function curlOf(
  r: Pick<CapturedView, 'method' | 'headers' | 'body'> &
    Query & {
      path?: string;
      body_encoding?: string;
    },
  url: string,
): string {
  const query = search(r);
  const target = r.path ? new URL(r.path, url).href : url;
  // A method is a token (the HTTP parser takes no other); quoted all the same if it ever is not.
  const method = /^[A-Za-z]+$/.test(r.method) ? r.method : shellQuote(r.method);
  const parts = [`curl -X ${method} ${shellQuote(target + query)}`];
  // An empty value is `Name;` to curl (`Name:` would drop the header).
  for (const [k, v] of Object.entries(r.headers))
    if (!CURL_SETS.has(k.toLowerCase())) parts.push(`-H ${shellQuote(v === '' ? `${k};` : `${k}: ${v}`)}`);
  if (!r.body) return parts.join(' ');
  if (r.body_encoding === 'base64')
    return `printf %s ${shellQuote(r.body)} | base64 -d | ${parts.join(' ')} --data-binary @-`;
  // --data-raw, not --data-binary: a body starting with @ is text to send, not a file to read.
  return `${parts.join(' ')} --data-raw ${shellQuote(r.body)}`;
}

/** A query's parameters as name-value pairs, a repeated name once per value. */
const queryPairs = (query: Record<string, string | string[]>): Array<[string, string]> =>
  Object.entries(query).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((one): [string, string] => [k, one]));
