// Signed test events with the real `netops` binary against the real service: delivered by the service
// to a webhook (my-webhook-trigger) through the capture path, so the webhook's signature check says
// valid, its rules answer it and it is forwarded byte for byte; sent from the command's machine to a
// loopback handler with a secret read from stdin; refused, named, when the provider or the event is not
// one the webhook or the catalogue has; and through the MCP tool.
import { createHmac } from 'node:crypto';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookTriggerResult } from '../../contract/webhooks/webhook-trigger.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { call, expectErrorShape, networkApi, newAccount, targets, webhookCaptures } from '../support/client.ts';
import { connectedClient, newUser } from '../support/mcp.ts';
import { startReceiver, type Received, type Receiver } from '../support/receiver.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hex = (key: string, data: string | Buffer) => createHmac('sha256', key).update(data).digest('hex');

describe.each(targets())('signed test events ($name)', (target) => {
  const account = newAccount(target);
  const env = async () => cliEnv(target.baseUrl, (await account).key, { NO_COLOR: '1' });
  const network = networkApi(target, account);
  const post = (p: string, json: unknown) => network('POST', p, json);
  const capturesOf = (id: string) => webhookCaptures(target, account, id);

  const received: Received[] = [];
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver('127.0.0.1', received, (_got, res: http.ServerResponse) =>
      res.writeHead(202, { 'content-type': 'text/plain' }).end('handled'),
    );
  });
  afterAll(() => receiver.close());

  it(
    'trigger stripe payment_intent.succeeded --webhook: a capture whose signature check is valid, answered ' +
      'by the rules, forwarded',
    async () => {
      const secret = 'whsec_trigger_test_secret';
      const created = await post('my-webhook-create', {
        signature: { scheme: 'stripe', secret },
        rules: [
          { match: { body: { pointer: '/type', equals: 'payment_intent.succeeded' } }, response: { status: 202 } },
        ],
        forward_url: `${receiver.url}/stripe`,
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.webhook_id as string;

      const run = await runCli(
        ['webhook', 'trigger', 'stripe', 'payment_intent.succeeded', '--webhook', id],
        await env(),
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/Sent +stripe payment_intent\.succeeded \(evt_1\w{23}\) to webhook /);
      expect(run.stdout).toMatch(/Answered +202 \(rule 0\)/);
      expect(run.stdout).toMatch(/Signature +valid: a v1 signature matches/);

      // The capture, as every reader sees it: judged valid by the webhook's own check.
      const [capture] = await capturesOf(id);
      expect(capture).toMatchObject({
        method: 'POST',
        path: `/webhook/${id}`,
        signature: { status: 'valid' },
        matched_rule: 0,
        answered_status: 202,
      });
      expect(capture.headers).toMatchObject({
        'content-type': 'application/json; charset=utf-8',
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        'x-netops-test-event': 'stripe payment_intent.succeeded',
      });
      const event = JSON.parse(capture.body);
      expect(event).toMatchObject({
        object: 'event',
        type: 'payment_intent.succeeded',
        data: { object: { status: 'succeeded' } },
      });
      // Signed as Stripe documents it, checked here independently of the service's code.
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(capture.headers['stripe-signature'])!;
      expect(v1).toBe(hex(secret, `${t}.${capture.body}`));

      // Forwarded as any capture is: the same bytes and signature reach the handler.
      const until = Date.now() + 30_000;
      while (!received.some((r) => r.url === '/stripe') && Date.now() < until) await sleep(100);
      const forwarded = received.find((r) => r.url === '/stripe')!;
      expect(forwarded.body.toString()).toBe(capture.body);
      expect(forwarded.headers['stripe-signature']).toBe(capture.headers['stripe-signature']);

      // A second trigger is another event: fresh ids, so a handler that drops repeats takes it.
      const again = await post('my-webhook-trigger', {
        webhook_id: id,
        provider: 'stripe',
        event: 'payment_intent.succeeded',
      });
      expect(again.status, again.text).toBe(200);
      const answer = webhookTriggerResult.parse(again.body);
      expect(answer).toMatchObject({
        signed: true,
        signature: { status: 'valid' },
        answered: { status: 202, matched_rule: 0 },
      });
      expect(answer.event_id).not.toBe(event.id);
      expect(JSON.parse(answer.sent.body).id).toBe(answer.event_id);
    },
  );

  it('every provider: a webhook checking its scheme judges each of its events valid', async () => {
    const schemes: Array<[string, string, Record<string, string>]> = [
      ['github', 'push', {}],
      ['slack', 'app_mention', {}],
      ['standard-webhooks', 'user.created', {}],
      ['hmac-sha256', 'test.event', { header: 'X-Hook-Signature' }],
    ];
    for (const [scheme, event, extra] of schemes) {
      const secret =
        scheme === 'standard-webhooks'
          ? `whsec_${Buffer.from('thirty-two bytes of secret here!').toString('base64')}`
          : 'k';
      const id = (await post('my-webhook-create', { signature: { scheme, secret, ...extra } })).body.webhook_id;
      const answer = await post('my-webhook-trigger', { webhook_id: id, provider: scheme, event });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.signature, scheme).toMatchObject({ status: 'valid' });
      const [capture] = await capturesOf(id);
      expect(capture.signature, scheme).toMatchObject({ status: 'valid' });
    }
  });

  it('a webhook without a signature gets the event unsigned, and is told so', async () => {
    const id = (await post('my-webhook-create', {})).body.webhook_id;
    const answer = await post('my-webhook-trigger', { webhook_id: id, provider: 'github', event: 'ping' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({
      signed: false,
      signature: null,
      answered: { status: 200, matched_rule: null },
    });
    expect(answer.body.message).toMatch(/unsigned: the webhook has no signature set/);
    const [capture] = await capturesOf(id);
    expect(capture.headers['x-github-event']).toBe('ping');
    expect(capture.headers['x-hub-signature-256']).toBeUndefined();
    const run = await runCli(['webhook', 'trigger', 'github', 'ping', '--webhook', id], await env());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Signature +not signed/);
    expect(run.stderr).toContain(`netops webhook update ${id} --signature github`);
  });

  it(
    'refusals name what was wrong: the provider a webhook does not check, an unknown event (with the ' +
      'nearest), a foreign webhook',
    async () => {
      const id = (await post('my-webhook-create', { signature: { scheme: 'github', secret: 'k' } })).body.webhook_id;
      const other = await post('my-webhook-trigger', { webhook_id: id, provider: 'stripe', event: 'invoice.paid' });
      expectErrorShape(other, 400);
      expect(other.body.message).toMatch(
        /^provider: webhook \S+ checks github signatures, so a stripe event would be judged invalid/,
      );
      const typo = await post('my-webhook-trigger', { webhook_id: id, provider: 'github', event: 'pull-request' });
      expectErrorShape(typo, 400);
      expect(typo.body.message).toMatch(
        new RegExp(
          [
            '^event: "pull-request" is not a github test event \\(did you mean pull_request\\?\\): one of push, pul',
            'l_request, issues, ping',
          ].join(''),
        ),
      );
      const sender = await post('my-webhook-trigger', { webhook_id: id, provider: 'paypal', event: 'x' });
      expect(sender.body.message).toMatch(
        /^provider: must be one of stripe, github, slack, standard-webhooks, hmac-sha256/,
      );
      const unknownKey = await post('my-webhook-trigger', {
        webhook_id: id,
        provider: 'github',
        event: 'push',
        secret: 'x',
      });
      expect(unknownKey.body.message).toMatch(/^secret: is not a field of this body/);
      const stranger = await newAccount(target);
      const foreign = await call(target, 'POST', '/api/v1/network/my-webhook-trigger', {
        key: stranger.key,
        json: { webhook_id: id, provider: 'github', event: 'push' },
      });
      expectErrorShape(foreign, 404);
      expect(await capturesOf(id)).toEqual([]);

      // The command: exit 2 naming the argument as typed; what it can tell alone, before any request.
      const mismatch = await runCli(['webhook', 'trigger', 'stripe', 'invoice.paid', '--webhook', id], await env());
      expect(mismatch.code).toBe(2);
      expect(mismatch.stderr).toMatch(/^netops: <provider>: webhook \S+ checks github signatures/);
      const offline = await cliEnv('http://127.0.0.1:9', 'ntk_unused', { NO_COLOR: '1' });
      const badEvent = await runCli(
        ['webhook', 'trigger', 'stripe', 'payment_intent.succeded', '--webhook', id],
        offline,
      );
      expect(badEvent.code).toBe(2);
      expect(badEvent.stderr).toMatch(
        new RegExp(
          [
            '^netops: <event>: "payment_intent\\.succeded" is not a stripe test event \\(did you mean payment_inten',
            't\\.succeeded\\?\\)',
          ].join(''),
        ),
      );
      const badProvider = await runCli(['webhook', 'trigger', 'strpe', 'x'], offline);
      expect([badProvider.code, badProvider.stderr]).toEqual([
        2,
        expect.stringMatching(/<provider>: "strpe" is not a sender of test events \(did you mean stripe\?\)/),
      ]);
      const nowhere = await runCli(['webhook', 'trigger', 'github', 'push'], offline);
      expect([nowhere.code, nowhere.stderr]).toEqual([2, expect.stringMatching(/give --webhook ID .* or --to URL/)]);
    },
  );

  it('--to URL: sent from this machine to a local handler, signed with the secret from stdin; --list', async () => {
    const before = received.length;
    const run = await runCli(
      ['webhook', 'trigger', 'github', 'push', '--to', `${receiver.url}/gh`],
      await env(),
      'local-secret\n',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^github push \\([0-9a-f-]{36}\\) → ${receiver.url}/gh: 202 in .*\\nhandled\\n$`),
    );
    expect(received.length).toBe(before + 1);
    const got = received.at(-1)!;
    expect(got).toMatchObject({ method: 'POST', url: '/gh' });
    expect(got.headers).toMatchObject({ 'x-github-event': 'push', 'content-type': 'application/json' });
    expect(got.headers['x-hub-signature-256']).toBe(`sha256=${hex('local-secret', got.body)}`);
    expect(JSON.parse(got.body.toString())).toMatchObject({ ref: 'refs/heads/main' });

    const plain = await runCli(
      ['webhook', 'trigger', 'hmac-sha256', 'test.event', '--to', `${receiver.url}/h`, '--header', 'X-Sig', '--json'],
      await env(),
      'k2',
    );
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout)).toMatchObject({ signed: true, response: { status: 202, body: 'handled' } });
    expect(received.at(-1)!.headers['x-sig']).toBe(hex('k2', received.at(-1)!.body));

    const unsigned = await runCli(
      ['webhook', 'trigger', 'slack', 'url_verification', '--to', `${receiver.url}/s`, '--unsigned'],
      await env(),
    );
    expect(unsigned.code, unsigned.stderr).toBe(0);
    expect(received.at(-1)!.headers['x-slack-signature']).toBeUndefined();
    expect(received.at(-1)!.headers['x-slack-request-timestamp']).toMatch(/^\d{10}$/);

    const noSecret = await runCli(
      ['webhook', 'trigger', 'github', 'push', '--to', `${receiver.url}/gh`],
      await env(),
      '',
    );
    expect([noSecret.code, noSecret.stderr]).toEqual([2, expect.stringMatching(/no secret given .*--unsigned/)]);

    const listed = await runCli(['webhook', 'trigger', '--list'], await env());
    expect(listed.code).toBe(0);
    for (const e of ['payment_intent.succeeded', 'pull_request', 'app_mention', 'user.created', 'test.event'])
      expect(listed.stdout).toContain(e);
    const stripeOnly = await runCli(['webhook', 'trigger', 'stripe', '--json'], await env());
    expect(JSON.parse(stripeOnly.stdout).events.map((e: { provider: string }) => e.provider)).toEqual(
      Array(5).fill('stripe'),
    );
  });

  it('MCP webhook_trigger: the same delivery, its check in the result', async () => {
    const { email } = await newUser(target);
    const { client } = await connectedClient(target, email);
    const created = await client.callTool({
      name: 'webhook_create',
      arguments: { signature: { scheme: 'slack', secret: 'slack-signing-secret' } },
    });
    const id = (created.structuredContent as { webhook_id: string }).webhook_id;
    const result = await client.callTool({
      name: 'webhook_trigger',
      arguments: { webhook_id: id, provider: 'slack', event: 'app_mention' },
    });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      signed: true,
      signature: { status: 'valid' },
      event: 'app_mention',
    });
    const refused = await client.callTool({
      name: 'webhook_trigger',
      arguments: { webhook_id: id, provider: 'slack', event: 'app_mentoin' },
    });
    expect(refused.isError).toBe(true);
    expect((refused.content as Array<{ text: string }>)[0]!.text).toMatch(
      /event: "app_mentoin" is not a slack test event \(did you mean app_mention\?\)/,
    );
  });
});
