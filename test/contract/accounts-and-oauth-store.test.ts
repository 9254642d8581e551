// Passwords and the OAuth store against each database (PGlite always; Postgres when DATABASE_URL is set).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../db/connect.ts';
import { OauthStore, oauthRecordsOfAccount, sweepExpiredOauthRecords } from '../../db/oauth-store.ts';
import { checkUserPassword, setUserPassword } from '../../db/users.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { tempDir } from '../support/processes.ts';

describe('passwords', () => {
  it('hash with a fresh salt and verify only the right password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
  });

  it('a damaged stored hash is a mismatch, not a crash', async () => {
    const [scheme, , r, p, salt, hash] = (await hashPassword('correct horse battery')).split('$');
    for (const n of ['1000', '0', 'abc', String(2 ** 40)]) expect(await verifyPassword('correct horse battery', [scheme, n, r, p, salt, hash].join('$'))).toBe(false);
  });
});

const databases: Array<[string, () => Promise<DatabaseHandle>]> = [['pglite', async () => openDatabase({ databaseUrl: undefined, dataDir: await tempDir('oauth-store') })]];
if (process.env.DATABASE_URL) databases.push(['postgres', () => openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '' })]);

describe.each(databases)('accounts and the OAuth store (%s)', (_name, open) => {
  let handle: DatabaseHandle;
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  beforeAll(async () => {
    handle = await open();
  });
  afterAll(() => handle?.close());

  it('signs in with the right password only, whatever the email case', async () => {
    const email = `signin-${stamp}@example.test`;
    const user = await setUserPassword(handle.db, email, await hashPassword('correct horse battery'));
    expect(await checkUserPassword(handle.db, email.toUpperCase(), 'correct horse battery')).toEqual(user);
    expect(await checkUserPassword(handle.db, email, 'wrong password here')).toBeNull();
    expect(await checkUserPassword(handle.db, `nobody-${stamp}@example.test`, 'correct horse battery')).toBeNull();
  });

  it('stores, finds, consumes and destroys records by kind, uid and user code', async () => {
    const sessions = new OauthStore(handle.db, 'Session');
    const codes = new OauthStore(handle.db, 'AuthorizationCode');
    await sessions.upsert(`s-${stamp}`, { uid: `u-${stamp}`, accountId: '7', kind: 'Session' }, 60);
    expect(await sessions.findByUid(`u-${stamp}`)).toMatchObject({ accountId: '7' });
    expect(await codes.find(`s-${stamp}`)).toBeUndefined(); // another kind
    await codes.upsert(`c-${stamp}`, { grantId: `g-${stamp}`, userCode: `UC-${stamp}` }, 60);
    expect(await codes.findByUserCode(`UC-${stamp}`)).toMatchObject({ grantId: `g-${stamp}` });
    expect((await codes.find(`c-${stamp}`))?.consumed).toBeUndefined();
    await codes.consume(`c-${stamp}`);
    expect((await codes.find(`c-${stamp}`))?.consumed).toBeGreaterThan(Date.now() / 1000 - 60);
    await sessions.upsert(`s-${stamp}`, { uid: `u-${stamp}`, accountId: '8' }, 60);
    expect(await sessions.find(`s-${stamp}`)).toMatchObject({ accountId: '8' });
    await sessions.destroy(`s-${stamp}`);
    expect(await sessions.find(`s-${stamp}`)).toBeUndefined();
  });

  it("revokes every record of a grant at once, and lists an account's grants", async () => {
    const grantId = `grant-${stamp}`;
    const grants = new OauthStore(handle.db, 'Grant');
    const access = new OauthStore(handle.db, 'AccessToken');
    const refresh = new OauthStore(handle.db, 'RefreshToken');
    await grants.upsert(grantId, { accountId: `acct-${stamp}`, clientId: 'client-1' }, 3600);
    await access.upsert(`at-${stamp}`, { grantId, accountId: `acct-${stamp}` }, 60);
    await refresh.upsert(`rt-${stamp}`, { grantId, accountId: `acct-${stamp}` }, 3600);
    expect((await oauthRecordsOfAccount(handle.db, 'Grant', `acct-${stamp}`)).map((g) => g.payload.clientId)).toEqual(['client-1']);
    await access.revokeByGrantId(grantId);
    expect(await access.find(`at-${stamp}`)).toBeUndefined();
    expect(await refresh.find(`rt-${stamp}`)).toBeUndefined();
    expect(await grants.find(grantId)).toBeUndefined();
  });

  it('never returns an expired record, and sweeps them', async () => {
    const tokens = new OauthStore(handle.db, 'AccessToken');
    await tokens.upsert(`old-${stamp}`, { accountId: '1' }, 0.001);
    await new Promise((r) => setTimeout(r, 20));
    expect(await tokens.find(`old-${stamp}`)).toBeUndefined();
    expect(await sweepExpiredOauthRecords(handle.db)).toBeGreaterThanOrEqual(1);
    await tokens.upsert(`forever-${stamp}`, { accountId: '1' });
    expect(await tokens.find(`forever-${stamp}`)).toMatchObject({ accountId: '1' });
  });
});
