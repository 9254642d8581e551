// The MCP App of a wait for a capture (the ui extension): webhook_wait_for_request names this ui://
// resource in its _meta. From the call's arguments (the host passes them as the tool input) it reads
// the metadata of the webhook's captures through the host with webhook_requests every APP_POLL_MS while
// on screen (api/mcp/apps/apps.ts), listing those that arrive while the wait runs (method, path, time, size, the
// status answered, the rule that answered, the schema and signature verdicts); once the tool's result
// comes it stops reading and shows the matched capture with its headers and body. Captures are the
// sender's data: every piece goes in as text (textContent), never as markup.
import type { McpServer } from '@modelcontextprotocol/server';
import { appMeta, appPage, registerApp } from './apps.ts';

export const WEBHOOK_CAPTURES_APP_URI = 'ui://netops/webhook-captures.html';

/** The _meta webhook_wait_for_request declares to be shown in the App. */
export const webhookCapturesAppMeta = appMeta(WEBHOOK_CAPTURES_APP_URI);

const STYLE = [
  '#filters{font-size:12px;opacity:.75;margin:0 0 8px}',
  'h2{font-size:13px;margin:12px 0 4px;opacity:.8}',
  'ul{list-style:none;margin:0;padding:0;border:1px solid #8884;border-radius:6px}',
  'li{padding:6px 8px;border-top:1px solid #8883}li:first-child{border-top:0}',
  'li.matched{background:#2a72}',
  'li.empty{opacity:.7;font-style:italic}',
  '.line{display:flex;gap:8px;min-width:0}',
  '.method{font-weight:600;font-family:ui-monospace,monospace}',
  '.path{font-family:ui-monospace,monospace;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;flex:1}',
  '.facts{font-size:12px;opacity:.75;display:flex;flex-wrap:wrap;gap:0 10px}',
  '.bad{color:light-dark(#b01c1c,#ff8a8a);opacity:1}.good{color:light-dark(#17703f,#6ee0a6)}',
  '#matched[hidden]{display:none}',
  'table{border-collapse:collapse;width:100%;font-size:12px;table-layout:fixed}',
  'th,td{text-align:left;vertical-align:top;padding:2px 6px;border-top:1px solid #8883;overflow-wrap:anywhere}',
  'th{width:clamp(110px,30%,220px);font-weight:600;font-family:ui-monospace,monospace}',
  'td{font-family:ui-monospace,monospace}',
  'pre{margin:0;padding:6px 8px;border:1px solid #8884;border-radius:6px;font-size:12px;',
  'white-space:pre-wrap;overflow-wrap:anywhere;max-height:240px;overflow:auto}',
].join('\n');

const BODY = `<header><h1 id="hook">Webhook captures</h1><span id="status" class="status">waiting</span></header>
<p id="filters"></p>
<h2>Arriving requests</h2>
<ul id="captures"><li class="empty">None yet.</li></ul>
<section id="matched" hidden>
<h2 id="matched-title">Matched request</h2>
<div class="facts" id="matched-facts"></div>
<h2>Headers</h2><table><tbody id="headers"></tbody></table>
<h2 id="body-title">Body</h2><pre id="body"></pre>
</section>`;

// Only captures from the wait's start are listed: its `since` when it has one, else the time the App
// got the wait's arguments less START_SLACK_MS (the host calls the tool and passes its arguments about
// together; the slack also covers a small difference between this machine's clock and the service's).
// Each read asks for the metadata of those since the newest listed (less a little, for captures that
// commit out of order), not their bodies: the matched one's body comes with the wait's result.
const SCRIPT = `
const LISTED = 20;
const START_SLACK_MS = 5000;
const REORDER_MS = 2000;
const BODY_SHOWN = 65536;
let webhookId = null;
let args = {};
let poller = null;
let ended = false;
let deadline = 0;
let from = 0;
let newest = 0;
let matchedId = null;
const captures = new Map();
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = String(text);
  return node;
}
function setStatus(text) { $('status').textContent = text; $('status').dataset.status = text; }
const size = (n) => (n < 1024 ? n + ' B' : n < 1048576 ? (n / 1024).toFixed(1) + ' KiB'
  : (n / 1048576).toFixed(1) + ' MiB');
const time = (iso) => new Date(iso).toLocaleTimeString();
const fullPath = (c) => c.path + (c.query_string == null ? '' : '?' + c.query_string);
// In the list, the path below the webhook's own (the header names the webhook).
function shortPath(c) {
  const own = '/webhook/' + webhookId;
  const below = c.path.startsWith(own) ? c.path.slice(own.length) || '/' : c.path;
  return below + (c.query_string == null ? '' : '?' + c.query_string);
}
function facts(c) {
  const out = [el('span', '', time(c.created_at)), el('span', '', size(c.body_size ?? 0))];
  if (c.answered_status != null) out.push(el('span', '', 'answered ' + c.answered_status));
  if (c.matched_rule != null) out.push(el('span', '', 'rule #' + c.matched_rule));
  if (c.schema) {
    const v = c.schema.valid;
    out.push(el('span', v === true ? 'good' : v === false ? 'bad' : '',
      v === true ? 'schema valid' : v === false ? 'schema invalid' : 'schema not checked'));
  }
  if (c.signature)
    out.push(el('span', c.signature.status === 'valid' ? 'good' : 'bad', 'signature ' + c.signature.status));
  return out;
}
function describe(a) {
  const parts = [];
  if (a.method) parts.push(String(a.method).toUpperCase());
  if (a.header) parts.push('header ' + a.header);
  if (a.q) parts.push('body containing "' + a.q + '"');
  const what = parts.length ? 'a request: ' + parts.join(', ') : 'any request';
  const seconds = Number.isInteger(a.timeout) ? a.timeout : 30;
  return 'Waiting up to ' + seconds + ' s for ' + what + (a.since ? ' since ' + a.since : '') + '.';
}
function render() {
  const list = $('captures');
  const shown = [...captures.values()].sort((a, b) => b.id - a.id).slice(0, LISTED);
  list.replaceChildren();
  if (shown.length === 0) list.append(el('li', 'empty', ended ? 'None came.' : 'None yet.'));
  for (const c of shown) {
    const item = el('li', c.id === matchedId ? 'matched' : '');
    item.dataset.id = c.id;
    const line = el('div', 'line');
    const where = el('span', 'path', shortPath(c));
    where.title = fullPath(c);
    line.append(el('span', 'method', c.method), where);
    if (c.id === matchedId) line.append(el('span', 'good', 'matched'));
    const more = el('div', 'facts');
    more.append(...facts(c));
    item.append(line, more);
    list.append(item);
  }
}
function add(list) {
  for (const c of list) {
    const at = Date.parse(c.created_at);
    if (!(at >= from)) continue;
    captures.set(c.id, captures.get(c.id) ?? c);
    newest = Math.max(newest, at);
  }
  render();
}
async function refresh() {
  if (ended || webhookId === null) return false;
  const since = new Date(Math.max(from, newest - REORDER_MS)).toISOString();
  const query = { webhook_id: webhookId, since, limit: LISTED, include_bodies: false };
  const result = await app.callServerTool({ name: 'webhook_requests', arguments: query });
  if (result.isError) throw new Error(result.content?.[0]?.text ?? 'webhook_requests failed');
  if (ended) return false;
  add(result.structuredContent?.requests ?? []);
  return true;
}
function stop() { ended = true; poller?.stop(); poller = null; }
app.ontoolinput = ({ arguments: a }) => {
  if (typeof a?.webhook_id !== 'string' || a.webhook_id === webhookId) return;
  webhookId = a.webhook_id;
  args = a;
  $('hook').textContent = 'Webhook ' + webhookId;
  $('filters').textContent = describe(a);
  setStatus('waiting');
  const since = typeof a.since === 'string' ? Date.parse(a.since) : NaN;
  from = Number.isFinite(since) ? since : Date.now() - START_SLACK_MS;
  // The wait ends by its timeout: a host that never passes the result does not keep us reading.
  deadline = Date.now() + ((Number.isInteger(a.timeout) ? a.timeout : 30) + 5) * 1000;
  refresh().catch((err) => { $('message').textContent = 'Reading captures failed: ' + (err?.message ?? err); })
    .finally(() => { if (!ended) poller ??= poll(refresh, () => deadline); });
};
function showMatched(c) {
  $('matched-title').textContent = 'Matched request ' + c.id + ': ' + c.method + ' ' + fullPath(c);
  const f = $('matched-facts');
  f.replaceChildren(...facts(c));
  if (c.ip_address) f.append(el('span', '', 'from ' + c.ip_address));
  const rows = Object.entries(c.headers ?? {}).map(([name, value]) => {
    const row = el('tr');
    row.append(el('th', '', name), el('td', '', value));
    return row;
  });
  $('headers').replaceChildren(...rows);
  const body = c.body ?? '';
  $('body-title').textContent = c.body === null ? 'Body (none)'
    : c.body_encoding === 'base64' ? 'Body (binary, base64)' : 'Body';
  $('body').textContent = body.length > BODY_SHOWN
    ? body.slice(0, BODY_SHOWN) + '\\n… ' + (body.length - BODY_SHOWN) + ' more characters' : body;
  $('body').hidden = c.body === null;
  $('matched').hidden = false;
}
app.ontoolresult = (result) => {
  const r = result.structuredContent;
  stop();
  if (result.isError || !r) {
    setStatus('ended');
    $('message').textContent = result.content?.[0]?.text ?? 'The wait ended without an answer.';
  } else if (r.request) {
    matchedId = r.request.id;
    captures.set(r.request.id, r.request);
    setStatus('matched');
    showMatched(r.request);
    $('message').textContent = '';
  } else {
    setStatus('timed out');
    $('message').textContent = 'No matching request reached the webhook in time.';
  }
  render();
};
app.ontoolcancelled = () => { stop(); setStatus('cancelled'); render(); };
`;

let html: string | undefined;
/** The App's page, built at the first read (the SDK's build does not change while we run). */
export function webhookCapturesAppHtml(): string {
  html ??= appPage({
    title: 'Webhook captures',
    name: 'netops webhook captures',
    style: STYLE,
    body: BODY,
    script: SCRIPT,
  });
  return html;
}

export function registerWebhookCapturesApp(server: McpServer) {
  registerApp(server, {
    name: 'webhook-captures-app',
    uri: WEBHOOK_CAPTURES_APP_URI,
    title: 'Webhook captures (MCP App)',
    description:
      'The live view of a webhook_wait_for_request: the captures arriving while it waits, then the one it matched.',
    html: webhookCapturesAppHtml,
  });
}
