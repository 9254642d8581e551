import type { Kysely } from 'kysely';
import { issueApiKey } from './api-keys.ts';
import type { Database } from './schema.ts';
import { upsertUser } from './users.ts';

export const FIRST_ADMIN_EMAIL = 'admin@localhost';

/** On a database with no users, creates an enterprise admin and returns its key, once. */
export async function ensureFirstAdminKey(db: Kysely<Database>): Promise<{ email: string; apiKey: string } | null> {
  const any = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (any) return null;
  const user = await upsertUser(db, FIRST_ADMIN_EMAIL, 'enterprise');
  const { apiKey } = await issueApiKey(db, user.id, 'first-run admin key');
  return { email: user.email, apiKey };
}
