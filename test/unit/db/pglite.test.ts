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

  it('vacuums the tables past autovacuum threshold (over 50 dead rows and a fifth of the live), no other', async () => {
    await db.exec(`
      create table churned (id int primary key, v text);
      create table kept (id int primary key, v text);
      create table trimmed (id int primary key, v text);
      insert into churned select g, repeat('x', 100) from generate_series(1, 2000) g;
      insert into kept select g, repeat('x', 100) from generate_series(1, 2000) g;
      insert into trimmed select g, repeat('x', 100) from generate_series(1, 2000) g;
      delete from churned where id % 2 = 0;
      delete from trimmed where id <= 300;
    `);
    // A session hands its figures to the statistics at a transaction's end, once a second at most.
    await new Promise((r) => setTimeout(r, 1100));
    await db.query('select 1');
    const dead = async (table: string) =>
      (await db.query<{ n: number }>(`select n_dead_tup as n from pg_stat_user_tables where relname = $1`, [table]))
        .rows[0]?.n;
    // 1,000 dead of 1,000 live: due; 300 dead of 1,700 live: under 50 + 340, not yet; none dead: not due.
    expect([await dead('churned'), await dead('trimmed'), await dead('kept')]).toEqual([1000, 300, 0]);

    expect(await vacuumDue(db)).toEqual(['public.churned']);
    expect(await dead('churned')).toBe(0);
    expect(await dead('trimmed')).toBe(300);
    const vacuumed = await db.query<{ relname: string }>(
      `select relname from pg_stat_user_tables where last_vacuum is not null order by relname`,
    );
    expect(vacuumed.rows.map((r) => r.relname)).toEqual(['churned']);
    expect(await vacuumDue(db)).toEqual([]);
  });
});
