import type { Kysely } from 'kysely';
import type { Database, Plan } from './schema.ts';

export interface Account {
  id: number;
  email: string;
  plan: Plan;
}

/** Creates the user, or sets the plan of the existing one with that email. */
export async function upsertUser(db: Kysely<Database>, email: string, plan: Plan): Promise<Account> {
  const row = await db
    .insertInto('users')
    .values({ email: email.toLowerCase(), plan })
    .onConflict((oc) => oc.column('email').doUpdateSet({ plan }))
    .returning(['id', 'email', 'plan'])
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), email: row.email, plan: row.plan };
}
