import { describe, expect, it } from 'vitest';
import { admin, call, expectErrorShape, newAccount, targets } from '../support/client.ts';

describe.each(targets())('API keys ($name)', (target) => {
  const path = '/api/v1/network/my-webhooks';

  it('answers 401 with the error shape when no key is sent', async () => {
    const reply = await call(target, 'GET', path);
    expectErrorShape(reply, 401);
    expect(reply.body.message).toMatch(/X-API-Key/);
    expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('answers 401 for an invalid key in either header form', async () => {
    expectErrorShape(await call(target, 'GET', path, { key: 'ntk_not-a-real-key' }), 401);
    expectErrorShape(await call(target, 'GET', path, { bearer: 'ntk_not-a-real-key' }), 401);
    expectErrorShape(await call(target, 'GET', path, { headers: { Authorization: 'Basic Zm9vOmJhcg==' } }), 401);
  });

  it('accepts a valid key in either header form, and refuses it in both once revoked', async () => {
    const { key } = await newAccount(target, 'pro');
    expect((await call(target, 'GET', path, { key })).status).toBe(200);
    expect((await call(target, 'GET', path, { bearer: key })).status).toBe(200);

    const revoked = await admin(target, ['revoke-key', '--key', key]);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({ revoked: true });

    expectErrorShape(await call(target, 'GET', path, { key }), 401);
    expectErrorShape(await call(target, 'GET', path, { bearer: key }), 401);
  });

  it('keeps the other keys of a user working when one is revoked', async () => {
    const first = await newAccount(target, 'pro');
    const second = await admin(target, ['create-key', '--email', first.email, '--plan', 'pro']);
    const secondKey = JSON.parse(second.stdout).api_key as string;
    expect(JSON.parse(second.stdout).user_id).toBe(first.userId);
    await admin(target, ['revoke-key', '--key', first.key]);
    expect((await call(target, 'GET', path, { key: secondKey })).status).toBe(200);
  });
});
