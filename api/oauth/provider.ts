// The OAuth 2.1 authorization server of the MCP endpoint: oidc-provider (certified, Koa-based),
// configured for MCP clients that know nothing but the URL `{BASE_URL}/mcp`:
// - dynamic client registration (RFC 7591) and Client ID Metadata Documents (fetched through the
//   address guard); redirect URIs https, loopback http or a native app's own scheme (RFC 8252),
//   matched exactly (a loopback URI's port excepted);
// - authorization code with PKCE S256 for every client; resource indicators (RFC 8707): the one
//   resource is `{BASE_URL}/mcp`, the default for clients that omit it; JWT access tokens for it;
// - refresh tokens for clients that registered the refresh_token grant, rotated on every use (reuse
//   of a rotated one revokes the grant); revocation (RFC 7009); metadata (RFC 8414) at the root.
// - registration is throttled per client address and its metadata bounded in size (CLIENT_REGISTRATION_LIMITS);
//   a registered client that never gets a grant expires after a day (db/oauth-store.ts).
// Records live in Postgres (db/oauth-store.ts); the signing key and cookie keys are shared secrets
// in the database, so every API process issues and verifies the same tokens.
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import Provider, { errors, type Configuration } from 'oidc-provider';
import { randomBytes } from 'node:crypto';
import { OauthStore, UNUSED_CLIENT_TTL_SECONDS } from '../../db/oauth-store.ts';
import type { Database } from '../../db/schema.ts';
import { sharedSecret } from '../../db/server-secrets.ts';
import { findUser } from '../../db/users.ts';
import type { Config } from '../../lib/config.ts';
import type { Logger } from '../../lib/log.ts';
import { MemoryKvStore, type KvStore } from '../../lib/kv/index.ts';
import { addressKey, createClientIp } from '../../lib/net/client-ip.ts';
import { createGuardedFetch } from '../../lib/net/guarded-fetch.ts';
import { escapeHtml } from '../pages/html.ts';
import { answerOutages } from './outages.ts';
import { isNativeRedirect, redirectFault } from './redirect-uris.ts';

/** Scopes of the MCP resource: `mcp:tools` calls every tool, `mcp:read` only the read-only ones. */
export const MCP_SCOPES = ['mcp:tools', 'mcp:read'] as const;
export type McpScope = (typeof MCP_SCOPES)[number];
/** Lifetimes, in seconds (documented in docs/mcp.md). */
export const OAUTH_TTL = {
  accessToken: 10 * 60,
  refreshToken: 30 * 24 * 3600,
  grant: 90 * 24 * 3600,
  authorizationCode: 60,
  interaction: 30 * 60,
  session: 14 * 24 * 3600,
  /** A registered client that gets no grant in this time is deleted (see CLIENT_REGISTRATION_LIMITS). */
  unusedClient: UNUSED_CLIENT_TTL_SECONDS,
} as const;

/**
 * Dynamic client registration (RFC 7591, `POST /oauth/register`), documented in docs/mcp.md:
 * - `perAddress` registrations per client address (an IPv6 address counts as its /64) per `windowSeconds`
 *   (a fixed hour of the key-value store, aligned to the clock): 20 an hour. A client registers once per
 *   install, but some (the MCP Inspector, clients that keep no state) register on every connection, and
 *   several people may share one address; 20 an hour serves them while a loop that registered 200 clients
 *   in 1.6 s now gets 20. Every POST counts, refused ones too. Past it: `429`, `Retry-After`, and
 *   `{"error":"temporarily_unavailable","error_description":"..."}`.
 * - Sizes of the metadata (Client ID Metadata Documents are held to the same): `client_name` at most
 *   200 characters; at most 10 `redirect_uris`; any URI (redirect URIs, `client_uri`, `logo_uri`, ...,
 *   a metadata document's `client_id`) at most 1000 characters; any other string 200; any other list 10
 *   entries; `jwks` 8 KiB of JSON. Past them: `400` `invalid_redirect_uri` (redirect URIs) or
 *   `invalid_client_metadata`, the description naming the field.
 * - A client with no grant is deleted `OAUTH_TTL.unusedClient` (24 h) after it registered.
 */
export const CLIENT_REGISTRATION_LIMITS = {
  perAddress: 20,
  windowSeconds: 3600,
  clientNameChars: 200,
  redirectUris: 10,
  uriChars: 1000,
  stringChars: 200,
  listEntries: 10,
  jwksChars: 8 * 1024,
} as const;
export const ACCESS_TOKEN_ALG = 'RS256';
/** Paths of the authorization server (the spec's table, plus revocation and keys). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  end_session: '/oauth/session/end',
  introspection: '/oauth/introspect',
  pushed_authorization_request: '/oauth/par',
  userinfo: '/oauth/userinfo',
} as const;
export const INTERACTION_PREFIX = '/oauth/interaction';
/** The oidc-provider experimental feature version acknowledged here (startup fails if the library moves on). */
const CIMD_DRAFT = 'draft-02';

export interface OauthServer {
  provider: Provider;
  issuer: string;
  /** The protected resource: `{BASE_URL}/mcp`. */
  resource: string;
  /** The public signing key, for verifying access tokens. */
  publicJwk: JWK;
  /** True for the paths oidc-provider answers itself. */
  owns(path: string): boolean;
}

/** `kv` counts registrations per address; without it (tests of the tokens alone), a store of this process. */
export async function createOauthServer(deps: {
  config: Config;
  db: Kysely<Database>;
  kv?: KvStore;
  logger?: Logger;
}): Promise<OauthServer> {
  const { config, db } = deps;
  const kv = deps.kv ?? new MemoryKvStore();
  const clientIp = createClientIp(config.trustedProxies);
  const issuer = config.baseUrl;
  const resource = `${config.baseUrl}/mcp`;
  const signingJwk = JSON.parse(
    await sharedSecret(db, 'oauth-signing-key', async () => {
      const { privateKey } = await generateKeyPair(ACCESS_TOKEN_ALG, { extractable: true, modulusLength: 2048 });
      return JSON.stringify({
        ...(await exportJWK(privateKey)),
        kid: randomBytes(8).toString('hex'),
        alg: ACCESS_TOKEN_ALG,
        use: 'sig',
      });
    }),
  ) as JWK;
  const cookieKeys = JSON.parse(
    await sharedSecret(db, 'oauth-cookie-keys', () => JSON.stringify([randomBytes(32).toString('base64url')])),
  ) as string[];
  const guardedFetch = createGuardedFetch({
    allow: config.networkAllow,
    maxRedirects: 0,
    timeoutMs: 5000,
    maxBytes: 64 * 1024,
  });

  const configuration: Configuration = {
    adapter: class {
      readonly #store: OauthStore;
      constructor(name: string) {
        this.#store = new OauthStore(db, name);
      }
      upsert(id: string, payload: any, expiresIn: number) {
        return this.#store.upsert(id, payload, expiresIn);
      }
      find(id: string) {
        return this.#store.find(id) as any;
      }
      findByUid(uid: string) {
        return this.#store.findByUid(uid) as any;
      }
      findByUserCode(userCode: string) {
        return this.#store.findByUserCode(userCode) as any;
      }
      consume(id: string) {
        return this.#store.consume(id);
      }
      destroy(id: string) {
        return this.#store.destroy(id);
      }
      revokeByGrantId(grantId: string) {
        return this.#store.revokeByGrantId(grantId);
      }
    },
    jwks: { keys: [signingJwk as any] },
    cookies: {
      keys: cookieKeys,
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    async findAccount(_ctx, sub) {
      const user = /^\d+$/.test(sub) ? await findUser(db, Number(sub)) : null;
      return user
        ? { accountId: String(user.id), claims: () => ({ sub: String(user.id), email: user.email }) }
        : undefined;
    },
    // Listed here too so that clients may register with them (RFC 7591 `scope`).
    scopes: ['offline_access', ...MCP_SCOPES],
    discovery: { scopes_supported: [...MCP_SCOPES, 'offline_access'] },
    responseTypes: ['code'],
    pkce: { required: () => true },
    routes: OAUTH_ROUTES,
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PREFIX}/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      revocation: { enabled: true },
      introspection: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      clientIdMetadataDocument: { enabled: true, ack: CIMD_DRAFT } as any,
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`the only resource here is ${resource}`);
          return {
            scope: MCP_SCOPES.join(' '),
            audience: resource,
            accessTokenTTL: OAUTH_TTL.accessToken,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: ACCESS_TOKEN_ALG } },
          };
        },
      },
    },
    // The grant id rides in the token, so a token dies with its grant (revoked app, reused refresh token).
    extraTokenClaims: async (_ctx, token) => ({ gid: (token as { grantId?: string }).grantId }),
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: OAUTH_TTL.accessToken,
      AuthorizationCode: OAUTH_TTL.authorizationCode,
      Interaction: OAUTH_TTL.interaction,
      Session: OAUTH_TTL.session,
      Grant: OAUTH_TTL.grant,
      RefreshToken: OAUTH_TTL.refreshToken,
    },
    // Called once per property listed, for every client built: registration, a metadata document, and a
    // client read back from the store. The whole metadata is checked with `redirect_uris`.
    extraClientMetadata: {
      properties: ['redirect_uris'],
      validator(_ctx, key, value, metadata) {
        if (key !== 'redirect_uris') return;
        checkRedirectUris(value);
        checkMetadataSizes(metadata as Record<string, unknown>);
        // A client that returns to its own scheme or to a loopback port is a native app (RFC 8252),
        // whatever application_type it sent (Cursor sends "web" or nothing): oidc-provider then
        // accepts its scheme and any loopback port at authorization. PKCE binds the code to it.
        if (Array.isArray(value) && value.some((uri) => isNativeRedirect(String(uri))))
          (metadata as Record<string, unknown>).application_type = 'native';
      },
    },
    // Client ID Metadata Documents and any other URL the library fetches go through the address guard.
    fetch: async (input: string | URL | Request, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      const res = await guardedFetch(url, {
        method: init?.method ?? 'GET',
        headers: Object.fromEntries(new Headers(init?.headers).entries()),
      });
      return new Response(res.status === 204 || res.status === 304 ? null : new Uint8Array(res.body), {
        status: res.status,
        headers: res.headers,
      });
    },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in error</title></head><body><main><h1>Sign-in could not continue</h1><p>${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ''))}</p></main></body></html>`;
    },
  };

  const provider = new Provider(issuer, configuration);
  provider.proxy = config.trustedProxies.length > 0;
  answerOutages(provider, deps.logger);
  // Runs before oidc-provider's own routing (its documented pre-middleware): registrations per address.
  provider.use(async (ctx, next) => {
    if (ctx.method !== 'POST' || ctx.path.replace(/\/+$/, '') !== OAUTH_ROUTES.registration) return next();
    const { windowSeconds, perAddress } = CLIENT_REGISTRATION_LIMITS;
    const quota = await kv.consume([
      { key: `oauth:register:addr:${addressKey(clientIp(ctx.req))}`, limit: perAddress, windowSeconds },
    ]);
    if (quota.allowed) return next();
    const wait = quota.windows[0]!.resetSeconds;
    ctx.status = 429;
    ctx.set('Retry-After', String(wait));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      error: 'temporarily_unavailable',
      error_description: `too many client registrations from this address (at most ${perAddress} an hour): try again in ${Math.ceil(wait / 60)} minute${wait > 60 ? 's' : ''}`,
    };
  });
  const owned = new Set<string>([
    ...Object.values(OAUTH_ROUTES),
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
  ]);
  return {
    provider,
    issuer,
    resource,
    publicJwk: publicPart(signingJwk),
    owns: (path) =>
      owned.has(path) ||
      path.startsWith(`${OAUTH_ROUTES.authorization}/`) ||
      path.startsWith(`${OAUTH_ROUTES.registration}/`),
  };
}

/**
 * Redirect URIs (RFC 8252 for native apps): https; http on a loopback address, any port (section 7.3);
 * a private-use scheme, `cursor://host/path` or `com.example.app:/path` (section 7.1). Never a fragment
 * or user info. At most `redirectUris` of them, each at most `uriChars` long.
 */
function checkRedirectUris(value: unknown): void {
  if (!Array.isArray(value)) return; // not a list: the library's own checks refuse it
  const { redirectUris, uriChars } = CLIENT_REGISTRATION_LIMITS;
  if (value.length > redirectUris)
    refuse(`redirect_uris: at most ${redirectUris} URIs (this list has ${value.length})`);
  for (const uri of value as unknown[]) {
    const text = String(uri);
    if (text.length > uriChars)
      refuse(`redirect_uris: each URI at most ${uriChars} characters (one has ${text.length})`);
    const fault = redirectFault(text);
    if (fault) refuse(`redirect_uris: ${JSON.stringify(text).slice(0, 200)} ${fault}`);
  }
}

/** Every other field of the metadata within CLIENT_REGISTRATION_LIMITS (redirect URIs are checked above). */
function checkMetadataSizes(metadata: Record<string, unknown>): void {
  const { clientNameChars, uriChars, stringChars, listEntries, jwksChars } = CLIENT_REGISTRATION_LIMITS;
  const maxChars = (field: string) =>
    field === 'client_name'
      ? clientNameChars
      : field === 'client_id' || field.endsWith('_uri') || field.endsWith('_uris')
        ? uriChars
        : stringChars;
  for (const [field, value] of Object.entries(metadata)) {
    if (field === 'redirect_uris' || value === undefined || value === null) continue;
    if (typeof value === 'string') {
      if (value.length > maxChars(field))
        refuse(`${field}: at most ${maxChars(field)} characters (this one has ${value.length})`);
    } else if (Array.isArray(value)) {
      if (value.length > listEntries)
        refuse(`${field}: at most ${listEntries} entries (this list has ${value.length})`);
      for (const entry of value) {
        const length = typeof entry === 'string' ? entry.length : (JSON.stringify(entry) ?? '').length;
        if (length > maxChars(field))
          refuse(`${field}: each entry at most ${maxChars(field)} characters (one has ${length})`);
      }
    } else if (typeof value === 'object') {
      const length = JSON.stringify(value).length;
      if (length > jwksChars) refuse(`${field}: at most ${jwksChars} characters of JSON (this one has ${length})`);
    }
  }
}

/** RFC 7591 errors: `invalid_redirect_uri` when the description starts with `redirect_uris`, else `invalid_client_metadata`. */
function refuse(description: string): never {
  throw new errors.InvalidClientMetadata(description);
}

function publicPart(jwk: JWK): JWK {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
  return pub;
}
