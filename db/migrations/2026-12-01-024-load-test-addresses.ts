// Each load test keeps the addresses its target resolved to when it started (null for tests started
// before, and where target verification is off), so that an unproven test is refused beside another
// of the same server however its URL names it (lib/net/same-server.ts), not only of the same origin.
// Frozen in time: Kysely<any>.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('load_tests').addColumn('target_addresses', sql`text[]`).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('load_tests').dropColumn('target_addresses').execute();
}
