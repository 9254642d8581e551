// The `netops` command against the real service: signing in, the exit codes and error lines scripts
// read, --json printing exactly the API's answer, colours only where they belong.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, newAccount, targets } from '../support/client.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { freePort } from '../support/processes.ts';

const ESC = '\u001b[';

describe.each(targets())('netops command ($name)', (target) => {
  const account = newAccount(target);
  const env = async (extra: Record<string, string> = {}) => cliEnv(target.baseUrl, (await account).key, extra);
  const api = async (method: string, p: string, json?: unknown) =>
    (await call(target, method, p, { key: (await account).key, json })).body;

  it('login checks the key, saves it readable by the user only, and whoami reads the account', async () => {
    const bare = await cliEnv(undefined, undefined);
    const wrong = await runCli(['login', '--url', target.baseUrl, '--key', 'ntk_wrong'], bare);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
    expect(wrong.stderr).toMatch(/401 unauthorized: Invalid or revoked API key/);
    const file = path.join(bare.XDG_CONFIG_HOME!, 'netops', 'config.json');
    expect(fs.existsSync(file)).toBe(false);

    const { key, email } = await account;
    const login = await runCli(['login', '--url', `${target.baseUrl}/`, '--key', '-'], bare, `${key}\n`);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(email);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ url: target.baseUrl, key });

    const whoami = await runCli(['whoami', '--json'], bare);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout)).toEqual(await api('GET', '/api/v1/account'));
    expect(JSON.parse(whoami.stdout)).toMatchObject({
      success: true,
      email,
      plan: 'enterprise',
      limits: { load_test_users: 10_000 },
    });

    // Each says where it was taken from.
    expect((await runCli(['whoami'], bare)).stdout).toContain(`${target.baseUrl} (from ${file})`);
    const keyFromEnv = await runCli(['whoami'], { ...bare, NETOPS_API_KEY: key });
    expect(keyFromEnv.stdout).toContain(`${target.baseUrl} (URL from ${file}, key from NETOPS_API_KEY)`);
    const bothFromEnv = await runCli(['whoami'], { ...bare, NETOPS_API_KEY: key, NETOPS_URL: target.baseUrl });
    expect(bothFromEnv.stdout).toContain(`${target.baseUrl} (from NETOPS_URL and NETOPS_API_KEY)`);

    // The environment wins over what was saved.
    const overridden = await runCli(['whoami'], { ...bare, NETOPS_API_KEY: 'ntk_other' });
    expect(overridden.code).toBe(1);
    expect(overridden.stderr).toMatch(/GET \/api\/v1\/account failed: 401/);

    expect((await runCli(['logout'], bare)).code).toBe(0);
    expect(fs.existsSync(file)).toBe(false);
    const signedOut = await runCli(['whoami'], bare);
    expect(signedOut.code).toBe(2);
    expect(signedOut.stderr).toMatch(/netops login --url URL --key KEY/);
  });

  it('--json prints exactly the API answer of webhook list, webhook requests and whois', async () => {
    const created = await runCli(['webhook', 'create', '--json'], await env());
    expect(created.code, created.stderr).toBe(0);
    const hook = JSON.parse(created.stdout);
    await fetch(hook.webhook_url, { method: 'POST', body: 'one' });
    const list = await runCli(['webhook', 'list', '--json'], await env());
    expect(JSON.parse(list.stdout)).toEqual(await api('GET', '/api/v1/network/my-webhooks'));

    const requests = await runCli(['webhook', 'requests', hook.webhook_id, '--json', '--method', 'post'], await env());
    expect(JSON.parse(requests.stdout)).toEqual(
      await api('GET', `/api/v1/network/my-webhook-requests?webhook_id=${hook.webhook_id}&method=POST`),
    );

    const domain = `taken-cli${Date.now()}.com`;
    const whois = await runCli(['whois', domain, '--json'], await env());
    expect(whois.code, whois.stderr).toBe(0);
    const fromApi = await api('GET', `/api/v1/network/whois?domain=${domain}`);
    // The second answer is the cached one: the same record, its own timings.
    const steady = ({ execution_time_ms: _e, meta: _m, ...rest }: Record<string, unknown>) => rest;
    expect(steady(JSON.parse(whois.stdout))).toEqual(steady(fromApi));
    expect(JSON.parse(whois.stdout).parsed_data.registrar).toBeTruthy();
  });

  it('colours only on request, never with NO_COLOR; a wrong key is exit 1 with one line naming the 401', async () => {
    const coloured = await runCli(['webhook', 'list'], await env({ FORCE_COLOR: '1' }));
    expect(coloured.stdout).toContain(ESC); // so the next check can fail
    const plain = await runCli(['webhook', 'list'], await env({ FORCE_COLOR: '1', NO_COLOR: '1' }));
    expect(plain.code).toBe(0);
    expect(plain.stdout + plain.stderr).not.toContain(ESC);
    const piped = await runCli(['whoami'], await env());
    expect(piped.stdout).not.toContain(ESC);

    const wrong = await runCli(['webhook', 'list'], await cliEnv(target.baseUrl, 'ntk_not_a_key', { NO_COLOR: '1' }));
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toBe(
      'netops: GET /api/v1/network/my-webhooks failed: 401 unauthorized: Invalid or revoked API key\n',
    );
  });

  it('wrong usage is exit 2 naming the flag; a service that does not answer is exit 1 naming it', async () => {
    const badFlag = await runCli(['webhook', 'requests', 'x', '--limit', 'lots'], await env());
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toMatch(/--limit must be a whole number/);
    const unknown = await runCli(['load', 'runn'], await env());
    expect(unknown.code).toBe(2);
    const port = await freePort(); // nothing listens there
    const down = await runCli(['webhook', 'list'], await cliEnv(`http://127.0.0.1:${port}`, 'ntk_x'));
    expect(down.code).toBe(1);
    expect(down.stderr).toBe(`netops: GET http://127.0.0.1:${port}/api/v1/network/my-webhooks failed: ECONNREFUSED\n`);
  });
});

// The help needs no service: once, not per target.
describe('netops help', () => {
  it("every command's --help shows an example, and --version the version", async () => {
    const e = await cliEnv(undefined, undefined);
    const commandsOf = (help: string) =>
      [...help.slice(help.indexOf('Commands:')).matchAll(/^ {2}([a-z-]+)/gm)]
        .map((m) => m[1]!)
        .filter((c) => c !== 'help');
    const top = await runCli(['--help'], e);
    expect(top.stdout).toMatch(/Examples:\n {2}\$ netops /);
    const leaves: string[][] = [];
    for (const name of commandsOf(top.stdout)) {
      const help = await runCli([name, '--help'], e);
      const subs = commandsOf(help.stdout);
      leaves.push(...(subs.length ? subs.map((s) => [name, s]) : [[name]]));
    }
    expect(leaves.length).toBeGreaterThan(20);
    for (const leaf of leaves) {
      const help = await runCli([...leaf, '--help'], e);
      expect(help.code, leaf.join(' ')).toBe(0);
      expect(help.stdout, leaf.join(' ')).toMatch(new RegExp(`Examples?:\\n {2}\\$ netops ${leaf[0]}`));
    }
    expect((await runCli(['--version'], e)).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
