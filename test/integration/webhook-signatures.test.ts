// Signature checks on a webhook: each capture shows whether its signature verifies (valid, invalid,
// missing, with the reason); the secret is never answered back; the setting can change or go.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectErrorShape, networkApi, newAccount, targets, webhookCaptures } from '../support/client.ts';

describe.each(targets())('webhook signature checks ($name)', (target) => {
  const account = newAccount(target);
  const network = networkApi(target, account);
  /** GET without a body, POST with one. */
  const api = (path: string, json?: unknown) => network(json === undefined ? 'GET' : 'POST', path, json);

  it('shows whether each capture is signed by the secret, and never shows the secret', async () => {
    const secret = 'gh-secret-that-must-not-leak';
    const created = await api('my-webhook-create', { signature: { scheme: 'github', secret } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.signature).toEqual({ scheme: 'github', header: '' });
    const id = created.body.webhook_id as string;
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(created.body.webhook_url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', ...headers },
      });
    const signed = (body: string, key = secret) => `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
    await post('{"n":1}', { 'x-hub-signature-256': signed('{"n":1}') });
    await post('{"n":2}', { 'x-hub-signature-256': signed('{"n":2}', 'someone else') });
    await post('{"n":3}');
    const requests = () =>
      webhookCaptures<{ body: string; signature?: { status: string; reason: string } }>(target, account, id);
    await expect.poll(async () => (await requests()).length).toBe(3);
    const byBody = Object.fromEntries((await requests()).map((r) => [r.body, r.signature]));
    expect(byBody['{"n":1}']).toEqual({ status: 'valid', reason: 'sha256 matches' });
    expect(byBody['{"n":2}']).toMatchObject({ status: 'invalid' });
    expect(byBody['{"n":3}']).toEqual({ status: 'missing', reason: 'no X-Hub-Signature-256 header' });

    // The secret appears in no answer.
    for (const answer of [
      created.body,
      (await api('my-webhooks')).body,
      (await api(`my-webhook-requests?webhook_id=${id}`)).body,
    ])
      expect(JSON.stringify(answer)).not.toContain(secret);
    expect((await api('my-webhooks')).body.data.webhooks.find((w: any) => w.webhook_id === id).signature).toEqual({
      scheme: 'github',
      header: '',
    });

    // Another scheme and secret: the same captures judged again; null: no check, no field.
    const updated = await api('my-webhook-update', {
      webhook_id: id,
      signature: { scheme: 'hmac-sha256', secret: 'k2', header: 'X-Hub-Signature-256' },
    });
    expect(updated.body).toMatchObject({ signature: { scheme: 'hmac-sha256', header: 'x-hub-signature-256' } });
    expect(JSON.stringify(updated.body)).not.toContain('k2"');
    expect((await requests()).map((r) => r.signature?.status).sort()).toEqual(['invalid', 'invalid', 'missing']);
    await api('my-webhook-update', { webhook_id: id, signature: null });
    expect((await requests()).every((r) => r.signature === undefined)).toBe(true);

    for (const [signature, message] of [
      [
        { scheme: 'paypal', secret: 's' },
        /signature\.scheme: must be one of stripe, github, slack, standard-webhooks, hmac-sha256/,
      ],
      [{ scheme: 'github', secret: '' }, /signature\.secret: is required/],
      [{ scheme: 'github', secret: 's', header: 'x-other' }, /signature\.header: is named by the github scheme itself/],
      [{ scheme: 'stripe', secret: 'x'.repeat(257) }, /signature\.secret: must be at most 256 characters/],
    ] as const) {
      const refused = await api('my-webhook-update', { webhook_id: id, signature });
      expectErrorShape(refused, 400);
      expect(refused.body.message).toMatch(message);
    }
    expectErrorShape(await api('my-webhook-update', { webhook_id: id }), 400);

    // A header name that is also an object's property reads as the request's header, or as missing.
    await api('my-webhook-update', {
      webhook_id: id,
      signature: { scheme: 'hmac-sha256', secret: 'k', header: 'constructor' },
    });
    const odd = await api(`my-webhook-requests?webhook_id=${id}`);
    expect(odd.status).toBe(200);
    expect(odd.body.data.requests.map((r: any) => r.signature)).toEqual(
      Array(3).fill({ status: 'missing', reason: 'no constructor header' }),
    );

    // A body that starts with a byte order mark is kept byte for byte (as base64), so its signature still verifies.
    const bom = '\ufeff{"n":4}';
    await api('my-webhook-update', { webhook_id: id, signature: { scheme: 'github', secret } });
    await post(bom, { 'x-hub-signature-256': signed(bom) });
    await expect
      .poll(
        async () => (await requests()).find((r) => r.body === Buffer.from(bom).toString('base64'))?.signature?.status,
      )
      .toBe('valid');
  });
});
