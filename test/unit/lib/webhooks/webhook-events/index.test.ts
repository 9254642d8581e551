import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  TEST_EVENT_PROVIDERS,
  testEvent,
  testEvents,
  unknownEvent,
  unknownProvider,
} from '../../../../../lib/webhooks/webhook-events/index.ts';
import { checkSignature } from '../../../../../lib/webhooks/webhook-signatures.ts';

const now = new Date('2026-11-28T20:10:30.123Z');
const target = 'https://tools.example.test/webhook/wh_1';
const secretOf = (provider: string) =>
  provider === 'standard-webhooks'
    ? `whsec_${Buffer.from('thirty-two bytes of secret here!').toString('base64')}`
    : 'a secret';
const build = (provider: (typeof TEST_EVENT_PROVIDERS)[number], event: string, signed = true) =>
  testEvent(provider, event, {
    now,
    target,
    signing: signed ? { secret: secretOf(provider), header: 'x-signature' } : null,
  });

describe('test events', () => {
  it('has the common events of every sender, each described', () => {
    const byProvider = Object.fromEntries(TEST_EVENT_PROVIDERS.map((p) => [p, testEvents(p).map((e) => e.event)]));
    expect(byProvider).toEqual({
      stripe: [
        'payment_intent.succeeded',
        'payment_intent.payment_failed',
        'checkout.session.completed',
        'customer.subscription.created',
        'invoice.paid',
      ],
      github: ['push', 'pull_request', 'issues', 'ping'],
      slack: ['app_mention', 'url_verification'],
      'standard-webhooks': ['user.created', 'invoice.paid'],
      'hmac-sha256': ['test.event'],
    });
    for (const e of testEvents()) expect(e.description, `${e.provider} ${e.event}`).toMatch(/^[a-z]/);
  });

  it(
    'signs every event as its sender does: the check of that scheme says valid, and changes to the bytes are ' +
      'caught',
    () => {
      for (const { provider, event } of testEvents()) {
        const sent = build(provider, event);
        const request = { headers: sent.headers, body: Buffer.from(sent.body), capturedAt: now };
        expect(sent.signed).toBe(true);
        expect(
          checkSignature(provider, secretOf(provider), 'x-signature', request),
          `${provider} ${event}`,
        ).toMatchObject({
          status: 'valid',
        });
        const tampered = { ...request, body: Buffer.from(sent.body.replace(/.$/s, ' ')) };
        expect(checkSignature(provider, secretOf(provider), 'x-signature', tampered).status).toBe('invalid');
        expect(checkSignature(provider, 'another secret', 'x-signature', request).status).toBe('invalid');
      }
    },
  );

  it('unsigned: the sender headers, no signature', () => {
    for (const { provider, event } of testEvents()) {
      const sent = build(provider, event, false);
      expect(sent.signed).toBe(false);
      expect(
        checkSignature(provider, secretOf(provider), 'x-signature', {
          headers: sent.headers,
          body: Buffer.from(sent.body),
          capturedAt: now,
        }).status,
      ).toMatch(/missing|invalid/);
      expect(sent.headers['x-netops-test-event']).toBe(`${provider} ${event}`);
    }
  });

  it('makes each event afresh: new ids every time, the time it is sent', () => {
    for (const { provider, event } of testEvents()) {
      const [a, b] = [build(provider, event), build(provider, event)];
      expect(a.id, `${provider} ${event}`).not.toBe(b.id);
      const sent = `${JSON.stringify(a.headers)}${a.body}`;
      expect(sent).toContain(a.id);
      expect(sent, `${provider} ${event}`).toMatch(new RegExp(`${(now.getTime() / 1000) | 0}|2026-11-28T20:10:30`));
    }
  });

  it('Stripe: an Event around the object, pretty-printed, with Stripe’s headers', () => {
    const sent = build('stripe', 'payment_intent.succeeded');
    expect(sent.body).toMatch(/^\{\n {2}"id": "evt_1/);
    const body = JSON.parse(sent.body);
    expect(body).toMatchObject({
      id: sent.id,
      object: 'event',
      api_version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      created: Math.floor(now.getTime() / 1000),
      livemode: false,
      type: 'payment_intent.succeeded',
      data: { object: { object: 'payment_intent', status: 'succeeded', amount_received: 2000, currency: 'usd' } },
    });
    expect(body.data.object.id).toMatch(/^pi_1[A-Za-z0-9]{23}$/);
    expect(body.data.object.client_secret).toMatch(new RegExp(`^${body.data.object.id}_secret_`));
    expect(sent.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'user-agent': expect.stringMatching(/^Stripe\/1\.0/),
      'stripe-signature': expect.stringMatching(/^t=\d+,v1=[0-9a-f]{64}$/),
    });
    const failed = JSON.parse(build('stripe', 'payment_intent.payment_failed').body).data.object;
    expect(failed).toMatchObject({ status: 'requires_payment_method', last_payment_error: { code: 'card_declined' } });
    const session = JSON.parse(build('stripe', 'checkout.session.completed').body).data.object;
    expect(session).toMatchObject({ object: 'checkout.session', status: 'complete', payment_status: 'paid' });
    expect(session.payment_intent).toMatch(/^pi_/);
    const subscription = JSON.parse(build('stripe', 'customer.subscription.created').body).data.object;
    expect(subscription.items.data[0].price.recurring.interval).toBe('month');
    expect(subscription.items.data[0].subscription).toBe(subscription.id);
    const invoice = JSON.parse(build('stripe', 'invoice.paid').body).data.object;
    expect(invoice).toMatchObject({ object: 'invoice', status: 'paid', paid: true, amount_remaining: 0 });
    expect(invoice.lines.data[0].subscription).toBe(invoice.subscription);
  });

  it('GitHub: the event in X-GitHub-Event, the delivery GUID in X-GitHub-Delivery, compact JSON', () => {
    for (const event of ['push', 'pull_request', 'issues', 'ping']) {
      const sent = build('github', event);
      expect(sent.headers).toMatchObject({
        'x-github-event': event,
        'x-github-delivery': sent.id,
        'x-github-hook-installation-target-type': 'repository',
        'user-agent': expect.stringMatching(/^GitHub-Hookshot\/[0-9a-f]{7}$/),
        'x-hub-signature-256': expect.stringMatching(/^sha256=[0-9a-f]{64}$/),
        'x-hub-signature': expect.stringMatching(/^sha1=[0-9a-f]{40}$/),
      });
      expect(sent.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(sent.body).not.toContain('\n');
      const body = JSON.parse(sent.body);
      expect(body.sender.login).toBeTruthy();
      expect(body.repository.full_name).toMatch(/^[\w-]+\/[\w-]+$/);
    }
    const push = JSON.parse(build('github', 'push').body);
    expect(push).toMatchObject({ ref: 'refs/heads/main', created: false, deleted: false, forced: false });
    expect(push.after).toBe(push.head_commit.id);
    expect(push.commits).toEqual([push.head_commit]);
    expect(JSON.parse(build('github', 'pull_request').body)).toMatchObject({
      action: 'opened',
      pull_request: { state: 'open', merged: false, head: { ref: expect.any(String) }, base: { ref: 'main' } },
    });
    expect(JSON.parse(build('github', 'issues').body)).toMatchObject({ action: 'opened', issue: { state: 'open' } });
    const ping = JSON.parse(build('github', 'ping').body);
    expect(ping.hook).toMatchObject({ id: ping.hook_id, type: 'Repository', config: { url: target } });
  });

  it('Slack: an app_mention in its event_callback wrapper, and the url_verification challenge', () => {
    const mention = build('slack', 'app_mention');
    const body = JSON.parse(mention.body);
    expect(body).toMatchObject({ type: 'event_callback', event_id: mention.id, event: { type: 'app_mention' } });
    expect(body.event_time).toBe(Math.floor(now.getTime() / 1000));
    expect(body.event.ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(body.event.text).toContain(`<@${body.authorizations[0].user_id}>`);
    expect(mention.headers['x-slack-request-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    const check = build('slack', 'url_verification');
    expect(JSON.parse(check.body)).toEqual({
      token: expect.any(String),
      challenge: check.id,
      type: 'url_verification',
    });
  });

  it('Standard Webhooks: {type, timestamp, data}, verified by the reference library', () => {
    for (const event of ['user.created', 'invoice.paid']) {
      const sent = testEvent('standard-webhooks', event, {
        now: new Date(),
        target,
        signing: { secret: secretOf('standard-webhooks'), header: '' },
      });
      const verified = new Webhook(secretOf('standard-webhooks')).verify(sent.body, sent.headers);
      expect(verified).toMatchObject({ type: event, data: expect.any(Object) });
      expect(sent.id).toMatch(/^msg_/);
      expect(sent.headers['webhook-id']).toBe(sent.id);
    }
  });

  it('hmac-sha256: the digest in the header the webhook names', () => {
    const sent = testEvent('hmac-sha256', 'test.event', {
      now,
      target,
      signing: { secret: 'k', header: 'x-hook-sig' },
    });
    expect(sent.headers['x-hook-sig']).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(sent.body)).toMatchObject({ id: sent.id, type: 'test.event' });
  });

  it('refuses unknown names, naming the nearest and every known one', () => {
    expect(unknownProvider('stripe')).toBeNull();
    expect(unknownProvider('strpe')).toBe(
      '"strpe" is not a sender of test events (did you mean stripe?): one of stripe, github, slack, ' +
        'standard-webhooks, hmac-sha256',
    );
    expect(unknownProvider('hmac')).toMatch(/did you mean hmac-sha256\?/);
    expect(unknownProvider('paypal')).not.toMatch(/did you mean/);
    expect(unknownEvent('stripe', 'payment_intent.succeeded')).toBeNull();
    expect(unknownEvent('stripe', 'payment_intent.succeded')).toMatch(
      new RegExp(
        [
          '^"payment_intent.succeded" is not a stripe test event \\(did you mean payment_intent.succeeded\\?\\): on',
          'e of payment_intent.succeeded, ',
        ].join(''),
      ),
    );
    expect(unknownEvent('github', 'pull-request')).toMatch(/did you mean pull_request\?/);
    expect(unknownEvent('github', 'release')).toBe(
      '"release" is not a github test event: one of push, pull_request, issues, ping',
    );
    expect(unknownEvent('github', 'constructor')).not.toBeNull();
    expect(() => testEvent('github', 'release', { now, target, signing: null })).toThrow(TypeError);
  });
});
