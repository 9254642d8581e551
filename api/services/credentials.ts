// The credentials that open long-lived requests, followed while those live (lib/auth/credential-checks.ts):
// each door's auth names what it accepted (an API key, an OAuth grant, a dashboard session) and the
// lookup that says it still holds, the same one the door made to let the request in.
import type { Kysely } from 'kysely';
import { findKeyOwner } from '../../db/api-keys.ts';
import { grantIsLive } from '../../db/oauth-store.ts';
import type { Database } from '../../db/schema.ts';
import { findUser } from '../../db/users.ts';
import { type Credential, credentialChecks, type CredentialChecks } from '../../lib/auth/credential-checks.ts';
import type { Logger } from '../../lib/log.ts';

export type { Credential };

/** During an outage every check fails: one line at most this often. */
const FAILURE_LOG_EVERY_MS = 10_000;

export function credentialService({
  db,
  logger,
  checks = credentialChecks({ onCheckFailed: failureLog(logger) }),
}: {
  db: Kysely<Database>;
  logger?: Logger;
  checks?: CredentialChecks;
}) {
  return {
    /** The API key `key` (of `keyId`), live while it is not revoked and its user exists. */
    apiKey(keyId: number, key: string, challenge: string): Credential {
      return checks.credential(`api-key:${keyId}`, async () => (await findKeyOwner(db, key))?.keyId === keyId, {
        message: 'The API key was revoked (or its account deleted)',
        challenge,
      });
    },
    /**
     * An OAuth access token of `grantId`, live while its grant is (disconnecting the app deletes it) and
     * its user exists.
     */
    oauthGrant(grantId: string, userId: number): Credential {
      return checks.credential(
        `oauth-grant:${grantId}`,
        async () => (await grantIsLive(db, grantId)) && (await findUser(db, userId)) !== null,
        {
          message: 'The access token was revoked (its app was disconnected, or its account deleted)',
          challenge: 'Bearer error="invalid_token"',
        },
      );
    },
    /**
     * A dashboard session, live while `live` says so (the session is still stored for the user) and the
     * user exists. `id` names the session (requests of one session share its checks).
     */
    session(id: string, userId: number, live: () => Promise<boolean>): Credential {
      return checks.credential(`session:${id}`, async () => (await live()) && (await findUser(db, userId)) !== null, {
        message: 'The dashboard session ended (signed out, expired, or its account deleted)',
      });
    },
  };
}

export type CredentialService = ReturnType<typeof credentialService>;

function failureLog(logger: Logger | undefined) {
  let last = 0;
  return (err: unknown, id: string) => {
    if (Date.now() - last < FAILURE_LOG_EVERY_MS) return;
    last = Date.now();
    logger?.warn({ err, credential: id.replace(/:.*/, '') }, 'checking a credential failed: it counts as live');
  };
}
