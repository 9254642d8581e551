// Passwords and the OAuth store against each database (PGlite always; Postgres when DATABASE_URL is set).
import { describe, expect, it } from 'vitest';
import {
  OauthStore,
  oauthRecordsOfAccount,
  sweepExpiredOauthRecords,
  UNUSED_CLIENT_TTL_SECONDS,
} from '../../db/oauth-store.ts';
import * as unusedClientsExpire from '../../db/migrations/2026-11-22-007-unused-oauth-clients-expire.ts';
import { checkUserPassword, findOrCreateUser, setUserPassword, upsertUser } from '../../db/users.ts';
import { hashPassword, verifyPassword } from '../../lib/auth/passwords.ts';
import { contractDatabases, useDatabase } from '../support/databases.ts';

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
    for (const n of ['1000', '0', 'abc', String(2 ** 40)])
      expect(await verifyPassword('correct horse battery', [scheme, n, r, p, salt, hash].join('$'))).toBe(false);
  });
});

const databases = contractDatabases('oauth-store');

describe.each(databases)('accounts and the OAuth store (%s)', (_name, open) => {
  const handle = useDatabase(open);
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2)}`;

  it('signs in with the right password only, whatever the email case', async () => {
    const email = `signin-${stamp}@example.test`;
    const user = await setUserPassword(handle.db, email, await hashPassword('correct horse battery'));
    expect(await checkUserPassword(handle.db, email.toUpperCase(), 'correct horse battery')).toEqual(user);
    expect(await checkUserPassword(handle.db, email, 'wrong password here')).toBeNull();
    expect(await checkUserPassword(handle.db, `nobody-${stamp}@example.test`, 'correct horse battery')).toBeNull();
  });

  it('stores an email as given and compares it without case: one user, whatever the case later used', async () => {
    const given = `Dev.${stamp}@Example.COM`;
    const created = await findOrCreateUser(handle.db, given, 'pro');
    expect(created.email).toBe(given);
    expect(await findOrCreateUser(handle.db, given.toLowerCase(), 'free')).toEqual(created);
    expect(await upsertUser(handle.db, given.toUpperCase(), 'enterprise')).toEqual({ ...created, plan: 'enterprise' });
    const withPassword = await setUserPassword(
      handle.db,
      given.toLowerCase(),
      await hashPassword('correct horse battery'),
    );
    expect(withPassword).toEqual({ ...created, plan: 'enterprise' });
    expect(await checkUserPassword(handle.db, given.toUpperCase(), 'correct horse battery')).toEqual(withPassword);
    // The index, not the code, holds the rule: a second row differing only in case is refused.
    await expect(
      handle.db.insertInto('users').values({ email: given.toLowerCase(), plan: 'free' }).execute(),
    ).rejects.toThrow(/users_email_lower/);
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
    expect((await oauthRecordsOfAccount(handle.db, 'Grant', `acct-${stamp}`)).map((g) => g.payload.clientId)).toEqual([
      'client-1',
    ]);
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

  it('sweeps a registered client that never got a grant once its day is over, and keeps one with a grant', async () => {
    const rowOf = (id: string) =>
      handle.db
        .selectFrom('oauth_records')
        .select(['id', 'expires_at'])
        .where('kind', '=', 'Client')
        .where('id', '=', id)
        .executeTakeFirst();
    // Registered a day and an hour ago (the store's clock), as oidc-provider stores clients: no lifetime given.
    const longAgo = () => Date.now() - (UNUSED_CLIENT_TTL_SECONDS + 3600) * 1000;
    const registeredLongAgo = new OauthStore(handle.db, 'Client', { now: longAgo });
    const clients = new OauthStore(handle.db, 'Client');
    await registeredLongAgo.upsert(`unused-${stamp}`, {
      client_id: `unused-${stamp}`,
      client_name: 'Nobody signed in',
    });
    await registeredLongAgo.upsert(`used-${stamp}`, { client_id: `used-${stamp}`, client_name: 'Connected' });
    await new OauthStore(handle.db, 'Grant').upsert(
      `grant-of-used-${stamp}`,
      { accountId: `acct-${stamp}`, clientId: `used-${stamp}` },
      3600,
    );
    await clients.upsert(`fresh-${stamp}`, { client_id: `fresh-${stamp}` });

    expect(await clients.find(`unused-${stamp}`)).toBeUndefined();
    expect(await sweepExpiredOauthRecords(handle.db)).toBeGreaterThanOrEqual(1);
    expect(await rowOf(`unused-${stamp}`)).toBeUndefined();
    // A grant made its client permanent, even once the grant itself is revoked.
    expect(await clients.find(`used-${stamp}`)).toMatchObject({ client_name: 'Connected' });
    expect((await rowOf(`used-${stamp}`))?.expires_at).toBeNull();
    await clients.revokeByGrantId(`grant-of-used-${stamp}`);
    await sweepExpiredOauthRecords(handle.db);
    expect(await clients.find(`used-${stamp}`)).toMatchObject({ client_name: 'Connected' });
    // Registered just now: findable, expiring a day from now; storing it again keeps a permanent client permanent.
    const fresh = new Date((await rowOf(`fresh-${stamp}`))!.expires_at!).getTime();
    expect(Math.abs(fresh - (Date.now() + UNUSED_CLIENT_TTL_SECONDS * 1000))).toBeLessThan(60_000);
    expect(await clients.find(`fresh-${stamp}`)).toMatchObject({ client_id: `fresh-${stamp}` });
    await clients.upsert(`used-${stamp}`, { client_id: `used-${stamp}`, client_name: 'Connected, renamed' });
    expect((await rowOf(`used-${stamp}`))?.expires_at).toBeNull();
  });

  it('the migration gives clients stored forever before, and holding no grant, a day to live', async () => {
    const rowOf = (id: string) =>
      handle.db
        .selectFrom('oauth_records')
        .select(['expires_at'])
        .where('kind', '=', 'Client')
        .where('id', '=', id)
        .executeTakeFirst();
    const legacy = (id: string) =>
      handle.db
        .insertInto('oauth_records')
        .values({
          kind: 'Client',
          id,
          payload: JSON.stringify({ client_id: id }),
          grant_id: null,
          user_code: null,
          uid: null,
          account_id: null,
          expires_at: null,
        })
        .execute();
    await legacy(`legacy-unused-${stamp}`);
    await legacy(`legacy-used-${stamp}`);
    await handle.db
      .insertInto('oauth_records')
      .values({
        kind: 'Grant',
        id: `legacy-grant-${stamp}`,
        payload: JSON.stringify({ clientId: `legacy-used-${stamp}` }),
        grant_id: `legacy-grant-${stamp}`,
        user_code: null,
        uid: null,
        account_id: `acct-${stamp}`,
        expires_at: null,
      })
      .execute();
    await unusedClientsExpire.up(handle.db);
    const expires = (await rowOf(`legacy-unused-${stamp}`))?.expires_at;
    expect(expires).not.toBeNull();
    expect(Math.abs(new Date(expires!).getTime() - (Date.now() + UNUSED_CLIENT_TTL_SECONDS * 1000))).toBeLessThan(
      60_000,
    );
    expect((await rowOf(`legacy-used-${stamp}`))?.expires_at).toBeNull();
  });
});
