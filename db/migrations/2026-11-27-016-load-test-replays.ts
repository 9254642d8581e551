// A load test that replays recorded requests keeps their sequence here while it runs: too large for
// Temporal's history (a HAR may be 10 MB), read by each of its shards, deleted when the test ends.
// Frozen in time: Kysely<any>.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('load_test_replays')
    .addColumn('test_id', 'text', (c) => c.primaryKey().references('load_tests.id').onDelete('cascade'))
    .addColumn('requests', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('load_test_replays').execute();
}
