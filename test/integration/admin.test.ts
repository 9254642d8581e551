import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FormBrowser, type Page } from '../../scripts/oauth-forms.ts';
import { admin, call, targets } from '../support/client.ts';
import { ROOT } from '../support/processes.ts';

const exec = promisify(execFile);

describe.each(targets())('admin command ($name)', (target) => {
  it('`npm run --silent admin -- create-key` prints exactly one JSON line with a working key', async () => {
    const email = `npm-${Date.now()}@example.test`;
    const { stdout } = await exec(
      'npm',
      ['run', '--silent', 'admin', '--', 'create-key', '--email', email, '--plan', 'free'],
      { cwd: ROOT, env: target.env },
    );
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const printed = JSON.parse(lines[0]!);
    expect(Object.keys(printed).sort()).toEqual(['api_key', 'user_id']);
    expect(typeof printed.user_id).toBe('number');
    expect((await call(target, 'GET', '/api/v1/network/my-webhooks', { key: printed.api_key })).status).toBe(200);
  });

  it('`create-user` gives a user a password and keeps the plan and keys of an existing one', async () => {
    const email = `user-${Date.now()}@example.test`;
    const keyed = await admin(target, ['create-key', '--email', email, '--plan', 'pro']);
    const { api_key } = JSON.parse(keyed.stdout);
    const created = await admin(target, [
      'create-user',
      '--email',
      email.toUpperCase(),
      '--password',
      'correct horse battery',
    ]);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ email, plan: 'pro' });
    expect((await call(target, 'GET', '/api/v1/network/my-webhooks', { key: api_key })).status).toBe(200);
    const fresh = JSON.parse(
      (await admin(target, ['create-user', '--email', `new-${email}`, '--password', 'correct horse battery'])).stdout,
    );
    expect(fresh.plan).toBe('free');
    // An email is kept as typed, and found again whatever its case.
    const typed = `Mixed.Case-${Date.now()}@Example.Test`;
    const mixed = JSON.parse(
      (await admin(target, ['create-user', '--email', typed, '--password', 'correct horse battery'])).stdout,
    );
    expect(mixed.email).toBe(typed);
    expect(
      JSON.parse(
        (await admin(target, ['create-user', '--email', typed.toLowerCase(), '--password', 'correct horse battery']))
          .stdout,
      ),
    ).toEqual(mixed);
  });

  it('refuses bad arguments with one line on stderr and exit code 2', async () => {
    for (const args of [
      ['create-key', '--email', 'not-an-email', '--plan', 'free'],
      ['create-key', '--email', 'a@example.test', '--plan', 'gold'],
      ['create-key', '--email', 'a@example.test'],
      ['revoke-key'],
      ['revoke-key', '--key', 'ntk_unknown'],
      ['rotate-key'],
      ['create-user', '--email', 'a@example.test'],
      ['create-user', '--email', 'a@example.test', '--password', 'short'],
      ['create-user', '--email', 'nope', '--password', 'long enough password'],
      ['create-user', '--email', 'a@example.test', '--password', 'long enough password', '--plan', 'gold'],
    ]) {
      const result = await admin(target, args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('first run', () => {
  const embedded = targets().find((t) => t.name === 'embedded')!;
  it('prints an admin key that works on the enterprise plan', async () => {
    expect(embedded.firstRunKey).toMatch(/^ntk_/);
    const reply = await call(embedded, 'GET', '/api/v1/network/my-webhooks', { key: embedded.firstRunKey! });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('ratelimit-policy')).toBe('3000;w=60, 10000;w=86400');
  });

  it('prints a password the same admin signs in to the dashboard with', async () => {
    expect(embedded.firstRunPassword).toMatch(/^\S{12,}$/);
    const browser = new FormBrowser();
    const page = (await browser.get(`${embedded.baseUrl}/dashboard/keys`)) as Page;
    const keys = (await browser.submit(page, /\/dashboard\/sign-in/, {
      email: 'admin@localhost',
      password: embedded.firstRunPassword!,
    })) as Page;
    expect(keys.url).toBe(`${embedded.baseUrl}/dashboard/keys`);
    expect(keys.html).toContain('Plan <strong>enterprise</strong>');
    expect(keys.html).toContain('first-run admin key');
  });
});

describe.each(targets())('admin accounts ($name)', (target) => {
  it("takes addresses at a host without a dot, such as the first run's admin@localhost", async () => {
    const email = `ops-${randomUUID()}@localhost`;
    const created = await admin(target, ['create-user', '--email', email, '--password', 'correct horse battery']);
    expect(created.code, created.stderr).toBe(0);
    expect((await admin(target, ['create-key', '--email', email, '--plan', 'free'])).code).toBe(0);
  });

  it('never changes the plan of an existing user when adding a key, unless --set-plan says so', async () => {
    const email = `keep-${randomUUID()}@example.test`;
    await admin(target, ['create-key', '--email', email, '--plan', 'pro']);
    const another = await admin(target, ['create-key', '--email', email.toUpperCase(), '--plan', 'free']);
    expect(another.code).toBe(0);
    expect(another.stderr.trim()).toBe(`admin: ${email} stays on the pro plan (add --set-plan to move it to free)`);
    expect(
      (
        await call(target, 'GET', '/api/v1/network/my-webhooks', { key: JSON.parse(another.stdout).api_key })
      ).headers.get('ratelimit-policy'),
    ).toBe('100;w=60, 10000;w=86400');
    const moved = await admin(target, ['create-key', '--email', email, '--plan', 'free', '--set-plan']);
    expect(moved.stderr).toBe('');
    expect(
      (await call(target, 'GET', '/api/v1/network/my-webhooks', { key: JSON.parse(moved.stdout).api_key })).headers.get(
        'ratelimit-policy',
      ),
    ).toBe('10;w=60, 100;w=86400');
  });
});
