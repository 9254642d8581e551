// What each shard attempt had sent, counted a few times a second (a checkpoint), in a small table of
// its own: a load worker that dies between two of its once-a-second reports took the requests it sent
// since the last one with it, and the checkpoint tells how many (domain/load/restarts.ts). Its own
// table keeps these frequent writes off the reports' large rows. Frozen in time: Kysely<any>.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('load_test_sent')
    .addColumn('test_id', 'text', (c) => c.notNull().references('load_tests.id').onDelete('cascade'))
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    // Requests the attempt had sent (written or being connected) when it counted them; exact to 2^53.
    .addColumn('sent', 'double precision', (c) => c.notNull())
    // When it counted them, epoch ms.
    .addColumn('counted_at', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('load_test_sent_pk', ['test_id', 'shard', 'attempt'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('load_test_sent').execute();
}
