import type { Middleware } from 'koa';
import type { Kysely } from 'kysely';
import { findKeyOwner, type KeyOwner } from '../../db/api-keys.ts';
import type { Database } from '../../db/schema.ts';
import { UnauthorizedError } from '../../lib/errors.ts';
import type { Credential, CredentialService } from '../services/credentials.ts';

export interface AuthState {
  account: KeyOwner;
  /** The key the request came with, followed while a long-lived request (a stream, a wait) lives. */
  credential: Credential;
}

const CHALLENGE = 'Bearer realm="api/v1"';
/** What an OAuth access token (a JWT) looks like: three base64url parts. */
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** API key from `X-API-Key` (primary) or `Authorization: Bearer` (alternative). */
export function apiKeyAuth(db: Kysely<Database>, credentials: CredentialService): Middleware<AuthState> {
  return async (ctx, next) => {
    const key = presentedKey(ctx.get('x-api-key'), ctx.get('authorization'));
    if (!key) {
      throw new UnauthorizedError(
        'Missing API key: send it as X-API-Key: <key> or Authorization: Bearer <key>',
        CHALLENGE,
      );
    }
    const owner = await findKeyOwner(db, key);
    if (!owner && JWT.test(key))
      throw new UnauthorizedError(
        'This is an OAuth access token, which works on the MCP endpoint (/mcp); ' +
          '/api/v1 takes an API key (ntk_...) as X-API-Key or Authorization: Bearer',
        CHALLENGE,
      );
    if (!owner) throw new UnauthorizedError('Invalid or revoked API key', CHALLENGE);
    ctx.state.account = owner;
    ctx.state.credential = credentials.apiKey(owner.keyId, key, CHALLENGE);
    return next();
  };
}

function presentedKey(xApiKey: string, authorization: string): string | null {
  if (xApiKey.trim()) return xApiKey.trim();
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return m ? m[1]! : null;
}
