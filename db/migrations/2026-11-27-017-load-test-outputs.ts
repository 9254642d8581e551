// A load test's metrics outputs report how they fare while it runs (writes taken, failed, the last
// failure), for its status and results: one JSON value per output, written by its sender.
// Frozen in time: Kysely<any>.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('load_tests').addColumn('outputs', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('load_tests').dropColumn('outputs').execute();
}
