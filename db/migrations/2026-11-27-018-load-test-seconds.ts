// A load test's per-second figures leave the shards' snapshots: each shard report appends the seconds
// it counted since its previous one as a row that is never rewritten, so a snapshot (rewritten every
// second) keeps its size however long the test runs. The snapshots stored before move their series
// here once; what they keep of it is the seconds they sent in and their last pace (`sending`).
// Frozen in time: Kysely<any>, its own copy of the shapes it reads and writes.
import { sql, type Kysely } from 'kysely';

interface LegacySeries {
  perSecond: Array<number | null>;
  seconds?: {
    answered: Array<number | null>;
    failed: Array<number | null>;
    latencySumUs: Array<number | null>;
    latencyMaxUs: Array<number | null>;
  };
}

const BATCH = 500;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('load_test_seconds')
    .addColumn('test_id', 'text', (c) => c.notNull().references('load_tests.id').onDelete('cascade'))
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('last_second', 'integer', (c) => c.notNull())
    .addColumn('seconds', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('load_test_seconds_pk', ['test_id', 'shard', 'attempt', 'seq'])
    .execute();

  for (;;) {
    const rows = await db
      .selectFrom('load_test_shards')
      .select([
        'test_id',
        'shard',
        'attempt',
        sql<LegacySeries>`jsonb_build_object('perSecond', snapshot->'perSecond', 'seconds', snapshot->'seconds')`.as(
          'series',
        ),
      ])
      .where(sql<boolean>`snapshot ? 'perSecond'`)
      .limit(BATCH)
      .execute();
    if (!rows.length) break;
    for (const r of rows) {
      const { perSecond, seconds: a } = r.series as LegacySeries;
      const at = (list: Array<number | null> | undefined, i: number) => list?.[i] ?? 0;
      const length = Math.max(perSecond.length, a?.answered.length ?? 0);
      const figures = Array.from({ length }, (_, second) => ({
        second,
        sent: at(perSecond, second),
        answered: at(a?.answered, second),
        failed: at(a?.failed, second),
        latencySumUs: at(a?.latencySumUs, second),
        latencyMaxUs: at(a?.latencyMaxUs, second),
      })).filter((f) => f.sent || f.answered);
      const sentIn = figures.filter((f) => f.sent > 0).map((f) => f.second);
      const last = sentIn.length ? sentIn[sentIn.length - 1]! : -1;
      const sending = sentIn.length
        ? { first: sentIn[0]!, last, pace: Math.max(at(perSecond, last), at(perSecond, last - 1)) }
        : null;
      if (figures.length)
        await db
          .insertInto('load_test_seconds')
          .values({
            test_id: r.test_id,
            shard: r.shard,
            attempt: r.attempt,
            seq: 0,
            last_second: figures[figures.length - 1]!.second,
            seconds: JSON.stringify(figures),
          })
          .onConflict((oc) => oc.doNothing())
          .execute();
      await db
        .updateTable('load_test_shards')
        .set({
          snapshot: sql`(snapshot - 'perSecond' - 'seconds') || jsonb_build_object('sending', ${JSON.stringify(sending)}::jsonb)`,
        })
        .where('test_id', '=', r.test_id)
        .where('shard', '=', r.shard)
        .where('attempt', '=', r.attempt)
        .execute();
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('load_test_seconds').execute();
}
