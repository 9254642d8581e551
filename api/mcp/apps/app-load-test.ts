// The MCP App of a load test (the ui extension, io.modelcontextprotocol/ui): load_test_start and
// load_test_status name this ui:// resource in their _meta, and a host that speaks the extension shows
// it in a sandboxed iframe beside the call. It draws the test from the tool results the host passes
// (status, requests/s, p95, error rate, progress) and, while the test runs, from load_test_status that
// it calls itself through the host every APP_POLL_MS (api/mcp/apps/apps.ts), so the view stays live without
// the assistant asking again. Its Stop button asks the host to call load_test_stop with the test's id.
import type { McpServer } from '@modelcontextprotocol/server';
import { MAX_TEST_SECONDS } from '../../../lib/plans.ts';
import { appMeta, appPage, registerApp } from './apps.ts';

export const LOAD_TEST_APP_URI = 'ui://netops/load-test.html';

/** The _meta load_test_start and load_test_status declare to be shown in the App. */
export const loadTestAppMeta = appMeta(LOAD_TEST_APP_URI);

const STYLE = [
  'dl{display:grid;grid-template-columns:repeat(auto-fit,minmax(110px,1fr));gap:8px;margin:8px 0}',
  'dl div{border:1px solid #8884;border-radius:6px;padding:6px 8px}',
  'dt{font-size:12px;opacity:.7}dd{margin:0;font-size:20px;font-variant-numeric:tabular-nums}',
  '#progress-row{display:flex;align-items:center;gap:8px}progress{flex:1;height:10px}',
].join('\n');

const BODY = `<header><h1 id="test">Load test</h1><span id="status" class="status">waiting</span>
<button id="stop" type="button" disabled>Stop</button></header>
<dl>
<div><dt>Requests/s</dt><dd id="rate">–</dd></div>
<div><dt>p95 (ms)</dt><dd id="p95">–</dd></div>
<div><dt>Errors (%)</dt><dd id="errors">–</dd></div>
<div><dt>Requests</dt><dd id="requests">–</dd></div>
</dl>
<div id="progress-row"><progress id="progress" max="100" value="0"></progress><span id="progress-text"></span></div>`;

// Fields by id, filled from each result's structuredContent (load_test_status's answer, or
// load_test_start's results once it ended); a live test is read again until it has ended, and no longer
// than its expected end (estimated_completion, else started_at and its duration) and a minute more, or,
// with neither, the longest test a plan allows and a minute more from when the App first showed it.
// A Stop asked for here holds for that test: a read that was already on its way and answers running
// leaves the badge "stopping" and Stop disabled, until a status says the test ended.
const SCRIPT = `
const MARGIN_MS = 60000;
const HARD_CAP_MS = ${MAX_TEST_SECONDS} * 1000 + MARGIN_MS;
let testId = null;
let poller = null;
let last = null;
let firstShown = 0;
let stopAsked = null;
const live = (status) => status === 'running' || status === 'pending';
const fmt = (n, digits) => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(digits) : '–');
const when = (iso) => (typeof iso === 'string' ? Date.parse(iso) : NaN);
function expectedEnd(s) {
  const estimated = when(s?.estimated_completion);
  if (Number.isFinite(estimated)) return estimated + MARGIN_MS;
  const started = when(s?.started_at);
  const seconds = Number(s?.config?.testDuration ?? s?.config?.test_duration);
  if (Number.isFinite(started) && seconds > 0) return started + seconds * 1000 + MARGIN_MS;
  return firstShown + HARD_CAP_MS;
}
function show(s) {
  if (!s || typeof s.test_id !== 'string') return;
  if (s.test_id !== testId) { poller?.stop(); poller = null; firstShown = Date.now(); }
  testId = s.test_id;
  last = s;
  const m = s.metrics ?? s.results ?? {};
  const stopping = live(s.status) && (s.stop_requested === true || stopAsked === s.test_id);
  const status = stopping ? 'stopping' : s.status;
  $('test').textContent = 'Load test ' + s.test_id;
  $('status').textContent = status;
  $('status').dataset.status = status;
  $('rate').textContent = fmt(m.throughput, 1);
  $('p95').textContent = fmt(m.p95_response_time, 0);
  $('errors').textContent = fmt(m.error_rate, 2);
  $('requests').textContent = fmt(m.total_requests, 0);
  const progress = s.progress ?? (live(s.status) ? 0 : 100);
  $('progress').value = progress;
  $('progress-text').textContent = progress + '%';
  $('stop').disabled = !live(s.status) || stopping;
  if (!live(s.status)) { poller?.stop(); poller = null; }
  else if (!poller || poller.stopped) poller = poll(refresh, () => expectedEnd(last));
}
async function refresh() {
  const id = testId;
  const result = await app.callServerTool({ name: 'load_test_status', arguments: { test_id: id } });
  if (id !== testId) return false;
  if (result.isError) throw new Error(result.content?.[0]?.text ?? 'load_test_status failed');
  show(result.structuredContent);
  return live(result.structuredContent?.status);
}
app.ontoolresult = (result) => show(result.structuredContent);
$('stop').addEventListener('click', async () => {
  if (!testId) return;
  const id = testId;
  // Asked from now on: a status read already on its way does not give the button back.
  stopAsked = id;
  $('stop').disabled = true;
  $('message').textContent = 'Stopping…';
  let failed = null;
  try {
    const result = await app.callServerTool({ name: 'load_test_stop', arguments: { test_id: id } });
    if (result.isError) failed = result.content?.[0]?.text ?? 'Stopping failed.';
  } catch (err) {
    failed = 'Stopping failed: ' + (err?.message ?? err);
  }
  if (id !== testId) return;
  if (failed === null) $('message').textContent = 'Stop requested: every shard stops within a second or two.';
  else { stopAsked = null; $('message').textContent = failed; }
  show(last);
});
`;

let html: string | undefined;
/** The App's page, built at the first read (the SDK's build does not change while we run). */
export function loadTestAppHtml(): string {
  html ??= appPage({ title: 'Load test', name: 'netops load test', style: STYLE, body: BODY, script: SCRIPT });
  return html;
}

export function registerLoadTestApp(server: McpServer) {
  registerApp(server, {
    name: 'load-test-app',
    uri: LOAD_TEST_APP_URI,
    title: 'Load test (MCP App)',
    description: 'The live view of a load test that load_test_start and load_test_status show in hosts with MCP Apps.',
    html: loadTestAppHtml,
  });
}
