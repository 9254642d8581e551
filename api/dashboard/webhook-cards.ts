// How the dashboard shows a captured request: escaped, JSON bodies pretty-printed, with a copy-as-curl
// command that replays it.
import { html, type Html } from '../pages/html.ts';
import type { CaptureDelivery } from '../../db/schema.ts';
import type { CapturedView } from '../services/webhooks.ts';

/** A stream event for the page: only requests after the ones it rendered, each with its display text and curl. */
export function forPage(data: unknown, url: string) {
  const d = data as { data: { requests: CapturedView[] } };
  const requests = d.data.requests.map((r) => ({ ...r, pretty_body: prettyBody(r.body), curl: curlOf(r, url) }));
  return { ...d, data: { total: requests.length, requests } };
}

/** One captured request, escaped; JSON bodies pretty-printed; a copy-as-curl command for replaying it. */
export function requestCard(r: CapturedView, url: string): Html {
  const { delivery, signature } = r as CapturedView & { delivery?: CaptureDelivery; signature?: { status: string; reason: string } };
  return html`<article class="req" data-id="${r.id}">
    <h2>#${r.id} <strong>${r.method}</strong> <code class="path">${r.path}</code> <time datetime="${r.created_at}">${r.created_at}</time> from ${r.ip_address}</h2>
    ${signature ? html`<p class="signature ${signature.status}">Signature <strong>${signature.status}</strong>: ${signature.reason}</p>` : ''}
    ${delivery ? deliveryLog(delivery) : ''}
    <details><summary>Headers</summary><pre>${Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`).join('\n')}</pre></details>
    ${r.query_params ? html`<p>Query <code>${r.query_params}</code></p>` : ''}
    <pre class="body">${prettyBody(r.body)}</pre>
    <button type="button" class="secondary copy-curl" data-curl="${curlOf(r, url)}">Copy as curl</button>
    <button type="button" class="secondary replay-this" data-id="${r.id}">Replay…</button>
  </article>`;
}

/** A capture's delivery to the forward URL: its outcome, then every attempt. */
function deliveryLog(d: CaptureDelivery): Html {
  return html`<details class="delivery"><summary>Forwarded: <strong>${d.status}</strong> after ${d.attempts} attempt(s)${d.response_status === null ? '' : html`, last answer ${d.response_status}`}${d.duration_ms === null ? '' : html` in ${d.duration_ms} ms`}</summary>
    <ol>${d.history.map((a) => html`<li><time datetime="${a.at}">${a.at}</time>: ${a.response_status ?? 'no answer'} in ${a.duration_ms} ms${a.error ? html` (${a.error})` : ''}</li>`)}</ol></details>`;
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
 * A shell command that sends the captured request again: the same method, path and query (a name
 * given several times, several times), every header but those curl sets itself, and the body byte
 * for byte (a binary one decoded from its base64 on the way in).
 */
export function curlOf(r: Pick<CapturedView, 'method' | 'headers' | 'body'> & { path?: string; query_params?: string | null; body_encoding?: string }, url: string): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(r.query_params ? (JSON.parse(r.query_params) as Record<string, string | string[]>) : {})) {
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, one);
  }
  const query = params.size > 0 ? `?${params}` : '';
  const target = r.path ? new URL(r.path, url).href : url;
  // A method is a token (the HTTP parser takes no other); quoted all the same if it ever is not.
  const method = /^[A-Za-z]+$/.test(r.method) ? r.method : shellQuote(r.method);
  const parts = [`curl -X ${method} ${shellQuote(target + query)}`];
  // An empty value is `Name;` to curl (`Name:` would drop the header).
  for (const [k, v] of Object.entries(r.headers)) if (!CURL_SETS.has(k.toLowerCase())) parts.push(`-H ${shellQuote(v === '' ? `${k};` : `${k}: ${v}`)}`);
  if (!r.body) return parts.join(' ');
  if (r.body_encoding === 'base64') return `printf %s ${shellQuote(r.body)} | base64 -d | ${parts.join(' ')} --data-binary @-`;
  // --data-raw, not --data-binary: a body starting with @ is text to send, not a file to read.
  return `${parts.join(' ')} --data-raw ${shellQuote(r.body)}`;
}
