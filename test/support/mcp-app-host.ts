// A host for our MCP Apps in the browser suites, built on the extension's own host SDK: its AppBridge
// (@modelcontextprotocol/ext-apps/app-bridge) runs here in Node and speaks to the App in headless
// Chromium over a transport that carries each JSON-RPC message across postMessage, as a host's page
// does. The App runs in a sandboxed iframe (scripts only, opaque origin) under a host page whose
// policy allows nothing remote, with the network cut; the App's tool calls go to `callTool` (the
// suites forward them to the MCP server through a signed-in client) and are recorded.
/// <reference lib="dom" />
import type {
  CallToolRequest,
  CallToolResult,
  Client as ClientV2,
  JSONRPCMessage,
  Transport,
} from '@modelcontextprotocol/client';
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { expect } from 'vitest';

/** The host page: nothing remote may load (a host's usual policy for an App that asks for no domains). */
const HOST_PAGE = `<!doctype html><html><head><meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"></head>
<body style="margin:0"><iframe id="app" sandbox="allow-scripts" style="border:0;width:100%;height:200px;display:block">
</iframe></body></html>`;

const APP_MIME = 'text/html;profile=mcp-app';

/** What servedApp reads through: the 1.x SDK client (2025-11-25) or the 2.x one (2026-07-28). */
type AppReader =
  | Pick<Client, 'listTools' | 'listResources' | 'readResource'>
  | Pick<ClientV2, 'listTools' | 'listResources' | 'readResource'>;

/**
 * The App at `uri` as the server serves it, checked: the tools `namedBy` name it in their _meta (and
 * `notNamedBy` names none), resources/list lists it and resources/read answers it as the extension's
 * HTML, with nothing to fetch. Answers that HTML.
 */
export async function servedApp(client: AppReader, uri: string, namedBy: string[], notNamedBy: string) {
  const { tools } = await client.listTools();
  for (const name of namedBy) {
    const tool = tools.find((t) => t.name === name);
    expect(tool?._meta, name).toMatchObject({ ui: { resourceUri: uri }, 'ui/resourceUri': uri });
  }
  expect(tools.find((t) => t.name === notNamedBy)?._meta?.ui).toBeUndefined();
  const { resources } = await client.listResources();
  expect(resources.filter((r) => r.uri === uri)).toMatchObject([{ mimeType: APP_MIME }]);
  const read = await client.readResource({ uri });
  expect(read.contents).toHaveLength(1);
  const content = read.contents[0] as { uri: string; mimeType: string; text: string };
  expect(content).toMatchObject({ uri, mimeType: APP_MIME });
  // Hosts read the content item's _meta before the listing's.
  expect((content as { _meta?: unknown })._meta).toMatchObject({ ui: { prefersBorder: true } });
  expect(content.text).toMatch(/^<!doctype html>/);
  expect(content.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<iframe|<img/i);
  return content.text;
}

type Theme = 'light' | 'dark';
type Window = {
  toHost: (m: JSONRPCMessage) => void;
  toApp: (m: JSONRPCMessage) => void;
};

export interface HostedApp {
  page: Page;
  app: FrameLocator;
  bridge: AppBridge;
  /** The App's tool calls, in order. */
  calls: CallToolRequest['params'][];
  /** Whatever the page tried to load (all refused). */
  outside: string[];
  /** The page's uncaught errors. */
  errors: string[];
  /** The host's theme, passed to the App as a host-context change (and the page's color scheme). */
  setTheme(theme: Theme): Promise<void>;
  /** Moves the App's frame below the host page's viewport (scrolled out of view), or back. */
  setOnScreen(on: boolean): Promise<void>;
  /** A screenshot of the whole App at `width` px. */
  screenshot(file: string, width: number): Promise<void>;
}

export async function hostApp(
  browser: Browser,
  html: string,
  callTool: (params: CallToolRequest['params']) => Promise<unknown>,
  options: { width?: number; theme?: Theme } = {},
): Promise<HostedApp> {
  const theme = options.theme ?? 'light';
  const page = await browser.newPage({ viewport: { width: options.width ?? 640, height: 300 }, colorScheme: theme });
  const outside: string[] = [];
  await page.route('**/*', (route) => {
    outside.push(route.request().url());
    return route.abort();
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setContent(HOST_PAGE);

  const transport: Transport = {
    start: async () => {},
    send: async (message) => {
      await page.evaluate((m) => (window as unknown as Window).toApp(m), message);
    },
    close: async () => transport.onclose?.(),
  };
  await page.exposeFunction('toHost', (message: JSONRPCMessage) => transport.onmessage?.(message));
  await page.evaluate(() => {
    const w = window as unknown as Window;
    const frame = document.getElementById('app') as HTMLIFrameElement;
    window.addEventListener('message', (event) => {
      if (event.source === frame.contentWindow) w.toHost(event.data);
    });
    w.toApp = (m) => frame.contentWindow!.postMessage(m, '*');
  });

  const calls: CallToolRequest['params'][] = [];
  const bridge = new AppBridge(
    null,
    { name: 'test host', version: '1.0.0' },
    { serverTools: {} },
    { hostContext: { theme } },
  );
  bridge.oncalltool = async (params) => {
    calls.push(params);
    // The App's _meta (its own progress token) is the bridge's, not the server's.
    return (await callTool({ name: params.name, arguments: params.arguments })) as CallToolResult;
  };
  // The App asks for the height it needs; the host gives it.
  bridge.onsizechange = ({ height }) => {
    if (height === undefined) return;
    void page
      .evaluate((h) => {
        (document.getElementById('app') as HTMLIFrameElement).style.height = `${h}px`;
      }, height)
      .catch(() => {});
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(transport);
  await page.evaluate((text) => {
    (document.getElementById('app') as HTMLIFrameElement).srcdoc = text;
  }, html);
  await initialized;

  return {
    page,
    app: page.frameLocator('#app'),
    bridge,
    calls,
    outside,
    errors,
    async setTheme(next) {
      await page.emulateMedia({ colorScheme: next });
      bridge.setHostContext({ theme: next });
      await page.frameLocator('#app').locator(`html[data-theme=${next}]`).waitFor({ state: 'attached', timeout: 5000 });
    },
    async setOnScreen(on) {
      await page.evaluate(
        (margin) => {
          (document.getElementById('app') as HTMLIFrameElement).style.marginTop = margin;
        },
        on ? '0' : '3000px',
      );
    },
    async screenshot(file, width) {
      await page.setViewportSize({ width, height: 300 });
      // The App reports its height at the new width after a relayout; the shot is as tall as the App.
      await page.waitForTimeout(300);
      const height = await page.evaluate(() => document.getElementById('app')!.getBoundingClientRect().height);
      await page.setViewportSize({ width, height: Math.ceil(height) });
      await page.waitForTimeout(100);
      await page.screenshot({ path: file });
    },
  };
}
