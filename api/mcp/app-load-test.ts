// The MCP App of a load test (the ui extension, io.modelcontextprotocol/ui): load_test_start and
// load_test_status name this ui:// resource in their _meta, and a host that speaks the extension shows
// it in a sandboxed iframe beside the call. It draws the test from the tool results the host passes
// (status, requests/s, p95, error rate, progress) and its Stop button asks the host to call
// load_test_stop with the test's id. Self-contained: the extension's App SDK (its browser build from
// node_modules, read once at startup) and our script and CSS are inline; it loads nothing and needs no CSP
// domains, so it renders under the strictest sandbox a host applies.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';

export const LOAD_TEST_APP_URI = 'ui://netops/load-test.html';

/** The _meta a tool declares to be shown in the App (the current key, and the flat one older hosts read). */
export const loadTestAppMeta = { ui: { resourceUri: LOAD_TEST_APP_URI }, [RESOURCE_URI_META_KEY]: LOAD_TEST_APP_URI };

/**
 * The SDK's browser build is an ES module ending in one `export{…}`; inline, nothing can import it, so
 * its exports become a local object the App's script reads in the same module.
 */
function inlineSdk(): string {
  const file = fileURLToPath(import.meta.resolve('@modelcontextprotocol/ext-apps/app-with-deps'));
  const source = fs.readFileSync(file, 'utf8');
  const at = source.lastIndexOf('export{');
  if (at < 0) throw new Error(`${file}: no export clause at its end (the ext-apps build changed)`);
  const names = source
    .slice(at + 'export{'.length, source.lastIndexOf('}'))
    .split(',')
    .map((pair) => pair.trim().split(/\s+as\s+/))
    .map(([local, exported]) => `${exported ?? local}:${local}`);
  // A "</script" in the bundle would end the inline script early.
  return `${source.slice(0, at)}const McpApps={${names.join(',')}};`.replaceAll('</script', '<\\/script');
}

const STYLE = `
:root{color-scheme:light dark;font:14px/1.4 system-ui,sans-serif}
body{margin:0;padding:12px}
header{display:flex;align-items:center;gap:8px;margin-bottom:8px}
h1{font-size:15px;margin:0;flex:1;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.status{padding:2px 8px;border-radius:10px;background:#8883;font-weight:600}
.status[data-status=running]{background:#2a73;color:#185}
.status[data-status=failed]{background:#d333;color:#c22}
dl{display:grid;grid-template-columns:repeat(auto-fit,minmax(110px,1fr));gap:8px;margin:8px 0}
dl div{border:1px solid #8884;border-radius:6px;padding:6px 8px}
dt{font-size:12px;opacity:.7}dd{margin:0;font-size:20px;font-variant-numeric:tabular-nums}
#progress-row{display:flex;align-items:center;gap:8px}progress{flex:1;height:10px}
button{font:inherit;padding:4px 14px;border-radius:6px;border:1px solid #c22;background:#c22;color:#fff;cursor:pointer}
button:disabled{opacity:.5;cursor:default}
#message{font-size:12px;opacity:.8;min-height:1.2em}
`;

// The App's script: fields by id, filled from each tool result's structuredContent (load_test_status's
// answer, or load_test_start's results once it ended).
const SCRIPT = `
const $ = (id) => document.getElementById(id);
const app = new McpApps.App({ name: 'netops load test', version: '1.0.0' });
let testId = null;
const fmt = (n, digits) => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(digits) : '–');
function show(s) {
  if (!s || typeof s.test_id !== 'string') return;
  testId = s.test_id;
  const m = s.metrics ?? s.results ?? {};
  $('test').textContent = 'Load test ' + s.test_id;
  $('status').textContent = s.status;
  $('status').dataset.status = s.status;
  $('rate').textContent = fmt(m.throughput, 1);
  $('p95').textContent = fmt(m.p95_response_time, 0);
  $('errors').textContent = fmt(m.error_rate, 2);
  $('requests').textContent = fmt(m.total_requests, 0);
  const progress = s.progress ?? (s.status === 'running' || s.status === 'pending' ? 0 : 100);
  $('progress').value = progress;
  $('progress-text').textContent = progress + '%';
  $('stop').disabled = !(s.status === 'running' || s.status === 'pending') || s.stop_requested === true;
}
app.ontoolresult = (result) => show(result.structuredContent);
$('stop').addEventListener('click', async () => {
  if (!testId) return;
  $('stop').disabled = true;
  $('message').textContent = 'Stopping…';
  try {
    const result = await app.callServerTool({ name: 'load_test_stop', arguments: { test_id: testId } });
    $('message').textContent = result.isError
      ? (result.content?.[0]?.text ?? 'Stopping failed.')
      : 'Stop requested: every shard stops within a second or two.';
    if (!result.isError) { $('status').textContent = 'stopped'; $('status').dataset.status = 'stopped'; }
    else $('stop').disabled = false;
  } catch (err) {
    $('message').textContent = 'Stopping failed: ' + (err?.message ?? err);
    $('stop').disabled = false;
  }
});
await app.connect();
`;

let html: string | undefined;
/** The App's page, built at the first read (the SDK's build does not change while we run). */
export function loadTestAppHtml(): string {
  html ??= `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Load test</title><style>${STYLE}</style></head>
<body>
<header><h1 id="test">Load test</h1><span id="status" class="status">waiting</span>
<button id="stop" type="button" disabled>Stop</button></header>
<dl>
<div><dt>Requests/s</dt><dd id="rate">–</dd></div>
<div><dt>p95 (ms)</dt><dd id="p95">–</dd></div>
<div><dt>Errors (%)</dt><dd id="errors">–</dd></div>
<div><dt>Requests</dt><dd id="requests">–</dd></div>
</dl>
<div id="progress-row"><progress id="progress" max="100" value="0"></progress><span id="progress-text"></span></div>
<p id="message" role="status"></p>
<script type="module">${inlineSdk()}
${SCRIPT}</script>
</body></html>`;
  return html;
}

/** The App's ui:// resource, beside the other resources (it reads nothing of the account's). */
export function registerLoadTestApp(server: McpServer) {
  server.registerResource(
    'load-test-app',
    LOAD_TEST_APP_URI,
    {
      title: 'Load test (MCP App)',
      description:
        'The live view of a load test that load_test_start and load_test_status show in hosts with MCP Apps.',
      mimeType: RESOURCE_MIME_TYPE,
      // Nothing remote: no CSP domains asked, so hosts keep their default (inline only) policy.
      _meta: { ui: { prefersBorder: true } },
    },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: RESOURCE_MIME_TYPE, text: loadTestAppHtml() }] }),
  );
}
