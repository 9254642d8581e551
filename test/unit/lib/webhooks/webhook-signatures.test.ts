import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  checkSignature,
  SIGNATURE_SCHEMES,
  signatureChecker,
  signatureHeaders,
  type SignatureScheme,
} from '../../../../lib/webhooks/webhook-signatures.ts';

const at = (unixSeconds: number) => new Date(unixSeconds * 1000);
const hex = (key: string, data: string) => createHmac('sha256', key).update(data).digest('hex');

describe('webhook signature checks', () => {
  it('GitHub: the documented example (docs.github.com, validating webhook deliveries)', () => {
    const req = {
      headers: { 'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17' },
      body: Buffer.from('Hello, World!'),
      capturedAt: new Date(),
    };
    expect(checkSignature('github', "It's a Secret to Everybody", '', req)).toEqual({
      status: 'valid',
      reason: 'sha256 matches',
    });
    expect(checkSignature('github', 'another secret', '', req).status).toBe('invalid');
    expect(
      checkSignature('github', "It's a Secret to Everybody", '', { ...req, body: Buffer.from('Hello, World?') }).status,
    ).toBe('invalid');
    expect(checkSignature('github', 'x', '', { ...req, headers: {} })).toEqual({
      status: 'missing',
      reason: 'no X-Hub-Signature-256 header',
    });
  });

  it('Slack: the documented example (api.slack.com, verifying requests), and its 5 minutes', () => {
    const body = Buffer.from(
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channe' +
        'l_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=h' +
        'ttps%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigge' +
        'r_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    );
    const headers = {
      'x-slack-request-timestamp': '1531420618',
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    };
    expect(
      checkSignature('slack', '8f742231b10e8888abcd99yyyzzz85a5', '', {
        headers,
        body,
        capturedAt: at(1531420618 + 300),
      }).status,
    ).toBe('valid');
    expect(
      checkSignature('slack', '8f742231b10e8888abcd99yyyzzz85a5', '', {
        headers,
        body,
        capturedAt: at(1531420618 + 301),
      }),
    ).toMatchObject({ status: 'invalid', reason: expect.stringMatching(/301 s from the capture's time/) });
    expect(checkSignature('slack', 'wrong', '', { headers, body, capturedAt: at(1531420618) }).status).toBe('invalid');
  });

  it('Stripe: t and v1 as its docs sign them, any of several v1, within 5 minutes', () => {
    const secret = 'whsec_test_secret';
    const body = '{"id":"evt_1","type":"invoice.paid"}';
    const t = 1_763_900_000;
    const v1 = hex(secret, `${t}.${body}`);
    const req = (sig: string, seconds = t) => ({
      headers: { 'stripe-signature': sig },
      body: Buffer.from(body),
      capturedAt: at(seconds),
    });
    expect(checkSignature('stripe', secret, '', req(`t=${t},v1=${v1},v0=ignored`)).status).toBe('valid');
    // a rolled secret's two signatures
    expect(checkSignature('stripe', secret, '', req(`t=${t},v1=${'0'.repeat(64)},v1=${v1}`)).status).toBe('valid');
    expect(checkSignature('stripe', secret, '', req(`t=${t},v1=${v1}`, t + 301)).status).toBe('invalid');
    expect(checkSignature('stripe', secret, '', req(`t=${t + 1},v1=${v1}`)).status).toBe('invalid');
    expect(checkSignature('stripe', secret, '', req('v1=abc')).reason).toMatch(/no t= and v1= parts/);
  });

  it('Standard Webhooks: signed by the reference library (standardwebhooks), within 5 minutes', () => {
    const secret = `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`;
    const body = '{"type":"user.created"}';
    const now = new Date();
    const signature = new Webhook(secret).sign('msg_1', now, body);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': `v1,AAAA ${signature}`,
    };
    expect(
      checkSignature('standard-webhooks', secret, '', { headers, body: Buffer.from(body), capturedAt: now }).status,
    ).toBe('valid');
    expect(
      checkSignature('standard-webhooks', secret, '', {
        headers: { ...headers, 'webhook-id': 'msg_2' },
        body: Buffer.from(body),
        capturedAt: now,
      }).status,
    ).toBe('invalid');
    expect(
      checkSignature('standard-webhooks', secret, '', {
        headers,
        body: Buffer.from(body),
        capturedAt: new Date(now.getTime() + 400_000),
      }).status,
    ).toBe('invalid');
    expect(
      checkSignature('standard-webhooks', secret, '', { headers: {}, body: Buffer.from(body), capturedAt: now }).status,
    ).toBe('missing');
  });

  it('checks many requests with one checker, each signed as its provider signs (secrets empty, not ASCII)', () => {
    const now = new Date();
    const t = String(Math.floor(now.getTime() / 1000));
    const mac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data);
    const standardKey = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const signed: Record<SignatureScheme, (secret: string, body: string) => Record<string, string>> = {
      stripe: (secret, body) => ({ 'stripe-signature': `t=${t},v1=${mac(secret, `${t}.${body}`).digest('hex')}` }),
      github: (secret, body) => ({ 'x-hub-signature-256': `sha256=${mac(secret, body).digest('hex')}` }),
      slack: (secret, body) => ({
        'x-slack-request-timestamp': t,
        'x-slack-signature': `v0=${mac(secret, `v0:${t}:${body}`).digest('hex')}`,
      }),
      'standard-webhooks': (secret, body) => ({
        'webhook-id': 'msg_1',
        'webhook-timestamp': t,
        'webhook-signature': `v1,${mac(standardKey(secret), `msg_1.${t}.${body}`).digest('base64')}`,
      }),
      'hmac-sha256': (secret, body) => ({ 'x-sig': mac(secret, body).digest('hex') }),
    };
    const secrets = ['', 'sécret ✓', `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`];
    for (const secret of secrets)
      for (const scheme of SIGNATURE_SCHEMES) {
        const check = signatureChecker(scheme, secret, 'x-sig');
        // The second's body is not what was signed.
        const verdicts = ['{"n":1}', '{"n":2}', '{"n":3}'].map(
          (body, i) =>
            check({
              headers: signed[scheme](secret, body),
              body: Buffer.from(i === 1 ? '{"n":-2}' : body),
              capturedAt: now,
            }).status,
        );
        expect(verdicts, `${scheme}, secret "${secret}"`).toEqual(['valid', 'invalid', 'valid']);
      }
  });

  it('HMAC-SHA256 in a named header: hex or base64, sha256= allowed, over the bytes', () => {
    const body = Buffer.from([0xff, 0x00, 0x41]);
    const mac = createHmac('sha256', 'k').update(body).digest();
    for (const value of [mac.toString('hex'), `sha256=${mac.toString('hex')}`, mac.toString('base64')]) {
      expect(
        checkSignature('hmac-sha256', 'k', 'x-sig', { headers: { 'x-sig': value }, body, capturedAt: new Date() })
          .status,
      ).toBe('valid');
    }
    expect(
      checkSignature('hmac-sha256', 'k', 'x-sig', { headers: { 'x-sig': 'deadbeef' }, body, capturedAt: new Date() })
        .status,
    ).toBe('invalid');
    expect(checkSignature('hmac-sha256', 'k', 'x-sig', { headers: {}, body, capturedAt: new Date() })).toEqual({
      status: 'missing',
      reason: 'no x-sig header',
    });
  });

  it("signs as each provider documents: GitHub's and Slack's examples, the Standard Webhooks library", () => {
    const github = signatureHeaders('github', "It's a Secret to Everybody", '', {
      body: Buffer.from('Hello, World!'),
      at: new Date(),
      messageId: '',
    });
    expect(github['x-hub-signature-256']).toBe(
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
    expect(github['x-hub-signature']).toBe(
      `sha1=${createHmac('sha1', "It's a Secret to Everybody").update('Hello, World!').digest('hex')}`,
    );
    const slackBody =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channe' +
      'l_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=h' +
      'ttps%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigge' +
      'r_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    expect(
      signatureHeaders('slack', '8f742231b10e8888abcd99yyyzzz85a5', '', {
        body: Buffer.from(slackBody),
        at: at(1531420618),
        messageId: '',
      }),
    ).toEqual({
      'x-slack-request-timestamp': '1531420618',
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    });
    const secret = `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`;
    const body = '{"type":"user.created"}';
    const headers = signatureHeaders('standard-webhooks', secret, '', {
      body: Buffer.from(body),
      at: new Date(),
      messageId: 'msg_1',
    });
    expect(new Webhook(secret).verify(body, headers)).toEqual({ type: 'user.created' });
    const t = 1_700_000_000;
    expect(signatureHeaders('stripe', 'whsec_x', '', { body: Buffer.from(body), at: at(t), messageId: '' })).toEqual({
      'stripe-signature': `t=${t},v1=${hex('whsec_x', `${t}.${body}`)}`,
    });
  });

  it(
    'sign then check: valid for every scheme, ' + 'at the time it was signed; not with another secret or 6 minutes on',
    () => {
      const body = Buffer.from('{"id":"evt_1","amount":2000}\n');
      const when = new Date();
      for (const scheme of SIGNATURE_SCHEMES) {
        const secret = scheme === 'standard-webhooks' ? `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}` : 'k';
        const headers = signatureHeaders(scheme, secret, 'x-sig', { body, at: when, messageId: 'msg_2' });
        const request = { headers, body, capturedAt: when };
        expect(checkSignature(scheme, secret, 'x-sig', request), scheme).toMatchObject({ status: 'valid' });
        expect(checkSignature(scheme, 'other', 'x-sig', request).status, scheme).toBe('invalid');
        const late = { ...request, capturedAt: new Date(when.getTime() + 360_000) };
        expect(checkSignature(scheme, secret, 'x-sig', late).status, scheme).toBe(
          ['github', 'hmac-sha256'].includes(scheme) ? 'valid' : 'invalid', // no timestamp signed
        );
      }
    },
  );
});
