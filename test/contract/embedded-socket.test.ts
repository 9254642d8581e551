// The embedded database as other processes reach it (db/pglite-socket.ts): PGlite is one session,
// shared by this process and every client of its socket, who must take turns without losing or
// mixing anyone's statements. Each case here failed with the server used before (pglite-socket's).
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, openPglite, type DatabaseHandle } from '../../db/connect.ts';
import { servePglite } from '../../db/pglite-socket.ts';
import { tempDir } from '../support/processes.ts';

const socketOf = (dataDir: string) => ({ host: path.join(dataDir, 'run'), port: 5432, user: 'postgres', database: 'postgres' });
const values = async (handle: DatabaseHandle) => (await sql<{ v: string }>`select v from t order by v`.execute(handle.db)).rows.map((r) => r.v);

describe('the embedded database served on its socket', () => {
  let dataDir: string;
  let handle: DatabaseHandle;
  let pool: pg.Pool;
  beforeAll(async () => {
    dataDir = await tempDir('embedded-socket');
    handle = await openDatabase({ databaseUrl: undefined, dataDir, migrate: false });
    await sql`create table t (v text)`.execute(handle.db);
    pool = new pg.Pool({ ...socketOf(dataDir), max: 4 });
  });
  afterAll(async () => {
    await pool.end();
    await handle.close();
  });

  it("keeps a client's write when a transaction of this process rolls back meanwhile (the write waits for it)", async () => {
    await sql`truncate t`.execute(handle.db);
    let clientDone = false;
    const client = (async () => {
      await new Promise((r) => setTimeout(r, 50));
      await pool.query(`insert into t values ('client')`);
      clientDone = true;
    })();
    const rolledBack = await handle.db
      .transaction()
      .execute(async (trx) => {
        await sql`insert into t values ('in-process')`.execute(trx);
        await new Promise((r) => setTimeout(r, 200));
        expect(clientDone).toBe(false); // not run inside this transaction
        throw new Error('roll back');
      })
      .catch((err: Error) => err.message);
    await client;
    expect(rolledBack).toBe('roll back');
    expect(await values(handle)).toEqual(['client']);
  });

  it("keeps this process's write when a client's transaction rolls back meanwhile", async () => {
    await sql`truncate t`.execute(handle.db);
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query(`insert into t values ('client')`);
      const write = sql`insert into t values ('in-process')`.execute(handle.db);
      await new Promise((r) => setTimeout(r, 100));
      await client.query('rollback');
      await write;
    } finally {
      client.release();
    }
    expect(await values(handle)).toEqual(['in-process']);
  });

  it("never mixes two users' statements: many clients and this process at once, with transactions", async () => {
    await sql`truncate t`.execute(handle.db);
    const queries = Array.from({ length: 200 }, async (_, i) => {
      if (i % 10 === 0) {
        const client = await pool.connect();
        try {
          await client.query('begin');
          await client.query('insert into t values ($1)', [`tx${i}`]);
          const { rows } = await client.query('select count(*)::int as n from t where v = $1', [`tx${i}`]);
          await client.query('commit');
          return rows[0].n === 1;
        } finally {
          client.release();
        }
      }
      if (i % 3 === 0) return (await sql<{ v: number }>`select ${i}::int + 1 as v`.execute(handle.db)).rows[0]!.v === i + 1;
      return (await pool.query('select $1::int * 2 as v, $2::text as s', [i, `s${i}`])).rows[0].v === i * 2;
    });
    expect(await Promise.all(queries)).toEqual(Array(200).fill(true));
    expect((await values(handle)).length).toBe(20);
  });

  it("rolls back the transaction of a client that goes away, and the others go on", async () => {
    await sql`truncate t`.execute(handle.db);
    const leaver = new pg.Client(socketOf(dataDir));
    await leaver.connect();
    await leaver.query('begin');
    await leaver.query(`insert into t values ('left')`);
    const waiting = sql`insert into t values ('in-process')`.execute(handle.db);
    leaver.on('error', () => {});
    (leaver as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    await waiting;
    await pool.query(`insert into t values ('client')`);
    expect(await values(handle)).toEqual(['client', 'in-process']);
  });
});

describe('a client idle in a transaction', () => {
  it('is disconnected after the limit, its transaction rolled back, so that it cannot stop everyone', async () => {
    const dir = await tempDir('embedded-idle');
    const pglite = await openPglite(path.join(dir, 'pglite'));
    const socketPath = path.join(dir, '.s.PGSQL.5432');
    const server = await servePglite(pglite, socketPath, { idleInTransactionMs: 300 });
    try {
      await pglite.query('create table t (v text)');
      const idle = new pg.Client({ host: dir, port: 5432, user: 'postgres', database: 'postgres' });
      const ended = new Promise<void>((resolve) => idle.on('error', () => resolve()).on('end', () => resolve()));
      await idle.connect();
      await idle.query('begin');
      await idle.query(`insert into t values ('idle')`);
      await pglite.query(`insert into t values ('in-process')`); // waits for the limit
      await ended;
      expect((await pglite.query<{ v: string }>('select v from t')).rows.map((r) => r.v)).toEqual(['in-process']);
    } finally {
      await server.close();
      await pglite.close();
    }
  });
});
