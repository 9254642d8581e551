// The databases the contract suites hold to one behaviour, and a capture as they store it.
import { afterAll, beforeAll } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../db/connect.ts';
import type { CaptureRecord } from '../../db/webhooks/webhooks.ts';
import { tempDir } from './processes.ts';

/**
 * For `describe.each`: PGlite always (in a new folder named from `prefix`), Postgres when DATABASE_URL
 * is set, each as its name and an opener.
 */
export function contractDatabases(prefix = 'pglite'): Array<[string, () => Promise<DatabaseHandle>]> {
  const databases: Array<[string, () => Promise<DatabaseHandle>]> = [
    ['pglite', async () => openDatabase({ databaseUrl: undefined, dataDir: await tempDir(prefix) })],
  ];
  if (process.env.DATABASE_URL)
    databases.push(['postgres', () => openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '' })]);
  return databases;
}

/**
 * For a describe block (of `describe.each(contractDatabases())`): the database `open` opens, opened before the
 * block's tests and closed after them. What it returns reads the opened one, so a test uses `handle.db` as it is.
 */
export function useDatabase(open: () => Promise<DatabaseHandle>): Pick<DatabaseHandle, 'db'> {
  let handle: DatabaseHandle | undefined;
  beforeAll(async () => {
    handle = await open();
  });
  afterAll(() => handle?.close());
  return {
    get db() {
      if (!handle) throw new Error('The database is used before its beforeAll opened it');
      return handle.db;
    },
  };
}

/**
 * A POST of `body` (utf-8) to webhook `webhookId` from 127.0.0.1, received now, sent as
 * `application/json`; `over` sets the rest (method, headers, time).
 */
export const captureRecord = (webhookId: string, body: string, over: Partial<CaptureRecord> = {}): CaptureRecord => ({
  webhookId,
  method: 'POST',
  path: `/webhook/${webhookId}`,
  headers: { 'content-type': 'application/json' },
  body,
  bodyEncoding: 'utf8',
  bodySize: body.length,
  queryParams: null,
  ipAddress: '127.0.0.1',
  userAgent: 'test',
  createdAt: new Date(),
  ...over,
});
