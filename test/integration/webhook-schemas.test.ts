// JSON Schema checks of webhooks: each capture shows whether its body is valid against the schema
// the webhook holds (errors naming the JSON path), the search filters on it (schema=invalid finds
// only the invalid ones, paging and counting them), a changed schema is what captures are read
// against, and schemas that cannot be used are refused naming the field.
import { describe, expect, it } from 'vitest';
import { call, expectErrorShape, newAccount, targets } from '../support/client.ts';

const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['type', 'data'],
  properties: {
    type: { type: 'string' },
    data: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, amount: { type: 'integer' } } },
  },
};

describe.each(targets())('webhook JSON Schema checks ($name)', (target) => {
  const account = newAccount(target);
  const api = async (method: string, path: string, body?: unknown) =>
    call(target, method, `/api/v1/network/${path}`, {
      key: (await account).key,
      ...(body === undefined ? {} : { json: body }),
    });
  const post = (url: string, body: string) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('shows each capture valid or not by JSON path, and finds only the invalid ones', async () => {
    const created = await api('POST', 'my-webhook-create', { schema });
    expect(created.status, created.text).toBe(201);
    expect(created.body.schema).toEqual(schema);
    const { webhook_id: id, webhook_url: url } = created.body;
    expect((await post(url, '{"type":"charge.succeeded","data":{"id":"ch_1","amount":500}}')).status).toBe(200);
    expect((await post(url, '{"type":7,"data":{"amount":"500"}}')).status).toBe(200);
    expect((await post(url, 'not json')).status).toBe(200);

    const all = (await api('GET', `my-webhook-requests?webhook_id=${id}`)).body.data;
    expect(all.requests.map((r: any) => r.schema)).toEqual([
      { valid: false, errors: [{ path: '', message: expect.stringMatching(/^is not JSON/) }] },
      {
        valid: false,
        errors: expect.toSatisfy(
          (errors: unknown[]) =>
            errors.length === 3 &&
            [
              { path: '/type', message: 'must be string' },
              { path: '/data/id', message: 'is required' },
              { path: '/data/amount', message: 'must be integer' },
            ].every((e) => errors.some((x) => JSON.stringify(x) === JSON.stringify(e))),
        ),
      },
      { valid: true, errors: [] },
    ]);

    const invalid = (await api('GET', `my-webhook-requests?webhook_id=${id}&schema=invalid`)).body.data;
    expect(invalid.total).toBe(2);
    expect(invalid.requests.map((r: any) => r.id)).toEqual([all.requests[0].id, all.requests[1].id]);
    // Paged, with the other filters: one at a time, then the next.
    const first = (await api('GET', `my-webhook-requests?webhook_id=${id}&schema=invalid&limit=1`)).body.data;
    expect([first.total, first.count, first.requests[0].id]).toEqual([2, 1, all.requests[0].id]);
    const next = (
      await api('GET', `my-webhook-requests?webhook_id=${id}&schema=invalid&limit=1&cursor=${first.next_cursor}`)
    ).body.data;
    expect([next.count, next.requests[0].id, next.next_cursor]).toEqual([1, all.requests[1].id, undefined]);
    const valid = (await api('GET', `my-webhook-requests?webhook_id=${id}&schema=valid&method=POST`)).body.data;
    expect(valid.requests.map((r: any) => r.id)).toEqual([all.requests[2].id]);

    // The schema changed: every capture is read against the new one; none: no check shown, no filter.
    const looser = { type: 'object' };
    expect((await api('POST', 'my-webhook-update', { webhook_id: id, schema: looser })).body.message).toContain(
      'bodies are checked against the JSON Schema',
    );
    const again = (await api('GET', `my-webhook-requests?webhook_id=${id}&schema=invalid`)).body.data;
    expect(again.requests.map((r: any) => r.id)).toEqual([all.requests[0].id]);
    expect((await api('POST', 'my-webhook-update', { webhook_id: id, schema: null })).body.schema).toBeNull();
    expect((await api('GET', `my-webhook-requests?webhook_id=${id}`)).body.data.requests[0].schema).toBeUndefined();
    const noSchema = await api('GET', `my-webhook-requests?webhook_id=${id}&schema=invalid`);
    expectErrorShape(noSchema, 400);
    expect(noSchema.body.message).toMatch(/^schema: this webhook has no JSON Schema/);
  });

  it('refuses schemas it cannot check with, naming the field', async () => {
    const id = (await api('POST', 'my-webhook-create', {})).body.webhook_id as string;
    const cases: Array<[unknown, RegExp]> = [
      [{ type: 'strin' }, /^schema: is not a JSON Schema this service can check with \(schema is invalid/],
      [{ $ref: 'https://example.com/order.json' }, /^schema: is not a JSON Schema .*can't resolve reference/],
      [{ properties: { a: { pattern: '(?<=a)b' } } }, /^schema: is not a JSON Schema this service can check with/],
      [{ description: 'x'.repeat(64 * 1024) }, /^schema: must be at most 64 KiB as JSON/],
      ['{"type":"object"}', /^schema: must be a JSON Schema object/],
      [[{ type: 'object' }], /^schema: must be a JSON Schema object/],
    ];
    for (const [given, message] of cases) {
      const refused = await api('POST', 'my-webhook-update', { webhook_id: id, schema: given });
      expectErrorShape(refused, 400);
      expect(refused.body.message, JSON.stringify(given).slice(0, 80)).toMatch(message);
    }
    const badFilter = await api('GET', `my-webhook-requests?webhook_id=${id}&schema=broken`);
    expectErrorShape(badFilter, 400);
    expect(badFilter.body.message).toMatch(/^schema: must be valid or invalid/);
  });
});
