// A load test that must run alone on its server (small, its target not proven) is stored only while no
// other test of its user on that server is open: an address in common counts, whatever the URL's name,
// scheme or port, and so does the same origin; the check is made with the user's row locked, so
// starts at the same moment cannot both pass it. On PGlite, and on Postgres when DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLoadTest, openTargets, SharedTargetError } from '../../db/load/load-tests.ts';
import { upsertUser } from '../../db/users.ts';
import { contractDatabases, useDatabase } from '../support/databases.ts';
import { loadTestConfig } from '../support/load-config.ts';

describe.each(contractDatabases('load-test-servers'))('tests alone on their server (%s)', (_kind, open) => {
  const database = useDatabase(open);
  const newUserId = async () => (await upsertUser(database.db, `servers-${randomUUID()}@example.test`, 'pro')).id;
  const start = (userId: number, url: string, addresses: string[] | undefined, alone: boolean) =>
    createLoadTest(database.db, { id: randomUUID(), userId, config: loadTestConfig(url), addresses, alone });

  it('refuses a second unproven test of the same address under another name, scheme or port', async () => {
    const userId = await newUserId();
    expect(await start(userId, 'https://shop.example/', ['203.0.113.7'], true)).toBe(true);
    for (const [url, addresses] of [
      ['http://203.0.113.7:8080/', ['203.0.113.7']],
      ['https://www.shop.example/', ['198.51.100.1', '203.0.113.7']],
      ['https://shop.example/other', []],
    ] as const)
      await expect(start(userId, url, [...addresses], true), url).rejects.toBeInstanceOf(SharedTargetError);
    // Another server runs beside it; a proven test (not alone) of the same one too; another user's as well.
    expect(await start(userId, 'https://other.example/', ['203.0.113.8'], true)).toBe(true);
    expect(await start(userId, 'https://shop.example/', ['203.0.113.7'], false)).toBe(true);
    expect(await start(await newUserId(), 'https://shop.example/', ['203.0.113.7'], true)).toBe(true);
    expect(await openTargets(database.db, userId)).toEqual(
      expect.arrayContaining([
        { origin: 'https://shop.example', addresses: ['203.0.113.7'] },
        { origin: 'https://other.example', addresses: ['203.0.113.8'] },
      ]),
    );
  });

  it('lets one of two starts at once through, and one again once the first has ended', async () => {
    const userId = await newUserId();
    const both = await Promise.allSettled([
      start(userId, 'http://203.0.113.9/', ['203.0.113.9'], true),
      start(userId, 'https://api.example/', ['203.0.113.9'], true),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(both.find((r) => r.status === 'rejected')?.reason).toBeInstanceOf(SharedTargetError);
    await database.db.updateTable('load_tests').set({ status: 'completed' }).where('user_id', '=', userId).execute();
    expect(await start(userId, 'https://api.example/', ['203.0.113.9'], true)).toBe(true);
  });
});
