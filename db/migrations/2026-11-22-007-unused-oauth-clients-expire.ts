// Registered OAuth clients used to be kept forever. Since then a client expires a day after it
// registered unless it gets a grant (db/oauth-store.ts): this gives the clients registered before that,
// and holding no grant, the same day, counted from now. Clients with a grant stay as they are.
// Frozen in time: typed against Kysely<any>, never against today's schema.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    update oauth_records c set expires_at = now() + interval '24 hours'
    where c.kind = 'Client' and c.expires_at is null
      and not exists (select 1 from oauth_records g where g.kind = 'Grant' and g.payload->>'clientId' = c.id)
  `.execute(db);
}

export async function down(): Promise<void> {
  // Nothing to undo: the clients it dated have expired by now, or got a grant and no longer expire.
}
