// The capture functions an earlier schema kept for API processes of the release before it during a
// rolling upgrade (insert_captures, store_captures) go: nothing calls them, and no release ever ran
// them. store_captures_v2 is the one capture write. Frozen in time: Kysely<any>.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop function if exists insert_captures(json)`.execute(db);
  await sql`drop function if exists store_captures(json)`.execute(db);
}

export async function down(): Promise<void> {
  // The functions are not brought back: migrate down past 2026-11-23-011 to have them again.
}
