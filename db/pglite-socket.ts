// The embedded database served to other processes (the admin command; pools started apart on the
// same DATA_DIR) on a Unix socket, speaking Postgres's wire protocol; PGlite itself answers each
// message. PGlite is one Postgres session, which this process also uses (through Kysely), so its
// users must take turns: one client's statement sequence (Parse, Bind, Execute... up to Sync, or a
// simple Query) runs whole, with nobody else in between, and a client that leaves a transaction open
// keeps the session until it ends it. In-process queries and transactions take PGlite's own
// transaction lock, which a client holds for as long as it has its turn.
// (pglite-socket's server, used before, interleaved its clients and this process message by message:
// one client's unnamed statement was replaced by another's before its Bind, and a write of one ran
// inside another's open transaction, so it was rolled back with it after being answered as done.)
import fs from 'node:fs/promises';
import net from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

/** A client holding the session in a transaction and silent this long is disconnected (its transaction rolled back), so that it cannot stop everyone else. */
export const IDLE_IN_TRANSACTION_MS = 60_000;

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** Messages after which a client's turn may end: Sync, a simple Query, the startup message. */
const TURN_ENDS = new Set(['S', 'Q', 'startup']);

interface Message {
  type: string;
  bytes: Uint8Array;
}

export interface PgliteSocketServer {
  close(): Promise<void>;
}

export async function servePglite(pglite: PGlite, socketPath: string, options: { idleInTransactionMs?: number } = {}): Promise<PgliteSocketServer> {
  const idleInTransactionMs = options.idleInTransactionMs ?? IDLE_IN_TRANSACTION_MS;
  /** Each client's socket, and when it is gone (its session given back). */
  const clients = new Map<net.Socket, Promise<void>>();

  /** The session for one client: resolves with the function that gives it back. */
  const takeSession = () =>
    new Promise<() => void>((taken) => {
      void pglite._runExclusiveTransaction(() => new Promise<void>((giveBack) => taken(giveBack)));
    });
  const run = (bytes: Uint8Array, onRawData: (data: Uint8Array) => void) => pglite.runExclusive(() => pglite.execProtocolRawStream(bytes, { onRawData }));

  const server = net.createServer((socket) => {
    let gone!: () => void;
    clients.set(socket, new Promise<void>((resolve) => (gone = resolve)));
    let buffer: Buffer = Buffer.alloc(0);
    let started = false;
    let session: (() => void) | null = null;
    let atTurnEnd = true;
    let work = Promise.resolve();
    let idleTimer: NodeJS.Timeout | undefined;
    const send = (data: Uint8Array) => {
      if (!socket.destroyed) socket.write(data);
    };

    const turn = async (messages: Message[]) => {
      clearTimeout(idleTimer);
      session ??= await takeSession();
      for (const m of messages) {
        if (socket.destroyed) break;
        await run(m.bytes, send);
        atTurnEnd = TURN_ENDS.has(m.type);
      }
      if (atTurnEnd && !pglite.isInTransaction()) {
        session();
        session = null;
      } else if (pglite.isInTransaction()) {
        idleTimer = setTimeout(() => socket.destroy(), idleInTransactionMs);
      }
    };
    // A client gone while it held the session: its statement sequence is closed and its transaction rolled back.
    const leave = async () => {
      clearTimeout(idleTimer);
      if (!session) return;
      const discard = () => {};
      if (!atTurnEnd) await run(message('S', Buffer.alloc(0)), discard);
      if (pglite.isInTransaction()) await run(message('Q', Buffer.from('ROLLBACK\0')), discard);
      session();
      session = null;
    };

    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      const messages: Message[] = [];
      for (;;) {
        if (!started) {
          if (buffer.length < 8) break;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) break;
          const code = buffer.readInt32BE(4);
          const bytes = buffer.subarray(0, length);
          buffer = buffer.subarray(length);
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
            socket.write('N'); // no encryption on a local socket
          } else if (code === CANCEL_REQUEST) {
            socket.destroy(); // not supported
            return;
          } else {
            started = true;
            messages.push({ type: 'startup', bytes: new Uint8Array(bytes) });
          }
          continue;
        }
        if (buffer.length < 5) break;
        const length = 1 + buffer.readInt32BE(1);
        if (buffer.length < length) break;
        const type = String.fromCharCode(buffer[0]!);
        const bytes = new Uint8Array(buffer.subarray(0, length));
        buffer = buffer.subarray(length);
        if (type === 'X') {
          socket.end();
          break;
        }
        messages.push({ type, bytes });
      }
      if (messages.length > 0) {
        work = work.then(() => turn(messages)).catch(() => {
          socket.destroy();
        });
      }
    });
    socket.on('error', () => {}); // 'close' follows
    socket.on('close', () => {
      work = work.then(leave).catch(() => {});
      void work.then(() => {
        clients.delete(socket);
        gone();
      });
    });
  });
  server.maxConnections = 64;
  await fs.rm(socketPath, { force: true }); // left by a process that did not stop cleanly
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const leaving = [...clients].map(([socket, isGone]) => {
        socket.destroy();
        return isGone;
      });
      await Promise.all([closed, ...leaving]);
    },
  };
}

/** A typed protocol message: its type, its length (counting itself), its body. */
function message(type: string, body: Buffer): Uint8Array {
  const bytes = Buffer.alloc(5 + body.length);
  bytes.write(type, 0, 'latin1');
  bytes.writeInt32BE(4 + body.length, 1);
  body.copy(bytes, 5);
  return new Uint8Array(bytes);
}
