// What our MCP Apps (the ui extension, io.modelcontextprotocol/ui) share: the page around an App's
// markup and script, with the extension's App SDK (its browser build from node_modules, read once) and
// our CSS base inline; the script every App starts with (the SDK's App connected, the host's theme
// followed, a poller that reads a tool through the host while the view is on screen); and the ui://
// resource's registration. An App loads nothing and asks for no CSP domains, so it renders under the
// strictest sandbox a host applies: its only way out is a tool call through the host.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';

/** The _meta a tool declares to be shown in an App (the current key, and the flat one older hosts read). */
export const appMeta = (uri: string) => ({ ui: { resourceUri: uri }, [RESOURCE_URI_META_KEY]: uri });

/** How often an App reads its tool again while it shows something that is still going on. */
export const APP_POLL_MS = 2000;

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
let sdk: string | undefined;

// Colors for a light and a dark page (translucent greys, light-dark() accents): the host's theme sets
// color-scheme, and without one the system's does.
const BASE_STYLE = [
  ':root{color-scheme:light dark;font:14px/1.4 system-ui,sans-serif}',
  ':root[data-theme=light]{color-scheme:light}:root[data-theme=dark]{color-scheme:dark}',
  'body{margin:0;padding:12px}',
  'header{display:flex;align-items:center;gap:8px;margin-bottom:8px}',
  'h1{font-size:15px;margin:0;flex:1;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}',
  '.status{padding:2px 8px;border-radius:10px;background:#8883;font-weight:600;white-space:nowrap}',
  ':is(.status[data-status=running],.status[data-status=waiting],.status[data-status=matched])',
  '{background:#2a73;color:light-dark(#17703f,#6ee0a6)}',
  '.status[data-status=failed]{background:#d333;color:light-dark(#b01c1c,#ff8a8a)}',
  'button{font:inherit;padding:4px 14px;border-radius:6px;border:1px solid #c22;background:#c22;color:#fff;',
  'cursor:pointer}',
  'button:disabled{opacity:.5;cursor:default}',
  '#message{font-size:12px;opacity:.8;min-height:1.2em;margin:6px 0 0}',
].join('\n');

/** Reads in a row that may fail before an App stops reading (each error is shown; the reason stays). */
export const APP_POLL_FAILURES = 5;

// The start of every App's script: `app` (connected by the page once the App's own handlers are set),
// `$`, the host's theme followed, and `poll(tick, until)`: calls tick every APP_POLL_MS while the App is
// on screen (its root intersects the host's viewport and the host's tab is visible: inside an iframe,
// visibilityState alone says only the tab), until tick answers false, stop() is called, Date.now()
// passes until() (when given), or APP_POLL_FAILURES reads in a row failed. Stopped, it leaves its
// listener and observer behind no more, and says why it stopped in #message unless stop() was called.
const BASE_SCRIPT = `
const $ = (id) => document.getElementById(id);
const app = new McpApps.App(APP_INFO);
const followTheme = (ctx) => { if (ctx?.theme) McpApps.applyDocumentTheme(ctx.theme); };
app.onhostcontextchanged = followTheme;
function poll(tick, until) {
  let timer = null;
  let reading = false;
  let stopped = false;
  let failures = 0;
  // Until the observer's first answer, assume on screen (it answers at once once observing).
  let onScreen = true;
  const showing = () => onScreen && document.visibilityState !== 'hidden';
  const schedule = () => {
    if (stopped || reading || timer !== null || !showing()) return;
    timer = setTimeout(run, ${APP_POLL_MS});
  };
  const end = (reason) => {
    stopped = true;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    document.removeEventListener('visibilitychange', onVisibility);
    observer?.disconnect();
    if (reason) $('message').textContent = 'Stopped refreshing: ' + reason;
  };
  const run = async () => {
    timer = null;
    if (stopped) return;
    if (until && Date.now() > until()) return end('past its expected end; ask again for the latest.');
    if (!showing()) return;
    reading = true;
    let again = true;
    try {
      again = (await tick()) !== false;
      if (failures > 0 && $('message').textContent.startsWith('Refreshing failed: ')) $('message').textContent = '';
      failures = 0;
    } catch (err) {
      const reason = err?.message ?? String(err);
      failures += 1;
      if (failures >= ${APP_POLL_FAILURES}) again = false;
      if (!again) end(reason); else $('message').textContent = 'Refreshing failed: ' + reason;
    }
    reading = false;
    if (!again) end(); else schedule();
  };
  const onVisibility = () => schedule();
  const observer = typeof IntersectionObserver === 'function'
    ? new IntersectionObserver((entries) => {
      onScreen = entries.at(-1).isIntersecting;
      schedule();
    })
    : null;
  document.addEventListener('visibilitychange', onVisibility);
  observer?.observe(document.documentElement);
  schedule();
  return { stop() { if (!stopped) end(); }, get stopped() { return stopped; } };
}
`;

/** One App's page: its markup and script inside the shared page, the SDK and CSS base inline. */
export function appPage(page: { title: string; name: string; style: string; body: string; script: string }) {
  sdk ??= inlineSdk();
  const info = JSON.stringify({ name: page.name, version: '1.0.0' });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${page.title}</title><style>${BASE_STYLE}
${page.style}</style></head>
<body>
${page.body}
<p id="message" role="status"></p>
<script type="module">${sdk}
const APP_INFO = ${info};
${BASE_SCRIPT}
${page.script}
await app.connect();
followTheme(app.getHostContext());
</script>
</body></html>`;
}

/** An App's ui:// resource, beside the other resources (an App reads nothing of the account's). */
export function registerApp(
  server: McpServer,
  app: { name: string; uri: string; title: string; description: string; html: () => string },
) {
  server.registerResource(
    app.name,
    app.uri,
    {
      title: app.title,
      description: app.description,
      mimeType: RESOURCE_MIME_TYPE,
      // Nothing remote: no CSP domains asked, so hosts keep their default (inline only) policy.
      _meta: { ui: { prefersBorder: true } },
    },
    // Hosts read the content item's _meta first (the listing's is for hosts that read only the list).
    (uri) => ({
      contents: [
        { uri: uri.href, mimeType: RESOURCE_MIME_TYPE, text: app.html(), _meta: { ui: { prefersBorder: true } } },
      ],
    }),
  );
}
