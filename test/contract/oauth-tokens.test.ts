// The access-token check of /mcp with the real signing key (made and shared through the database):
// what the authorization server would never issue (another audience, expired, wrong type, unknown
// key, no grant) is refused; a token dies with its grant; two API processes share one key.
import { importJWK, SignJWT, generateKeyPair, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/connect.ts';
import { OauthStore } from '../../db/oauth-store.ts';
import { upsertUser } from '../../db/users.ts';
import { ACCESS_TOKEN_ALG, createOauthServer, type OauthServer } from '../../api/oauth/provider.ts';
import { createTokenVerifier } from '../../api/oauth/verify.ts';
import { loadConfig } from '../../lib/config.ts';
import { contractDatabases } from '../support/databases.ts';

const databases = contractDatabases('oauth-tokens');

describe.each(databases)('MCP access tokens (%s)', (_name, open) => {
  let handle: DatabaseHandle;
  let oauth: OauthServer;
  let privateKey: CryptoKey | Uint8Array;
  let userId: number;
  const grantId = `grant-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const config = loadConfig({ BASE_URL: 'https://tokens.example.test' });

  beforeAll(async () => {
    handle = await open();
    oauth = await createOauthServer({ config, db: handle.db });
    const row = await handle.db
      .selectFrom('server_secrets')
      .select('value')
      .where('name', '=', 'oauth-signing-key')
      .executeTakeFirstOrThrow();
    privateKey = await importJWK(JSON.parse(row.value) as JWK, ACCESS_TOKEN_ALG);
    userId = (await upsertUser(handle.db, `tokens-${grantId}@example.test`, 'pro')).id;
    await new OauthStore(handle.db, 'Grant').upsert(
      grantId,
      {
        accountId: String(userId),
        clientId: 'client-1',
        resources: { 'https://tokens.example.test/mcp': 'mcp:tools' },
      },
      3600,
    );
  });
  afterAll(() => handle?.close());

  const sign = (
    claims: Record<string, unknown>,
    options: { key?: CryptoKey | Uint8Array; typ?: string; exp?: number } = {},
  ) =>
    new SignJWT({ scope: 'mcp:tools', client_id: 'client-1', gid: grantId, ...claims })
      .setProtectedHeader({ alg: ACCESS_TOKEN_ALG, typ: options.typ ?? 'at+jwt', kid: oauth.publicJwk.kid })
      .setIssuer(oauth.issuer)
      .setAudience((claims.aud as string) ?? oauth.resource)
      .setSubject(String(userId))
      .setIssuedAt()
      .setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(options.key ?? privateKey);

  it('accepts what the server issues and refuses everything else', async () => {
    const verify = createTokenVerifier({ db: handle.db, oauth });
    const ok = await verify(await sign({}));
    expect(ok.ok && ok.holder).toMatchObject({
      account: { id: userId, plan: 'pro' },
      scopes: ['mcp:tools'],
      grantId,
      clientId: 'client-1',
    });

    const refused = async (token: string) => {
      const v = await verify(token);
      expect(v.ok).toBe(false);
      return v.ok ? '' : v.reason;
    };
    expect(await refused(await sign({ aud: 'https://other.example/mcp' }))).toMatch(/another resource/);
    expect(await refused(await sign({}, { exp: Math.floor(Date.now() / 1000) - 120 }))).toMatch(/expired/);
    expect(await refused(await sign({}, { typ: 'JWT' }))).toMatch(/not valid/);
    const { privateKey: stranger } = await generateKeyPair(ACCESS_TOKEN_ALG);
    expect(await refused(await sign({}, { key: stranger }))).toMatch(/not valid/);
    expect(await refused(await sign({ gid: undefined }))).toMatch(/revoked/);
    expect(await refused(await sign({ gid: 'no-such-grant' }))).toMatch(/revoked/);
    expect(await refused('not.a.jwt')).toMatch(/not valid/);
  });

  it('a token dies with its grant', async () => {
    const verify = createTokenVerifier({ db: handle.db, oauth });
    const token = await sign({});
    expect((await verify(token)).ok).toBe(true);
    await new OauthStore(handle.db, 'Grant').revokeByGrantId(grantId);
    expect(await verify(token)).toEqual({ ok: false, reason: 'The access token was revoked' });
  });

  it('every API process uses the same signing key', async () => {
    const second = await createOauthServer({ config, db: handle.db });
    expect(second.publicJwk).toEqual(oauth.publicJwk);
    expect(second.publicJwk.d).toBeUndefined();
  });
});
