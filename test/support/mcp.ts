// MCP clients for the integration suites: users with passwords, and the SDK's clients signed in
// through the service's real OAuth forms (see scripts/oauth-forms.ts): the 1.x client, which speaks
// 2025-11-25, and the 2.x one at 2026-07-28.
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  auth as authV2,
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { FormBrowser, FormSignInClient, type Page } from '../../scripts/oauth-forms.ts';
import { admin } from './client.ts';
import type { Target } from './global-setup.ts';

export const PASSWORD = 'correct horse battery staple';

/**
 * A fresh loopback address other than 127.0.0.1. Registrations are limited per address (20 an hour): each
 * leaves from an address of its own on 127.0.0.0/8.
 */
export const someAddress = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

/** Registers an OAuth client (RFC 7591) from an address of its own; the answer's status and JSON body. */
export function registerClient(
  baseUrl: string,
  metadata: Record<string, unknown>,
): Promise<{ status: number; body: any }> {
  return postFrom(
    `${baseUrl}/oauth/register`,
    JSON.stringify({ token_endpoint_auth_method: 'none', ...metadata }),
  ).then(({ status, text }) => ({ status, body: JSON.parse(text || 'null') }));
}

/**
 * The authorization request an MCP client opens (OAuth 2.1): the code flow with PKCE (S256) for the
 * `mcp:tools` scope on the target's /mcp, with `state` when given; `extra` adds parameters or overrides them.
 * Without a `challenge`, the challenge of a random verifier: for a test that never redeems the code.
 */
export function authorizeUrl(
  baseUrl: string,
  request: { clientId: string; redirectUri: string; challenge?: string; state?: string },
  extra: Record<string, string> = {},
): string {
  const query = new URLSearchParams({
    client_id: request.clientId,
    response_type: 'code',
    redirect_uri: request.redirectUri,
    scope: 'mcp:tools',
    resource: `${baseUrl}/mcp`,
    code_challenge:
      request.challenge ?? createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
    code_challenge_method: 'S256',
    ...(request.state === undefined ? {} : { state: request.state }),
    ...extra,
  });
  return `${baseUrl}/oauth/authorize?${query}`;
}

/** The authorization request is answered on the service's own error page: no redirect anywhere, no sign-in form. */
export async function expectErrorPage(url: string, label: string): Promise<void> {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status, label).toBeGreaterThanOrEqual(400);
  expect(res.headers.get('location'), label).toBeNull();
  expect(await res.text(), label).not.toContain('name="password"');
}

/**
 * The consent page of `authorize` for a new browser, signed in as `email` (PASSWORD); never sent back to
 * `redirectUri`.
 */
export async function consentPage(authorize: string, email: string, redirectUri: string): Promise<Page> {
  const browser = new FormBrowser();
  const back = (u: URL) => u.href.startsWith(redirectUri);
  const signIn = await browser.get(authorize, back);
  if (signIn instanceof URL) throw new Error(`sent back at once: ${signIn.href}`);
  const consent = await browser.submit(signIn, /\/login$/, { email, password: PASSWORD }, back);
  if (consent instanceof URL) throw new Error(`sent back without consent: ${consent.href}`);
  expect(consent.html).toContain('Allow access?');
  return consent;
}

/** An HTTP request that leaves from the local address `from` (the client address the service sees). */
export function requestFrom(
  from: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, localAddress: from },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const postFrom = (url: string, body: string) =>
  requestFrom(someAddress(), url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

/**
 * fetch, but a client registration goes from an address of its own (see registerClient), as the SDK's clients here do.
 */
export const registeringFetch: typeof fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  if (init?.method !== 'POST' || new URL(url).pathname !== '/oauth/register' || typeof init.body !== 'string')
    return fetch(input, init);
  const { status, text, headers } = await postFrom(url, init.body);
  return new Response(text, { status, headers: { 'content-type': String(headers['content-type'] ?? '') } });
};

/** A JSON-RPC body POSTed to `/mcp` as a client sends it, with the access token when given. */
export const mcpPost = (target: Target, token: string | null, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${target.baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });

export async function newUser(target: Target, plan = 'pro'): Promise<{ email: string; userId: number }> {
  const email = `mcp-${randomUUID()}@example.test`;
  const created = await admin(target, ['create-user', '--email', email, '--password', PASSWORD, '--plan', plan]);
  if (created.code !== 0) throw new Error(created.stderr);
  return { email, userId: JSON.parse(created.stdout).user_id };
}

/**
 * The client registered first in this file for a server, name and scope: later users sign in with it,
 * as the users of one MCP client app do (the server allows 20 registrations an hour per address, and
 * every suite runs from 127.0.0.1).
 */
const registered = new Map<string, OAuthClientInformationMixed | undefined>();

/**
 * How a client signs in: its name and scope, and, for a client identified by its Client ID Metadata
 * Document instead of registering, that document's https URL and a redirect URI it lists.
 */
type SignIn = ConstructorParameters<typeof FormSignInClient>[1];
/** The key of `registered` for a client app of `era` on `baseUrl`. */
const appKey = (baseUrl: string, era: string, options: SignIn = {}) =>
  [baseUrl, era, options.name, options.scope, options.clientMetadataUrl, options.redirectUrl].join(' ');

/**
 * An SDK client signed in as `email` (registration, or its metadata document's URL as client id, then
 * authorization and token through the SDK).
 */
export async function connectedClient(target: Pick<Target, 'baseUrl'>, email: string, options: SignIn = {}) {
  const url = new URL(`${target.baseUrl}/mcp`);
  const oauth = new FormSignInClient({ email, password: PASSWORD }, options);
  const app = appKey(target.baseUrl, '1.x', options);
  const known = registered.get(app);
  if (known) oauth.saveClientInformation(known);
  if (options.scope) {
    // A narrower scope than the server's challenge asks for: the SDK's auth() takes it directly.
    expect(await auth(oauth as any, { serverUrl: url, scope: options.scope, fetchFn: registeringFetch })).toBe(
      'REDIRECT',
    );
    expect(await auth(oauth as any, { serverUrl: url, scope: options.scope, authorizationCode: oauth.code })).toBe(
      'AUTHORIZED',
    );
  } else {
    // The client's first request is refused (401); the SDK discovers, registers and sends the user to sign in.
    const first = new Client({ name: 'e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url, { authProvider: oauth as any, fetch: registeringFetch });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    await transport.finishAuth(oauth.code);
  }
  registered.set(app, oauth.clientInformation());
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: oauth as any }));
  return { client, oauth, url };
}

/**
 * A 2.x SDK client (`@modelcontextprotocol/client`) signed in as `email` through the same forms (its
 * own OAuth code, which checks the authorization response's `iss`), pinned to the 2026-07-28 revision:
 * `server/discover`, the `_meta` envelope on each request, no `initialize` and no fallback to it.
 */
export async function connectedModernClient(target: Pick<Target, 'baseUrl'>, email: string, options: SignIn = {}) {
  const url = new URL(`${target.baseUrl}/mcp`);
  const oauth = new FormSignInClient({ email, password: PASSWORD }, options);
  const app = appKey(target.baseUrl, '2.x', options);
  const known = registered.get(app);
  if (known) oauth.saveClientInformation(known);
  const scope = options.scope;
  expect(await authV2(oauth as any, { serverUrl: url, scope, fetchFn: registeringFetch })).toBe('REDIRECT');
  const iss = oauth.lastRedirect!.searchParams.get('iss')!;
  expect(await authV2(oauth as any, { serverUrl: url, scope, authorizationCode: oauth.code, iss })).toBe('AUTHORIZED');
  registered.set(app, oauth.clientInformation());
  const client = new ClientV2(
    { name: 'e2e', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransportV2(url, { authProvider: oauth as any }));
  return { client, oauth, url };
}
