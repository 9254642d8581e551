// A load test's per-second figures leave the shards' snapshots: each shard report appends the seconds
// it counted since its previous one as a row that is never rewritten, so a snapshot (rewritten every
// second) keeps its size however long the test runs. The snapshots stored before move their series
// here once; what they keep of it is the seconds they sent in and their last pace (`sending`).
// Frozen in time: Kysely<any>, its own copy of the shapes it reads and writes.
import { sql, type Kysely } from 'kysely';

interface LegacySeries {
  perSecond: Array<number | null> | null;
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

  // In key order, a batch at a time (each row read once).
  let after: { test_id: string; shard: number; attempt: number } | null = null;
  for (;;) {
    let q = db
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
      .orderBy('test_id')
      .orderBy('shard')
      .orderBy('attempt')
      .limit(BATCH);
    if (after)
      q = q.where(sql<boolean>`(test_id, shard, attempt) > (${after.test_id}, ${after.shard}, ${after.attempt})`);
    const rows = await q.execute();
    if (!rows.length) break;
    after = rows[rows.length - 1]!;
    for (const r of rows) {
      const { perSecond: sent, seconds: a } = r.series as LegacySeries;
      const perSecond = sent ?? [];
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

/** Puts each attempt's series back into its snapshot (the shape before), then drops the table. */
export async function down(db: Kysely<any>): Promise<void> {
  const reports = await db.selectFrom('load_test_seconds').select(['test_id', 'shard', 'attempt', 'seconds']).execute();
  const series = new Map<
    string,
    { key: (typeof reports)[number]; s: Required<LegacySeries['seconds']> & { perSecond: number[] } }
  >();
  for (const r of reports) {
    const id = JSON.stringify([r.test_id, r.shard, r.attempt]);
    const m = series.get(id) ?? {
      key: r,
      s: { perSecond: [], answered: [], failed: [], latencySumUs: [], latencyMaxUs: [] },
    };
    series.set(id, m);
    for (const f of JSON.parse(r.seconds) as Array<Record<string, number>>) {
      const add = (list: Array<number | null>, v: number) => {
        for (let i = list.length; i <= f.second!; i++) list.push(0);
        list[f.second!] = (list[f.second!] ?? 0) + v;
      };
      add(m.s.perSecond, f.sent!);
      add(m.s.answered, f.answered!);
      add(m.s.failed, f.failed!);
      add(m.s.latencySumUs, f.latencySumUs!);
      add(m.s.latencyMaxUs, 0);
      m.s.latencyMaxUs[f.second!] = Math.max(m.s.latencyMaxUs[f.second!] ?? 0, f.latencyMaxUs!);
    }
  }
  for (const { key, s } of series.values()) {
    const { perSecond, ...seconds } = s;
    await db
      .updateTable('load_test_shards')
      .set({
        snapshot: sql`(snapshot - 'sending') || jsonb_build_object('perSecond', ${JSON.stringify(perSecond)}::jsonb, 'seconds', ${JSON.stringify(seconds)}::jsonb)`,
      })
      .where('test_id', '=', key.test_id)
      .where('shard', '=', key.shard)
      .where('attempt', '=', key.attempt)
      .execute();
  }
  await sql`update load_test_shards set snapshot = (snapshot - 'sending') || '{"perSecond": []}'::jsonb where not snapshot ? 'perSecond'`.execute(
    db,
  );
  await db.schema.dropTable('load_test_seconds').execute();
}
