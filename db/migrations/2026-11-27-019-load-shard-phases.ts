// A shard attempt's phases' histograms get a column of their own: a live snapshot carries them one
// report in five (domain/load/shard.ts: PHASES_EVERY), and kept in the snapshot they were written
// again with every report; in their own column, a report without them leaves the stored value as it
// is. Rows stored before keep their phases in the snapshot, where the reader still finds them.
// Frozen in time: Kysely<any>.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('load_test_shards').addColumn('phases', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`update load_test_shards set snapshot = snapshot || jsonb_build_object('phases', phases) where phases is not null`.execute(
    db,
  );
  await db.schema.alterTable('load_test_shards').dropColumn('phases').execute();
}
