// Postgres restarting, failing over or unreachable is an outage of the database, not a bug of ours and
// never a crash: its connection errors become DependencyUnavailableError('database') (503 with
// Retry-After at every door; Temporal retries it in activities), and every client's connection error
// has a handler. node-postgres emits 'error' on a client whose connection drops while it is idle in
// the pool (the pool's listener handles that) or checked out (the pool removes its listener meanwhile:
// unhandled, that 'error' ended the process). A broken client is not queryable, so the pool discards
// it on release and makes a new one for the next caller; so is a client whose statement timed out
// (db/connect.ts: QUERY_TIMEOUT_MS), which may still receive that statement's answer.
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { DependencyUnavailableError } from '../lib/errors.ts';

/**
 * Socket errors, and Postgres's own: class 08 (connection exception), 57P01-03 (shut down, crashed,
 * starting), 53300 (too many connections).
 */
const CONNECTION_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOENT',
]);
const CONNECTION_MESSAGES = new RegExp(
  [
    'Query read timeout',
    'canceling statement due to statement timeout',
    'Connection terminated',
    'terminating connection',
    'Client has encountered a connection error',
    'timeout exceeded when trying to connect',
    'Client was closed',
    'Connection ended',
    'the database system is (starting up|shutting down|in recovery mode)',
  ].join('|'),
  'i',
);

export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  return code.startsWith('08') || CONNECTION_CODES.has(code) || CONNECTION_MESSAGES.test(String(e?.message ?? ''));
}

function unavailable(err: unknown): unknown {
  return isConnectionError(err) ? new DependencyUnavailableError('database', err) : err;
}

/** `pool` as Kysely takes it, with the database's outages mapped and every client's errors handled. */
export function availablePool(pool: pg.Pool): PostgresPool {
  // An idle client's dropped connection: the pool discards it; the next query reports the outage.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {})); // the same for a client checked out when it drops
  return {
    options: pool.options,
    async connect(): Promise<PostgresPoolClient> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw unavailable(err);
      }
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      // A statement that timed out may still be answered on this connection: it goes back to no one.
      let timedOut = false;
      // The client as it is (Kysely also reads its processID and passes release its discard flag), but
      // for its queries' failures and the release of a connection a statement timed out on.
      return new Proxy<PostgresPoolClient>(client, {
        get(target, prop, receiver) {
          if (prop === 'release')
            return (err?: Error | boolean) =>
              client.release(err || (timedOut ? new Error('a statement timed out on this connection') : undefined));
          if (prop !== 'query') {
            const value = Reflect.get(target, prop, receiver);
            return typeof value === 'function' ? value.bind(target) : value;
          }
          return (...args: unknown[]) => {
            const result = query(...args);
            if (!(result instanceof Promise)) return result;
            return result.catch((err: unknown) => {
              if (/Query read timeout/.test(String((err as Error)?.message))) timedOut = true;
              return Promise.reject(unavailable(err));
            });
          };
        },
      });
    },
    end: () => pool.end(),
  };
}
