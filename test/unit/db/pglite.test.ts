// The embedded database's own vacuum: what autovacuum would vacuum, and nothing else.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vacuumDue } from '../../../db/pglite.ts';

describe('vacuumDue', () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await PGlite.create();
  });
  afterAll(async () => {
    await db.close();
  });

  /** A session hands its figures to the statistics at a transaction's end, once a second at most. */
  const counted = async () => {
    await new Promise((r) => setTimeout(r, 1100));
    await db.query('select 1');
  };
  const figures = async (table: string) =>
    (
      await db.query<{ dead: number; inserted: number }>(
        `select n_dead_tup as dead, n_ins_since_vacuum as inserted from pg_stat_user_tables where relname = $1`,
        [table],
      )
    ).rows[0];

  it('vacuums the tables past one of autovacuum thresholds, and no other', async () => {
    await db.exec(`
      create table churned (id int primary key, v text);
      create table trimmed (id int primary key, v text);
      create table kept (id int primary key, v text);
      create table appended (id int primary key, v text);
      insert into churned select g, repeat('x', 100) from generate_series(1, 2000) g;
      insert into trimmed select g, repeat('x', 100) from generate_series(1, 1000) g;
      insert into kept select g, repeat('x', 100) from generate_series(1, 500) g;
      insert into appended select g, repeat('x', 100) from generate_series(1, 3000) g;
      delete from churned where id % 2 = 0;
      delete from trimmed where id <= 150;
    `);
    await counted();
    // churned: 1,000 dead of 1,000 live (over 50 + 200); trimmed: 150 dead of 850 (under 50 + 170) and
    // 1,000 inserted (under 1,000 + 170); kept: 500 inserted; appended: 3,000 inserted (over 1,000 + 600).
    expect(await figures('churned')).toEqual({ dead: 1000, inserted: 2000 });
    expect(await figures('trimmed')).toEqual({ dead: 150, inserted: 1000 });

    expect((await vacuumDue(db)).sort()).toEqual(['public.appended', 'public.churned']);
    expect(await figures('churned')).toEqual({ dead: 0, inserted: 0 });
    expect((await figures('trimmed'))?.dead).toBe(150);
    const vacuumed = await db.query<{ relname: string }>(
      `select relname from pg_stat_user_tables where last_vacuum is not null order by relname`,
    );
    expect(vacuumed.rows.map((r) => r.relname)).toEqual(['appended', 'churned']);
    expect(await vacuumDue(db)).toEqual([]);
  });

  it('judges a table by its TOAST too: values rewritten in place leave their dead chunks there', async () => {
    // 20 documents of 12 KB that do not compress, two of them rewritten 20 times: 40 dead rows in the
    // table (under 50 + 4), hundreds of dead chunks in its TOAST table.
    const document = `(select string_agg(md5(random()::text), '') from generate_series(1, 375))`;
    await db.exec(`
      create table documents (id int primary key, doc text);
      insert into documents select g, ${document} from generate_series(1, 20) g;
    `);
    await db.exec('vacuum documents');
    for (let i = 0; i < 20; i++) await db.exec(`update documents set doc = ${document} where id <= 2`);
    await counted();
    expect((await figures('documents'))?.dead).toBe(40);
    expect(await vacuumDue(db)).toEqual(['public.documents']);
  });
});
