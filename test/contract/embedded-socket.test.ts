// The embedded database as processes reach it (db/pglite-socket.ts, on the thread of db/pglite.ts):
// PGlite is one session, shared by every client of its socket (the process that opened it among
// them), who must take turns without losing or mixing anyone's statements. Each case of the first
// two groups failed with the server used before (pglite-socket's).
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../db/connect.ts';
import { openPglite, startPgliteThread } from '../../db/pglite.ts';
import { message, servePglite } from '../../db/pglite-socket.ts';
import { tempDir } from '../support/processes.ts';

const socketOf = (dataDir: string) => ({
  host: path.join(dataDir, 'run'),
  port: 5432,
  user: 'postgres',
  database: 'postgres',
});
const values = async (handle: DatabaseHandle) =>
  (await sql<{ v: string }>`select v from t order by v`.execute(handle.db)).rows.map((r) => r.v);

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

  it(
    "keeps a client's write when a transaction of this " + 'process rolls back meanwhile (the write waits for it)',
    async () => {
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
    },
  );

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
      if (i % 3 === 0)
        return (await sql<{ v: number }>`select ${i}::int + 1 as v`.execute(handle.db)).rows[0]!.v === i + 1;
      return (await pool.query('select $1::int * 2 as v, $2::text as s', [i, `s${i}`])).rows[0].v === i * 2;
    });
    expect(await Promise.all(queries)).toEqual(Array(200).fill(true));
    expect((await values(handle)).length).toBe(20);
  });

  it('rolls back the transaction of a client that goes away, and the others go on', async () => {
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

  it('passes large answers and large statements whole', async () => {
    // PGlite hands over views of its own memory, which it reuses: answers larger than the socket
    // takes at once came back corrupted, or never, unless copied.
    const { rows } = await pool.query('select i, repeat(chr(97 + i % 26), 1000) as s from generate_series(1, 5000) i');
    expect(rows).toHaveLength(5000);
    expect(rows.every((r: { i: number; s: string }) => r.s === String.fromCharCode(97 + (r.i % 26)).repeat(1000))).toBe(
      true,
    );
    const big = 'x'.repeat(8 * 1024 * 1024);
    expect((await pool.query('select length($1::text) as n', [big])).rows[0].n).toBe(big.length);
  });

  it('drops a client that sends what is not a protocol message, and serves the others', async () => {
    for (const bytes of [
      Buffer.from('0000000004d2162f', 'hex'), // an SSLRequest with a length of 0
      Buffer.concat([startup(), Buffer.from('51ffffffff', 'hex')]), // a Query with a length of -1
      Buffer.concat([startup(), Buffer.from('7a00000004', 'hex')]), // a message type that does not exist
    ]) {
      const socket = net.connect(path.join(dataDir, 'run', '.s.PGSQL.5432'));
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()).on('error', () => {}));
      socket.on('data', () => {});
      socket.write(bytes);
      await closed;
    }
    expect((await pool.query('select 1 as one')).rows[0].one).toBe(1);
    expect((await sql<{ one: number }>`select 1 as one`.execute(handle.db)).rows[0]!.one).toBe(1);
  });

  it(
    'answers statement sequences sent together, with the startup, as Postgres does: a failed one skipped to ' +
      'its Sync, the next one run',
    async () => {
      const types = await converse(
        path.join(dataDir, 'run', '.s.PGSQL.5432'),
        Buffer.concat([
          startup(),
          sequence('insert into no_such_table values (1)'),
          sequence("insert into t values ('piped')"),
        ]),
        3, // after the startup and both sequences
      );
      const sequences = types.join('').split('Z').slice(1, 3);
      expect(sequences[0]).toBe('E'); // the error, then nothing of the failed sequence's Bind and Execute
      expect(sequences[1]).toBe('12C'); // ParseComplete, BindComplete, CommandComplete
      expect(await values(handle)).toContain('piped');
    },
  );

  it('gives the session back after a COPY FROM STDIN sent in one go, while its client stays connected', async () => {
    const socket = net.connect(path.join(dataDir, 'run', '.s.PGSQL.5432'));
    const types = await converse(
      socket,
      Buffer.concat([
        startup(),
        message('Q', Buffer.from('copy t from stdin\0')),
        message('d', Buffer.from('copied\n')),
        message('c', Buffer.alloc(0)),
      ]),
      2,
    );
    expect(types.join('').split('Z')[1]).toBe('GC'); // CopyInResponse, CommandComplete
    // Another client is served now, not when the silent client's session would time out (60 s).
    const next = pool.query('select 1 as one').then((r) => r.rows[0].one);
    const held = new Promise((resolve) => setTimeout(() => resolve('held'), 10_000).unref());
    expect(await Promise.race([next, held])).toBe(1);
    socket.destroy();
    expect(await values(handle)).toContain('copied');
  });

  it(
    'refuses a COPY FROM STDIN whose data is still to come (as psql sends it), as Postgres fails a ' +
      'statement, and serves everyone after',
    async () => {
      const client = new pg.Client(socketOf(dataDir));
      await client.connect();
      try {
        for (const query of [
          'copy t from stdin',
          '/* a */ /* b */ -- rows\nCOPY t (v) FROM STDIN WITH (FORMAT csv)',
          '/* a /* nested */ still a comment */ copy t from stdin',
          '-- a line comment ended by a carriage return\rcopy "t" from stdin',
        ]) {
          await expect(client.query(query)).rejects.toMatchObject({
            code: '0A000',
            message: expect.stringContaining('COPY FROM STDIN is not served by the embedded database'),
          });
        }
        // Inside a transaction: the transaction is aborted, as by any failed statement.
        await client.query('begin');
        await client.query("insert into t values ('before the refused copy')");
        await expect(client.query('copy t from stdin')).rejects.toMatchObject({ code: '0A000' });
        await expect(client.query('select 1')).rejects.toMatchObject({ code: '25P02' }); // in failed transaction
        expect((await client.query('commit')).command).toBe('ROLLBACK');
        expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
      } finally {
        await client.end();
      }
      // PGlite is alive (a COPY left waiting for its data ended its Postgres) and the session was given back.
      expect(await values(handle)).not.toContain('before the refused copy');
      expect((await pool.query('select 2 as two')).rows).toEqual([{ two: 2 }]);
      // The extended protocol's COPY (Parse, Bind, Execute) the same.
      const extended = await converse(
        path.join(dataDir, 'run', '.s.PGSQL.5432'),
        Buffer.concat([startup(), sequence('copy t from stdin')]),
        2,
      );
      expect(extended.join('').split('Z')[1]).toBe('12E'); // ParseComplete, BindComplete, the error
      // Its data sent after the refusal: ignored (outside a COPY), and the session not kept for it.
      const socket = net.connect(path.join(dataDir, 'run', '.s.PGSQL.5432'));
      const types = await converse(
        socket,
        Buffer.concat([startup(), message('Q', Buffer.from('copy t from stdin\0'))]),
        2,
      );
      expect(types.join('').split('Z')[1]).toBe('E');
      socket.write(Buffer.concat([message('d', Buffer.from('late\n')), message('c', Buffer.alloc(0))]));
      await new Promise((resolve) => setTimeout(resolve, 300)); // the stray data handled first
      const next = pool.query('select 3 as three').then((r) => r.rows[0].three);
      const held = new Promise((resolve) => setTimeout(() => resolve('held'), 10_000).unref());
      expect(await Promise.race([next, held])).toBe(3);
      socket.destroy();
      expect(await values(handle)).not.toContain('late');
    },
  );
});

/** A statement sequence of the extended protocol: Parse, Bind, Execute, Sync (unnamed, no parameters). */
function sequence(query: string): Buffer {
  return Buffer.concat([
    message('P', Buffer.concat([Buffer.from(`\0${query}\0`), Buffer.alloc(2)])), // no parameter types
    message('B', Buffer.alloc(2 + 2 + 2 + 2)), // unnamed portal and statement, no formats, no parameters
    message('E', Buffer.alloc(1 + 4)),
    message('S', Buffer.alloc(0)),
  ]);
}

/**
 * Sends `bytes` on a socket (a path: a new one, ended after) and answers the types of the messages
 * received once `readyCount` ReadyForQuery came; fails if the server closes first.
 */
async function converse(to: string | net.Socket, bytes: Buffer, readyCount: number): Promise<string[]> {
  const socket = typeof to === 'string' ? net.connect(to) : to;
  let received = Buffer.alloc(0);
  const types: string[] = [];
  await new Promise<void>((resolve, reject) => {
    socket.on('close', () => reject(new Error(`closed after ${types.join('')}`)));
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      while (received.length >= 5 && received.length >= 1 + received.readInt32BE(1)) {
        types.push(String.fromCharCode(received[0]!));
        received = received.subarray(1 + received.readInt32BE(1));
      }
      if (types.filter((t) => t === 'Z').length === readyCount) resolve();
    });
    socket.write(bytes);
  });
  if (typeof to === 'string') socket.end();
  return types;
}

/** A startup message for user postgres, database postgres. */
function startup(): Buffer {
  const body = Buffer.from('user\0postgres\0database\0postgres\0\0');
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, body]);
}

describe('a client that keeps the session and falls silent', () => {
  let dir: string;
  let pglite: Awaited<ReturnType<typeof openPglite>>;
  let server: Awaited<ReturnType<typeof servePglite>>;
  beforeAll(async () => {
    dir = await tempDir('embedded-idle');
    pglite = await openPglite(path.join(dir, 'pglite'));
    server = await servePglite(pglite, path.join(dir, '.s.PGSQL.5432'), { idleHoldingMs: 300 });
    await pglite.query('create table t (v text)');
  });
  afterAll(async () => {
    await server.close();
    await pglite.close();
  });

  it('hands PGlite the messages a client sent together in one call, the startup in one of its own', async () => {
    const calls = vi.spyOn(pglite, 'execProtocolRawStream');
    try {
      const types = await converse(
        path.join(dir, '.s.PGSQL.5432'),
        Buffer.concat([startup(), sequence('select 1'), sequence('select 2')]),
        3,
      );
      // ParseComplete, BindComplete, DataRow, CommandComplete (then, at times, ParameterStatus reports)
      for (const answer of types.join('').split('Z').slice(1, 3)) expect(answer).toMatch(/^12DCS*$/);
      expect(calls).toHaveBeenCalledTimes(2);
    } finally {
      calls.mockRestore();
    }
  });

  it('is disconnected after the limit in an open transaction, which is rolled back', async () => {
    {
      const idle = new pg.Client({ host: dir, port: 5432, user: 'postgres', database: 'postgres' });
      const ended = new Promise<void>((resolve) => idle.on('error', () => resolve()).on('end', () => resolve()));
      await idle.connect();
      await idle.query('begin');
      await idle.query(`insert into t values ('idle')`);
      await pglite.query(`insert into t values ('in-process')`); // waits for the limit
      await ended;
      expect((await pglite.query<{ v: string }>('select v from t')).rows.map((r) => r.v)).toEqual(['in-process']);
    }
  });

  it('is disconnected after the limit in the middle of a statement sequence (a Parse without its Sync)', async () => {
    const socket = net.connect(path.join(dir, '.s.PGSQL.5432'));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()).on('error', () => {}));
    socket.on('data', () => {});
    const query = Buffer.from('\0select 1\0\0\0');
    const parse = Buffer.alloc(5);
    parse.write('P', 0);
    parse.writeInt32BE(4 + query.length, 1);
    socket.write(Buffer.concat([startup(), parse, query]));
    await new Promise((r) => setTimeout(r, 100)); // it has the session by now
    expect((await pglite.query<{ one: number }>('select 1 as one')).rows[0]!.one).toBe(1); // after the limit
    await closed;
  });
});

describe("the embedded database's thread", () => {
  it(
    'serves what the process that opened it stored to other clients, removes its socket at close, and a ' +
      'second open finds it',
    async () => {
      const dataDir = await tempDir('embedded-thread');
      const first = await openDatabase({ databaseUrl: undefined, dataDir, migrate: false });
      expect(first.kind).toBe('pglite');
      await sql`create table kept (v text)`.execute(first.db);
      await sql`insert into kept values ('stored')`.execute(first.db);
      const other = new pg.Client(socketOf(dataDir));
      await other.connect();
      expect((await other.query('select v from kept')).rows).toEqual([{ v: 'stored' }]);
      await other.end();
      await first.close();
      // nobody serves it any more
      expect(await fs.stat(path.join(dataDir, 'run', '.s.PGSQL.5432')).catch(() => null)).toBeNull();

      const second = await openDatabase({ databaseUrl: undefined, dataDir, migrate: false });
      try {
        expect(second.kind).toBe('pglite');
        expect((await sql<{ v: string }>`select v from kept`.execute(second.db)).rows).toEqual([{ v: 'stored' }]);
      } finally {
        await second.close();
      }
    },
  );

  it("runs statements off this process's event loop, which keeps turning while one runs", async () => {
    const handle = await openDatabase({
      databaseUrl: undefined,
      dataDir: await tempDir('embedded-thread-loop'),
      migrate: false,
    });
    try {
      let turns = 0;
      const ticker = setInterval(() => (turns += 1), 10);
      const started = Date.now();
      await sql`select pg_sleep(0.5)`.execute(handle.db);
      clearInterval(ticker);
      expect(Date.now() - started).toBeGreaterThanOrEqual(500);
      // Run on this thread (PGlite opened here, as before), the sleep held the loop: no turn at all.
      expect(turns).toBeGreaterThan(10);
    } finally {
      await handle.close();
    }
  });

  it("rolls back a client's open transaction when it closes, and stores everything committed", async () => {
    const dataDir = await tempDir('embedded-thread-close');
    const first = await openDatabase({ databaseUrl: undefined, dataDir, migrate: false });
    await sql`create table t (v text)`.execute(first.db);
    await sql`insert into t values ('committed')`.execute(first.db);
    const open = new pg.Client(socketOf(dataDir));
    open.on('error', () => {});
    await open.connect();
    await open.query('begin');
    await open.query(`insert into t values ('open')`);
    await first.close();
    await expect(open.query('commit')).rejects.toThrow();
    const second = await openDatabase({ databaseUrl: undefined, dataDir, migrate: false });
    try {
      expect(await values(second)).toEqual(['committed']);
    } finally {
      await second.close();
    }
  });

  it('vacuums itself: the space of deleted rows is used again, where without a vacuum the files grow', async () => {
    /** The size of table `t` after 20,000 rows of 200 bytes, half of them deleted, then 10,000 more. */
    const sizeAfterChurn = async (vacuumEveryMs: number) => {
      const dir = await tempDir('embedded-vacuum');
      const socket = path.join(dir, '.s.PGSQL.5432');
      const thread = await startPgliteThread(path.join(dir, 'pglite'), socket, () => {}, { vacuumEveryMs });
      const client = new pg.Client({ host: dir, port: 5432, user: 'postgres', database: 'postgres' });
      try {
        await client.connect();
        const size = async () => Number((await client.query(`select pg_relation_size('t') as n`)).rows[0].n);
        await client.query(`create table t (id serial primary key, v text)`);
        await client.query(`insert into t (v) select repeat('x', 200) from generate_series(1, 20000)`);
        await client.query(`delete from t where id % 2 = 0`);
        const deleted = Date.now();
        const before = await size();
        // Until a vacuum ran after the delete (a second at most at 200 ms on a quiet machine), or 5 s without one.
        const vacuumedSince = async () =>
          Number(
            (await client.query(`select last_vacuum from pg_stat_user_tables where relname = 't'`)).rows[0]
              ?.last_vacuum ?? 0,
          ) > deleted;
        for (let waited = 0; vacuumEveryMs < 5000 && waited < 5000 && !(await vacuumedSince()); waited += 100)
          await new Promise((r) => setTimeout(r, 100));
        await client.query(`insert into t (v) select repeat('x', 200) from generate_series(1, 10000)`);
        return { before, after: await size() };
      } finally {
        await client.end();
        await thread.close();
      }
    };
    const vacuumed = await sizeAfterChurn(200);
    expect(vacuumed.after).toBe(vacuumed.before);
    const never = await sizeAfterChurn(3_600_000);
    expect(never.after).toBeGreaterThan(never.before * 1.3);
  });

  it('vacuums the database as it opens it: rows that died before are counted nowhere after', async () => {
    const dir = await tempDir('embedded-vacuum-open');
    const socket = path.join(dir, '.s.PGSQL.5432');
    const open = () => startPgliteThread(path.join(dir, 'pglite'), socket, () => {}, { vacuumEveryMs: 3_600_000 });
    const session = async <T>(use: (client: pg.Client) => Promise<T>): Promise<T> => {
      const thread = await open();
      const client = new pg.Client({ host: dir, port: 5432, user: 'postgres', database: 'postgres' });
      try {
        await client.connect();
        return await use(client);
      } finally {
        await client.end();
        await thread.close();
      }
    };
    const lastVacuum = async (client: pg.Client) =>
      (await client.query(`select last_vacuum from pg_stat_user_tables where relname = 't'`)).rows[0]?.last_vacuum;
    const before = await session(async (client) => {
      await client.query(`create table t (id serial primary key, v text)`);
      await client.query(`insert into t (v) select repeat('x', 200) from generate_series(1, 2000)`);
      await client.query(`delete from t where id % 2 = 0`);
      return lastVacuum(client);
    });
    expect(before).toBeNull();
    expect(await session(lastVacuum)).toBeInstanceOf(Date);
  });

  it('fails to start, naming the folder, when the database cannot be opened there', async () => {
    const dir = await tempDir('embedded-thread-bad');
    const notAFolder = path.join(dir, 'pglite');
    await fs.writeFile(notAFolder, 'not a database');
    await expect(startPgliteThread(notAFolder, path.join(dir, '.s.PGSQL.5432'), () => {})).rejects.toThrow(notAFolder);
  });
});
