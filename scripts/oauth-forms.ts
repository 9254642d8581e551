// Drives the service's own sign-in, consent and dashboard forms over plain HTTP, the way a browser
// would (cookies kept, redirects followed by hand, the CSRF field echoed). Used by scripts/mcp-token.ts
// to get a token for the MCP Inspector, and by the end-to-end tests.
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export interface Page {
  url: string;
  status: number;
  html: string;
}

/** What a browser sends its requests through: `fetch`, or a stand-in for it (one that picks the source address). */
export type SendRequest = (url: string, init: RequestInit) => Promise<Response>;

export class FormBrowser {
  readonly #jar = new Map<string, string>();
  readonly #send: SendRequest;
  /** Every Set-Cookie line the service sent, as sent (attributes included). */
  readonly setCookies: string[] = [];

  constructor(options: { send?: SendRequest } = {}) {
    this.#send = options.send ?? fetch;
  }

  /** Every cookie this browser holds, as one Cookie header (paths aside: as a browser sends cookies set for `/`). */
  cookieHeader(): string {
    return [...this.#jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** GET `url`, following redirects until a page (or until `stopAt` says a URL is the destination). */
  async get(url: string, stopAt?: (url: URL) => boolean): Promise<Page | URL> {
    return this.#go(url, 'GET', undefined, stopAt);
  }

  /** Fills and posts the form of `page` whose action matches `action`, then follows redirects. */
  async submit(
    page: Page,
    action: RegExp,
    fields: Record<string, string>,
    stopAt?: (url: URL) => boolean,
  ): Promise<Page | URL> {
    const form = [...page.html.matchAll(/<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/g)].find((m) =>
      action.test(decode(m[1]!)),
    );
    if (!form)
      throw new Error(
        `no form with an action like ${action} on ${page.url} (HTTP ${page.status}): ${page.html.slice(0, 300)}`,
      );
    const hidden = Object.fromEntries(
      [...form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
        m[1]!,
        decode(m[2]!),
      ]),
    );
    const body = new URLSearchParams({ ...hidden, ...fields }).toString();
    return this.#go(new URL(decode(form[1]!), page.url).href, 'POST', body, stopAt);
  }

  async #go(
    url: string,
    method: string,
    body: string | undefined,
    stopAt?: (url: URL) => boolean,
  ): Promise<Page | URL> {
    for (let hop = 0; hop < 20; hop++) {
      const res = await this.#send(url, {
        method,
        body,
        redirect: 'manual',
        headers: {
          cookie: this.cookieHeader(),
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
      });
      for (const line of res.headers.getSetCookie()) {
        this.setCookies.push(line);
        const [pair, ...attrs] = line.split(';');
        const eq = pair!.indexOf('=');
        const name = pair!.slice(0, eq).trim();
        const expired =
          attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) ||
          attrs.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) < Date.now());
        if (expired) this.#jar.delete(name);
        else this.#jar.set(name, pair!.slice(eq + 1).trim());
      }
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        const next = new URL(location, url);
        if (stopAt?.(next)) return next;
        url = next.href;
        method = 'GET';
        body = undefined;
        continue;
      }
      return { url, status: res.status, html: await res.text() };
    }
    throw new Error(`too many redirects from ${url}`);
  }
}

function decode(s: string): string {
  return s
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}

/**
 * Signs in and answers the consent page for an authorization URL; returns the URL the service sent
 * the browser back to (the client's redirect URI with `code` or `error`).
 */
export async function authorizeInBrowser(
  authorizationUrl: URL | string,
  options: { email: string; password: string; redirectUri: string; approve?: boolean; browser?: FormBrowser },
): Promise<URL> {
  const browser = options.browser ?? new FormBrowser();
  const back = (u: URL) => u.href.startsWith(options.redirectUri);
  let at = await browser.get(String(authorizationUrl), back);
  let signedIn = false;
  for (let step = 0; step < 4 && !(at instanceof URL); step++) {
    if (/name="password"/.test(at.html)) {
      // Asked again after answering: the page says why (wrong password, too many attempts), in one line.
      if (signedIn)
        throw new Error(
          `the sign-in was refused: ${decode(/role="alert">([^<]*)</.exec(at.html)?.[1] ?? `HTTP ${at.status}`)}`,
        );
      signedIn = true;
      at = await browser.submit(at, /\/login$/, { email: options.email, password: options.password }, back);
    } else if (/\/confirm"/.test(at.html))
      at = await browser.submit(at, options.approve === false ? /\/abort$/ : /\/confirm$/, {}, back);
    else
      throw new Error(
        `unexpected page ${at.url} (HTTP ${at.status}): ${at.html.replace(/<[^>]+>/g, ' ').slice(0, 300)}`,
      );
  }
  if (!(at instanceof URL))
    throw new Error(
      `the sign-in did not finish: ${at.url} (HTTP ${at.status}): ${at.html.replace(/<[^>]+>/g, ' ').slice(0, 300)}`,
    );
  return at;
}

/**
 * An MCP OAuth client (the SDK's OAuthClientProvider) that keeps everything in memory and answers the
 * authorization step with `authorizeInBrowser`: a native-app style client with a loopback redirect URI
 * that is never actually served (the browser stops at it and hands the code over).
 */
export class FormSignInClient implements OAuthClientProvider {
  readonly redirectUrl: string;
  readonly clientMetadata: {
    client_name: string;
    redirect_uris: string[];
    grant_types: string[];
    response_types: string[];
    token_endpoint_auth_method: string;
    scope?: string;
  };
  lastRedirect: URL | undefined;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = '';
  #discovery: OAuthDiscoveryState | undefined;
  readonly #credentials: { email: string; password: string; approve?: boolean };
  /** An https URL of this client's metadata document: the SDK then uses it as the client id instead of registering. */
  readonly clientMetadataUrl: string | undefined;

  constructor(
    credentials: { email: string; password: string; approve?: boolean },
    options: { name?: string; scope?: string; redirectUrl?: string; clientMetadataUrl?: string } = {},
  ) {
    this.#credentials = credentials;
    this.clientMetadataUrl = options.clientMetadataUrl;
    this.redirectUrl = options.redirectUrl ?? 'http://127.0.0.1:8976/oauth/callback';
    this.clientMetadata = {
      client_name: options.name ?? 'netops form sign-in client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(options.scope ? { scope: options.scope } : {}),
    };
  }

  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
  /** What the SDK found about the authorization server, kept for the callback leg (it checks the issuer against it). */
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery;
  }
  async redirectToAuthorization(url: URL) {
    this.lastRedirect = await authorizeInBrowser(url, { ...this.#credentials, redirectUri: this.redirectUrl });
  }
  /** The code the service sent back with, after the authorization step. */
  get code(): string {
    const code = this.lastRedirect?.searchParams.get('code');
    if (!code) throw new Error(`no code in ${this.lastRedirect?.href ?? '(no redirect yet)'}`);
    return code;
  }
}
