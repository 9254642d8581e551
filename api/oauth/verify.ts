// Verifies the access tokens presented to /mcp: a JWT (RFC 9068, `typ: at+jwt`) signed by our
// authorization server, for our issuer and for the audience `{BASE_URL}/mcp`, unexpired, whose grant
// still exists (revoking an app or reusing a rotated refresh token deletes the grant: the token dies
// at once), for a user who still exists.
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Kysely } from 'kysely';
import { grantIsLive } from '../../db/oauth-store.ts';
import type { Database } from '../../db/schema.ts';
import { findUser, type Account } from '../../db/users.ts';
import { ACCESS_TOKEN_ALG, type OauthServer } from './provider.ts';

export interface TokenHolder {
  account: Account;
  scopes: string[];
  clientId: string;
  grantId: string;
  token: string;
  expiresAt: number;
}

export type Verification = { ok: true; holder: TokenHolder } | { ok: false; reason: string };

export function createTokenVerifier(deps: {
  db: Kysely<Database>;
  oauth: Pick<OauthServer, 'publicJwk' | 'issuer' | 'resource'>;
}) {
  const jwks = createLocalJWKSet({ keys: [deps.oauth.publicJwk] });
  return async (token: string): Promise<Verification> => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: deps.oauth.issuer,
        audience: deps.oauth.resource,
        algorithms: [ACCESS_TOKEN_ALG],
        typ: 'at+jwt',
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) return { ok: false, reason: 'The access token has expired' };
      if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud')
        return { ok: false, reason: `The access token is for another resource, not ${deps.oauth.resource}` };
      return { ok: false, reason: 'The access token is not valid here' };
    }
    const grantId = typeof payload.gid === 'string' ? payload.gid : '';
    if (!grantId || !(await grantIsLive(deps.db, grantId)))
      return { ok: false, reason: 'The access token was revoked' };
    const account = /^\d+$/.test(String(payload.sub)) ? await findUser(deps.db, Number(payload.sub)) : null;
    if (!account) return { ok: false, reason: 'The access token belongs to no account' };
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
    return {
      ok: true,
      holder: { account, scopes, clientId: String(payload.client_id ?? ''), grantId, token, expiresAt: payload.exp! },
    };
  };
}
