// The webhook developer's loop with the real `netops` binary against the real service: rules, a
// signature secret and a JSON Schema set from the terminal; waiting for a delivery (exit 0, or 124 at
// the timeout); the diff of two captures; a replay sent from the machine the command runs on, byte for
// byte as the service's own replay, to an address the service refuses; and every bad flag value exit 2
// naming the flag as typed.
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { webhookReplayResult } from '../../contract/webhooks/responses-webhooks.ts';
import { networkApi, newAccount, targets, webhookCaptures } from '../support/client.ts';
import { cliEnv, runCli, startCli } from '../support/cli.ts';
import { tempDir } from '../support/processes.ts';
import { allowedAndForbiddenReceivers, type Received } from '../support/receiver.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(targets())('netops webhook ($name)', (target) => {
  const account = newAccount(target);
  const env = async () => cliEnv(target.baseUrl, (await account).key, { NO_COLOR: '1' });
  const network = networkApi(target, account);
  const api = async (method: string, p: string, json?: unknown) => (await network(method, p, json)).body;
  const newHook = async () =>
    (await api('POST', 'my-webhook-create', {})) as { webhook_id: string; webhook_url: string };
  const capturesOf = (id: string) => webhookCaptures(target, account, id);

  const received: Received[] = [];
  const handled = (_got: Received, res: http.ServerResponse) =>
    res.writeHead(202, { 'content-type': 'text/plain', 'x-fixed': 'yes' }).end('handled');
  // The service never sends to the forbidden one (NETWORK_ALLOW does not exempt 127.0.0.2), the CLI does.
  const receivers = allowedAndForbiddenReceivers(received, handled);

  it('update --rules FILE: the next capture is answered by the rule; requests and show name it', async () => {
    const hook = await newHook();
    const dir = await tempDir('cli-rules');
    const rules = path.join(dir, 'rules.json');
    fs.writeFileSync(
      rules,
      JSON.stringify([
        {
          match: { method: 'POST', body: { pointer: '/order/id', equals: 'A-1' } },
          response: { status: 409, body: 'exists' },
        },
      ]),
    );
    const updated = await runCli(['webhook', 'update', hook.webhook_id, '--rules', rules], await env());
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/1 response rule now answers first/);

    const answered = await fetch(`${hook.webhook_url}/orders`, { method: 'POST', body: '{"order":{"id":"A-1"}}' });
    expect([answered.status, await answered.text()]).toEqual([409, 'exists']);
    const [capture] = await capturesOf(hook.webhook_id);
    expect(capture.matched_rule).toBe(0);

    const listed = await runCli(['webhook', 'requests', hook.webhook_id], await env());
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${capture.id} .*/orders .*rule 0`));
    const shown = await runCli(['webhook', 'show', hook.webhook_id], await env());
    expect(shown.stdout).toMatch(/0 {2}POST, body \/order\/id = "A-1" → 409/);
  });

  it('update --signature stripe: its secret from stdin; create --schema -; captures are judged', async () => {
    const hook = await newHook();
    const secret = 'whsec_cli_test_secret';
    const signed = await runCli(
      ['webhook', 'update', hook.webhook_id, '--signature', 'stripe'],
      await env(),
      `${secret}\n`,
    );
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stdout).toMatch(/signatures are checked as stripe/);
    const body = '{"type":"invoice.paid"}';
    const t = Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    await fetch(hook.webhook_url, { method: 'POST', body, headers: { 'stripe-signature': `t=${t},v1=${v1}` } });
    await fetch(hook.webhook_url, {
      method: 'POST',
      body,
      headers: { 'stripe-signature': `t=${t},v1=${'0'.repeat(64)}` },
    });
    const [wrong, right] = await capturesOf(hook.webhook_id);
    expect([right.signature.status, wrong.signature.status]).toEqual(['valid', 'invalid']);
    const listed = await runCli(['webhook', 'requests', hook.webhook_id], await env());
    expect(listed.stdout).toMatch(new RegExp(`${right.id} .*signature valid`));

    const schema = { type: 'object', required: ['customer'], properties: { customer: { type: 'string' } } };
    const created = await runCli(['webhook', 'create', '--schema', '-', '--json'], await env(), JSON.stringify(schema));
    expect(created.code, created.stderr).toBe(0);
    const checked = JSON.parse(created.stdout);
    expect(checked.schema).toEqual(schema);
    await fetch(checked.webhook_url, { method: 'POST', body: '{"event":"x"}' });
    // Listed again while the check is not in (a read waits for it a bounded time, which a busy machine can
    // pass: `schema unknown: not checked yet`, or `... the checker is busy`), as a user would.
    let judged = await runCli(['webhook', 'requests', checked.webhook_id], await env());
    for (let i = 0; i < 20 && /schema unknown: not checked/.test(judged.stdout); i++) {
      await sleep(500);
      judged = await runCli(['webhook', 'requests', checked.webhook_id], await env());
    }
    expect(judged.stdout).toMatch(/schema invalid: \/customer is required/);
  });

  it('wait: exit 0 printing a capture sent meanwhile, 124 at the timeout (with --json: timed_out)', async () => {
    const hook = await newHook();
    const marker = `delivery-${Date.now()}`;
    const waiting = startCli(['webhook', 'wait', hook.webhook_id, '--method', 'POST', '--q', marker], await env());
    await waiting.waitFor(/Waiting up to 30 s/);
    // Sent until the wait answers: the first may reach the service before the wait's call does.
    let done = false;
    void waiting.ended.then(() => (done = true));
    await fetch(hook.webhook_url, { method: 'PUT', body: marker }); // not POST: not it
    // The sender's escape sequences (the clipboard's, the title's) are shown, never written to the terminal.
    const evil = '\u001b]52;c;cm0gLXJmIH4=\u0007\u001b]0;title\u0007';
    while (!done) {
      await fetch(`${hook.webhook_url}/stripe`, { method: 'POST', body: `{"id":"${marker}"}${evil}` });
      await sleep(300);
    }
    const got = await waiting.ended;
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(/Request +POST \/stripe/);
    expect(got.stdout).toContain(`{"id":"${marker}"}\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b]0;title\\x07`);
    expect(got.stdout).not.toContain('\u001b]');

    const began = Date.now();
    const timedOut = await runCli(
      ['webhook', 'wait', hook.webhook_id, '--q', 'never-sent', '--timeout', '1'],
      await env(),
    );
    expect(timedOut.code).toBe(124);
    expect(Date.now() - began).toBeLessThan(15_000);
    expect(timedOut.stdout).toBe('');
    expect(timedOut.stderr).toMatch(/no capture matched within 1 s/);
    const json = await runCli(['webhook', 'wait', hook.webhook_id, '--timeout', '1s', '--json'], await env());
    expect(json.code).toBe(124);
    expect(JSON.parse(json.stdout)).toEqual({
      success: true,
      webhook_id: hook.webhook_id,
      request: null,
      timed_out: true,
    });
  });

  it('diff: what changed from one capture to the next, in words, and --json as the API answers it', async () => {
    const hook = await newHook();
    const send = (attempt: number, total: number, extra: Record<string, string> = {}) =>
      fetch(`${hook.webhook_url}/events?attempt=${attempt}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...extra },
        body: JSON.stringify({ type: 'order.paid', data: { order: { id: 'o-1', total } } }),
      });
    await send(1, 10);
    await send(2, 12, { 'x-retry': '1' });
    const [b, a] = await capturesOf(hook.webhook_id);
    const diff = await runCli(['webhook', 'diff', hook.webhook_id, String(a.id), String(b.id)], await env());
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain(`Capture ${a.id} (`);
    expect(diff.stdout).toContain('~ attempt = 1 → 2');
    expect(diff.stdout).toContain('+ x-retry: 1');
    expect(diff.stdout).toContain('~ /data/order/total: 10 → 12');
    // Colours only on a terminal (here a pipe), or when asked for.
    const piped = await cliEnv(target.baseUrl, (await account).key);
    expect(diff.stdout).not.toContain('\u001b[');
    const plain = await runCli(['webhook', 'diff', hook.webhook_id, String(a.id), String(b.id)], piped);
    expect(plain.stdout).toBe(diff.stdout);
    const forced = await runCli(['webhook', 'diff', hook.webhook_id, String(a.id), String(b.id)], {
      ...piped,
      FORCE_COLOR: '1',
    });
    expect(forced.stdout).toContain('\u001b[32m  + x-retry: 1');
    const json = await runCli(['webhook', 'diff', hook.webhook_id, String(a.id), String(b.id), '--json'], await env());
    expect(JSON.parse(json.stdout)).toEqual(
      await api('GET', `my-webhook-diff?webhook_id=${hook.webhook_id}&a=${a.id}&b=${b.id}`),
    );
  });

  // The service may not reach 127.0.0.2: the CLI does, sending what the service's replay sends.
  it('replay --to sends from here, byte for byte; --via-service is refused there, saying what to do', async () => {
    const hook = await newHook();
    const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80, ...Buffer.from('tail')]);
    await fetch(`${hook.webhook_url}/events/stripe?attempt=1&tag=a&tag=b`, {
      method: 'PATCH',
      body: bytes,
      headers: { 'content-type': 'application/octet-stream', 'stripe-signature': 't=1,v1=abc', 'x-custom': 'kept' },
    });
    const [capture] = await capturesOf(hook.webhook_id);

    const before = received.length;
    const here = await runCli(
      ['webhook', 'replay', hook.webhook_id, String(capture.id), '--to', `${receivers.forbidden}/hooks/`, '--json'],
      await env(),
    );
    expect(here.code, here.stderr).toBe(0);
    expect(received.length).toBe(before + 1);
    const fromCli = received.at(-1)!;
    expect(fromCli.headers.host).toBe(new URL(receivers.forbidden).host);
    const answer = webhookReplayResult.parse(JSON.parse(here.stdout));
    expect(answer).toMatchObject({
      request_id: capture.id,
      target_url: `${receivers.forbidden}/hooks/events/stripe?attempt=1&tag=a&tag=b`,
      sent: { method: 'PATCH', body_size: bytes.length },
      response: { status: 202, body: 'handled', truncated: false, headers: { 'x-fixed': 'yes' } },
    });

    // The service's own replay of the same capture, to the address it may reach: the same request.
    const byService = await api('POST', 'my-webhook-replay', {
      webhook_id: hook.webhook_id,
      request_id: capture.id,
      target_url: `${receivers.allowed}/hooks/`,
    });
    expect(received.length).toBe(before + 2);
    const fromService = received.at(-1)!;
    expect(answer.sent).toEqual(byService.sent);
    const sameParts = (r: Received) => {
      const { host: _h, connection: _c, ...headers } = r.headers;
      return { method: r.method, url: r.url, headers, body: r.body.toString('base64') };
    };
    expect(sameParts(fromCli)).toEqual(sameParts(fromService));
    expect(fromCli.body.equals(bytes)).toBe(true);

    const human = await runCli(
      ['webhook', 'replay', hook.webhook_id, String(capture.id), '--to', `${receivers.forbidden}/x`, '--verbose'],
      await env(),
    );
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      /^PATCH http:\/\/127\.0\.0\.2:\d+\/x\/events\/stripe\?attempt=1&tag=a&tag=b → 202 in /,
    );
    expect(human.stdout).toContain('> x-custom: kept');
    expect(human.stdout).toContain('< x-fixed: yes');
    expect(human.stdout).toMatch(/\nhandled\n$/);

    const count = received.length;
    const viaService = await runCli(
      ['webhook', 'replay', hook.webhook_id, String(capture.id), '--to', `${receivers.forbidden}/x`, '--via-service'],
      await env(),
    );
    expect(viaService.code).toBe(2);
    expect(viaService.stderr).toMatch(/^netops: --to: target not allowed: 127\.0\.0\.2/);
    expect(viaService.stderr).toContain(`netops webhook replay ${hook.webhook_id} ${capture.id} --to URL`);
    expect(viaService.stderr).toContain('NETWORK_ALLOW');
    expect(received.length).toBe(count);
  });

  it('a bad value of any flag is exit 2 naming the flag as typed, before any request where it can tell', async () => {
    const hook = await newHook();
    const id = hook.webhook_id;
    const cases: Array<[string[], RegExp]> = [
      [['webhook', 'requests', id, '--since', 'yesterday'], /--since: must be an ISO 8601 time/],
      [['webhook', 'create', '--status', '99'], /--status: must be from 200 to 599/],
      [['webhook', 'create', '--response-delay', '40000'], /--response-delay: must be from 0 to 30000/],
      [['webhook', 'create', '--keep', '999999'], /--keep: must be from 1 to 10000/],
      [['webhook', 'update', id, '--keep', '999999'], /--keep: must be from 1 to 10000/],
      [['webhook', 'update', id, '--keep-days', '31'], /--keep-days: must be from 1 to 30/],
      [['webhook', 'export', id, '--format', 'xml'], /option '--format <format>' argument 'xml' is invalid/],
      [['webhook', 'update', id, '--signature', 'stripe:X-Sig'], /--signature \(signature\.header\): is named by/],
      [['webhook', 'wait', id, '--timeout', 'soon'], /--timeout: "soon" is not a duration/],
      [['webhook', 'requests', id, '--schema', 'maybe'], /option '--schema <verdict>' argument 'maybe' is invalid/],
      [['webhook', 'update', id], /give at least one of --rules/],
      [
        ['webhook', 'update', id, '--rules', '-', '--clear-rules'],
        /'--clear-rules' cannot be used with option '--rules/,
      ],
      [['webhook', 'create', '--rules', '-'], /--rules: standard input is not JSON/],
    ];
    const listed = (await api('GET', 'my-webhooks')).data.total;
    for (const [args, said] of cases) {
      const run = await runCli(args, await env(), 'secret\n');
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(said);
      expect(run.stderr, args.join(' ')).not.toMatch(/retention\.max_requests|failed: 400/);
    }
    expect((await api('GET', 'my-webhooks')).data.total).toBe(listed); // no create went out

    // Checked here with the API's own schema: a field deep in a file, named under its flag.
    const rules = await runCli(['webhook', 'update', id, '--rules', '-'], await env(), '[{"match":{"methd":"POST"}}]');
    expect(rules.code).toBe(2);
    expect(rules.stderr).toMatch(/--rules \(rules\.0\.match\.methd\): is not a field .*did you mean method/);

    // What only the API can judge (its plan bounds, its SSRF guard): its refusal naming the field, told as the flag.
    const free = await newAccount(target, 'free');
    const pastPlan = await runCli(['webhook', 'create', '--keep', '5000'], await cliEnv(target.baseUrl, free.key));
    expect(pastPlan.code).toBe(2);
    expect(pastPlan.stderr).toBe('netops: --keep: at most 1000 on the free plan\n');
    const forward = await runCli(['webhook', 'update', id, '--forward-url', `${receivers.forbidden}/in`], await env());
    expect(forward.code).toBe(2);
    expect(forward.stderr).toMatch(/^netops: --forward-url: target not allowed: 127\.0\.0\.2/);
    expect(forward.stderr).toContain(`netops listen ${id} --forward-to URL`);
  });
});
