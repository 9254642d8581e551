// Secrets shared by every API process, made once: the first process to ask creates the value, the
// others (and later starts) read the same one. Two processes racing both create; one insert wins and
// both return the stored value.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export async function sharedSecret(
  db: Kysely<Database>,
  name: string,
  create: () => Promise<string> | string,
): Promise<string> {
  const existing = await db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirst();
  if (existing) return existing.value;
  await db
    .insertInto('server_secrets')
    .values({ name, value: await create() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const stored = await db
    .selectFrom('server_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return stored.value;
}
