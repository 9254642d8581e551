// The embedded database served on a Unix socket, speaking Postgres's wire protocol; PGlite itself
// answers each message. Its clients: the process that opened it (db/pglite.ts serves it from a
// thread of that process), the admin command, pools started apart on the same DATA_DIR. PGlite is
// one Postgres session, so its users must take turns: one client's statement sequence (Parse, Bind,
// Execute... up to Sync, or a simple Query) runs whole, with nobody else in between, and a client
// that leaves a transaction open keeps the session until it ends it. A client's turn is PGlite's own
// transaction lock, which queries made on the PGlite object directly take too.
// (pglite-socket's server, used before, interleaved its clients and this process message by message:
// one client's unnamed statement was replaced by another's before its Bind, and a write of one ran
// inside another's open transaction, so it was rolled back with it after being answered as done.)
import fs from 'node:fs/promises';
import net from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { sqlShape } from './sql-text.ts';

/**
 * A client that keeps the session (an open transaction, or a statement sequence without its Sync)
 * and is silent this long is disconnected (its transaction rolled back), so that it cannot stop everyone else.
 */
const IDLE_HOLDING_MS = 60_000;

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** Postgres's own bound on a startup packet. */
const MAX_STARTUP_LENGTH = 10_000;
/** Postgres's own bound on a message (1 GB). */
const MAX_MESSAGE_LENGTH = 0x3fffffff;
/** The message types a client may send once started (the protocol's frontend messages). */
const FRONTEND_TYPES = new Set('BCcdDEfFHPpQSX');
/** Messages after which a client's turn may end: Sync, a simple Query, the startup message. */
const TURN_ENDS = new Set(['S', 'Q', 'startup']);
/** A COPY's data from its client: CopyData, CopyDone, CopyFail. */
const COPY_DATA = new Set(['d', 'c', 'f']);
/**
 * A statement text (its shape: sql-text.ts, without comments and with quoted texts emptied) with a
 * COPY ... FROM STDIN among its statements, at a statement's start: PGlite takes a statement's input
 * whole, and one whose data is still to come ends it (its Postgres exits on the missing input).
 */
const COPY_FROM_STDIN = /(?:^|;)\s*copy\b[^;]*?\bfrom\s+stdin\b/i;
/** Whether a text could hold one: it names COPY and STDIN somewhere (two linear searches). */
const mentionsCopy = (text: string) => /copy/i.test(text) && /stdin/i.test(text);
/** What PGlite runs in place of such a COPY: it fails as Postgres fails a statement (its transaction aborted). */
const REFUSED_COPY =
  "DO $refused$ BEGIN RAISE EXCEPTION USING ERRCODE = '0A000', " +
  "MESSAGE = 'COPY FROM STDIN is not served by the embedded database: its data must come with the statement', " +
  "HINT = 'Send the rows with INSERT, or use Postgres (DATABASE_URL).'; END $refused$";

interface Message {
  type: string;
  bytes: Uint8Array;
}

export interface PgliteSocketServer {
  close(): Promise<void>;
}

export async function servePglite(
  pglite: PGlite,
  socketPath: string,
  options: { idleHoldingMs?: number } = {},
): Promise<PgliteSocketServer> {
  const idleHoldingMs = options.idleHoldingMs ?? IDLE_HOLDING_MS;
  /** Each client's socket, and when it is gone (its session given back). */
  const clients = new Map<net.Socket, Promise<void>>();

  /** The session for one client: resolves with the function that gives it back. */
  const takeSession = () =>
    new Promise<() => void>((taken) => {
      void pglite._runExclusiveTransaction(() => new Promise<void>((giveBack) => taken(giveBack)));
    });
  const run = (bytes: Uint8Array, onRawData: (data: Uint8Array) => void) =>
    pglite.runExclusive(() => pglite.execProtocolRawStream(bytes, { onRawData }));

  const server = net.createServer((socket) => {
    let gone!: () => void;
    clients.set(socket, new Promise<void>((resolve) => (gone = resolve)));
    let started = false;
    let closing = false;
    let session: (() => void) | null = null;
    let atTurnEnd = true;
    let work = Promise.resolve();
    let idleTimer: NodeJS.Timeout | undefined;
    // PGlite hands over a view of its own memory, which it reuses: a write the socket cannot take at
    // once is queued, so it must be a copy.
    const send = (data: Uint8Array) => {
      if (!socket.destroyed) socket.write(Buffer.from(data));
    };

    const turn = async (messages: Message[]) => {
      clearTimeout(idleTimer);
      session ??= await takeSession();
      for (const m of inRuns(messages)) {
        if (socket.destroyed) break;
        let ready = false;
        let answered = false;
        await run(m.bytes, (data) => {
          ready = endsWithReadyForQuery(data);
          answered = true;
          send(data);
        });
        // A Sync or a Query ends a turn; so does any run PGlite answered with ReadyForQuery (the end
        // of a COPY FROM STDIN that came with its data: its last message is CopyDone). A COPY's data
        // outside one (after its refusal), which PGlite ignores without a word, leaves the turn as it was.
        if (answered || !COPY_DATA.has(m.type)) atTurnEnd = TURN_ENDS.has(m.type) || ready;
      }
      if (atTurnEnd && !pglite.isInTransaction()) {
        session();
        session = null;
      } else {
        idleTimer = setTimeout(() => socket.destroy(), idleHoldingMs);
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

    // Bytes received and not yet taken as messages; joined only once the message they start is whole
    // (joining at every chunk copied a large message over and over).
    let chunks: Buffer[] = [];
    let size = 0;
    let needed = 0;
    socket.on('data', (chunk: Buffer) => {
      if (closing) return;
      chunks.push(chunk);
      size += chunk.length;
      if (size < needed) return;
      const [only] = chunks;
      let buffer = chunks.length === 1 && only ? only : Buffer.concat(chunks, size);
      const messages: Message[] = [];
      const refuse = () => {
        socket.destroy();
        closing = true;
      };
      needed = 0;
      while (!closing) {
        if (!started) {
          if (buffer.length < 8) break;
          const length = buffer.readInt32BE(0);
          if (length < 8 || length > MAX_STARTUP_LENGTH) refuse();
          else if (buffer.length < length) needed = length;
          if (closing || needed) break;
          const code = buffer.readInt32BE(4);
          const bytes = buffer.subarray(0, length);
          buffer = buffer.subarray(length);
          if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
            socket.write('N'); // no encryption on a local socket
          } else if (code === CANCEL_REQUEST) {
            refuse(); // not supported
          } else {
            started = true;
            messages.push({ type: 'startup', bytes: new Uint8Array(bytes) });
          }
          continue;
        }
        if (buffer.length < 5) break;
        const type = String.fromCharCode(buffer.readUInt8(0));
        const length = 1 + buffer.readInt32BE(1);
        // Not a message of the protocol: PGlite would lose its footing on it; the client goes.
        if (!FRONTEND_TYPES.has(type) || length < 5 || length > MAX_MESSAGE_LENGTH) refuse();
        else if (buffer.length < length) needed = length;
        if (closing || needed) break;
        const bytes = buffer.subarray(0, length); // copied into its run (inRuns)
        buffer = buffer.subarray(length);
        if (type === 'X') closing = true;
        else messages.push({ type, bytes });
      }
      chunks = buffer.length ? [buffer] : [];
      size = buffer.length;
      refuseCopyWithoutItsData(messages);
      if (messages.length > 0) {
        work = work
          .then(() => turn(messages))
          .catch(() => {
            socket.destroy();
          });
      }
      if (closing && !socket.destroyed) work = work.then(() => void socket.end());
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
export function message(type: string, body: Buffer): Uint8Array {
  const bytes = Buffer.alloc(5 + body.length);
  bytes.write(type, 0, 'latin1');
  bytes.writeInt32BE(4 + body.length, 1);
  body.copy(bytes, 5);
  return new Uint8Array(bytes);
}

/**
 * A COPY FROM STDIN whose data did not come with it (CopyData up to its CopyDone or CopyFail, in the
 * same read), in a simple Query or a Parse: PGlite is given a statement that fails in its place, so
 * the client has the error, and its transaction is aborted, as Postgres would have it. A client sends
 * its data once told the COPY started, so only one that sends them together copies this way; the
 * CopyData sent after a refused one reaches PGlite outside a COPY, which ignores it, as Postgres does.
 */
function refuseCopyWithoutItsData(messages: Message[]): void {
  for (const [i, m] of messages.entries()) {
    if (m.type !== 'Q' && m.type !== 'P') continue;
    const body = Buffer.from(m.bytes.buffer, m.bytes.byteOffset + 5, m.bytes.length - 5);
    // Parse: the statement's name, its text, then its parameters' types; Query: the text alone.
    const from = m.type === 'P' ? body.indexOf(0) + 1 : 0;
    const to = body.indexOf(0, from);
    if (from < 0 || to < 0) continue;
    const text = body.toString('utf8', from, to);
    // The scan only for a text that names both (the captures' statements, hundreds of KB, do not).
    if (!mentionsCopy(text) || !COPY_FROM_STDIN.test(sqlShape(text))) continue;
    if (messages.slice(i + 1).some((next) => next.type === 'c' || next.type === 'f')) continue;
    const refused = Buffer.from(REFUSED_COPY);
    messages[i] = {
      type: m.type,
      bytes: message(m.type, Buffer.concat([body.subarray(0, from), refused, body.subarray(to)])),
    };
  }
}

/** Whether `data` ends with a ReadyForQuery message ('Z', length 5, the transaction status). */
function endsWithReadyForQuery(data: Uint8Array): boolean {
  const at = data.length - 6;
  return (
    at >= 0 && data[at] === 0x5a && data[at + 1] === 0 && data[at + 2] === 0 && data[at + 3] === 0 && data[at + 4] === 5
  );
}

/**
 * The messages as PGlite takes them: the messages after the startup one, as many as came together, in
 * one call (PGlite reads them one after the other, as Postgres reads its socket: one call a message
 * cost a call into PGlite, its flush and a socket write each), each run a copy of its own.
 */
function inRuns(messages: Message[]): Message[] {
  const runs: Message[] = [];
  const startup = (k: number) => messages[k]?.type === 'startup';
  let i = 0;
  while (i < messages.length) {
    let j = i + 1;
    if (!startup(i)) while (j < messages.length && !startup(j)) j++;
    const run = messages.slice(i, j);
    const bytes = new Uint8Array(run.reduce((n, m) => n + m.bytes.length, 0));
    let at = 0;
    for (const m of run) {
      bytes.set(m.bytes, at);
      at += m.bytes.length;
    }
    const last = run.at(-1);
    if (last) runs.push({ type: last.type, bytes });
    i = j;
  }
  return runs;
}
