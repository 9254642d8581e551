// The OAuth 2.1 authorization server of the MCP endpoint: oidc-provider (certified, Koa-based),
// configured for MCP clients that know nothing but the URL `{BASE_URL}/mcp`:
// - dynamic client registration (RFC 7591) and Client ID Metadata Documents (fetched through the
//   address guard); redirect URIs https, loopback http, a reverse-domain scheme or a known client's
//   callback (RFC 8252, api/oauth/redirect-uris.ts), matched exactly (a loopback URI's port excepted);
// - authorization code with PKCE S256 for every client; resource indicators (RFC 8707): the one
//   resource is `{BASE_URL}/mcp`, the default for clients that omit it; JWT access tokens for it;
// - refresh tokens for clients that registered the refresh_token grant, rotated on every use (reuse
//   of a rotated one revokes the grant); revocation (RFC 7009); metadata (RFC 8414) at the root.
// - registration is throttled per client address and its metadata bounded in size (CLIENT_REGISTRATION_LIMITS,
//   api/oauth/registration.ts);
//   a registered client that never gets a grant expires after a day (db/oauth-store.ts).
// Records live in Postgres (db/oauth-store.ts); the signing key and cookie keys are shared secrets
// in the database, so every API process issues and verifies the same tokens.
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import Provider, { errors, type Adapter, type AdapterPayload, type Configuration } from 'oidc-provider';
import { randomBytes } from 'node:crypto';
import { OauthStore, UNUSED_CLIENT_TTL_SECONDS, type OauthPayload } from '../../db/oauth-store.ts';
import type { Database } from '../../db/schema.ts';
import { sharedSecret } from '../../db/server-secrets.ts';
import { findUser } from '../../db/users.ts';
import { OAUTH_COOKIES, OAUTH_PATH } from '../../lib/auth/service-credentials.ts';
import type { Config } from '../../lib/config.ts';
import type { Logger } from '../../lib/log.ts';
import { MemoryKvStore, type KvStore } from '../../lib/kv/index.ts';
import { createClientIp } from '../../lib/net/client-ip.ts';
import { createGuardedFetch } from '../../lib/net/guarded-fetch.ts';
import { escapeHtml } from '../pages/html.ts';
import { answerOutages } from './outages.ts';
import { checkClientMetadata, throttleRegistrations } from './registration.ts';

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
  const redirectSchemes: ReadonlySet<string> = new Set(config.oauthRedirectSchemes);
  const guardedFetch = createGuardedFetch({
    allow: config.networkAllow,
    maxRedirects: 0,
    timeoutMs: 5000,
    maxBytes: 64 * 1024,
  });

  const configuration: Configuration = {
    adapter: class implements Adapter {
      readonly #store: OauthStore;
      constructor(name: string) {
        this.#store = new OauthStore(db, name);
      }
      // The store keeps oidc-provider's payloads as they come (OauthPayload is its JSON view of them).
      upsert(id: string, payload: AdapterPayload, expiresIn: number) {
        return this.#store.upsert(id, payload as OauthPayload, expiresIn);
      }
      find(id: string) {
        return this.#store.find(id) as Promise<AdapterPayload | undefined>;
      }
      findByUid(uid: string) {
        return this.#store.findByUid(uid) as Promise<AdapterPayload | undefined>;
      }
      findByUserCode(userCode: string) {
        return this.#store.findByUserCode(userCode) as Promise<AdapterPayload | undefined>;
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
    jwks: { keys: [signingJwk] },
    // Sent below /oauth only (the sign-in session; the interaction cookies get their pages' own paths),
    // never to capture URLs, whose captures drop these names too.
    cookies: {
      keys: cookieKeys,
      names: { ...OAUTH_COOKIES },
      long: { httpOnly: true, sameSite: 'lax', path: OAUTH_PATH },
      short: { httpOnly: true, sameSite: 'lax', path: OAUTH_PATH },
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
      clientIdMetadataDocument: { enabled: true, ack: CIMD_DRAFT },
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
    // client read back from the store. The whole metadata is checked with `redirect_uris`. Only a
    // registration has a request context; a metadata document's client id is its https URL.
    extraClientMetadata: {
      properties: ['redirect_uris'],
      validator(ctx, key, value, metadata) {
        if (key !== 'redirect_uris') return;
        const fields = metadata as Record<string, unknown>;
        const stored = !ctx && !String(fields.client_id ?? '').startsWith('https://');
        checkClientMetadata(value, fields, { extraSchemes: redirectSchemes, stored });
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
      ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in error</title></head>\
<body><main><h1>Sign-in could not continue</h1>\
<p>${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ''))}</p></main></body></html>`;
    },
  };

  const provider = new Provider(issuer, configuration);
  provider.proxy = config.trustedProxies.length > 0;
  answerOutages(provider, deps.logger);
  throttleRegistrations(provider, { kv, clientIp, path: OAUTH_ROUTES.registration });
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

function publicPart(jwk: JWK): JWK {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
  return pub;
}
