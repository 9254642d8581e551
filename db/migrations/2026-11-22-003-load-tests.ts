// Frozen in time: typed against Kysely<any>, never against today's schema.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // One row per load test: outlives Temporal's retention. The config holds no credentials.
  await db.schema
    .createTable('load_tests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'running', 'completed', 'stopped', 'failed')`),
    )
    .addColumn('config', 'jsonb', (c) => c.notNull())
    .addColumn('stop_requested', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('failure_reason', 'text')
    .addColumn('results', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('started_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await sql`create index load_tests_user_newest on load_tests (user_id, created_at desc)`.execute(db);

  // Each shard attempt's running totals, rewritten about once a second: live metrics and the final merge.
  await db.schema
    .createTable('load_test_shards')
    .addColumn('test_id', 'text', (c) => c.notNull().references('load_tests.id').onDelete('cascade'))
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('snapshot', 'jsonb', (c) => c.notNull())
    .addColumn('final', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('load_test_shards_pk', ['test_id', 'shard', 'attempt'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('load_test_shards').execute();
  await db.schema.dropTable('load_tests').execute();
}
