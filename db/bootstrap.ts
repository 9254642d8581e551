import type { Kysely } from 'kysely';
import { hashPassword } from '../lib/auth/passwords.ts';
import { randomToken } from '../lib/auth/tokens.ts';
import { issueApiKey } from './api-keys.ts';
import { sameEmail } from './users.ts';
import type { Database } from './schema.ts';

export const FIRST_ADMIN_EMAIL = 'admin@localhost';

/**
 * On a database with no users, creates an enterprise admin and returns its key and a password to
 * sign in with (the dashboard, the MCP endpoint's sign-in), once.
 */
export async function ensureFirstAdminKey(
  db: Kysely<Database>,
): Promise<{ email: string; apiKey: string; password: string } | null> {
  const any = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (any) return null;
  const password = randomToken(12);
  // Of API processes starting together on an empty database, only the one whose insert lands prints.
  const created = await db
    .insertInto('users')
    .values({ email: FIRST_ADMIN_EMAIL, plan: 'enterprise', password_hash: await hashPassword(password) })
    .onConflict((oc) => sameEmail(oc).doNothing())
    .returning(['id', 'email'])
    .executeTakeFirst();
  if (!created) return null;
  const { apiKey } = await issueApiKey(db, Number(created.id), 'first-run admin key');
  return { email: created.email, apiKey, password };
}
