// Searching a webhook's captures: by method, by a header (present, or with a value), by text in the
// body (case-insensitive, LIKE's own characters taken literally, binary bodies never matched), by
// time, and a page at a time with an opaque cursor; bad filters refused naming them. Then the same
// captures exported as JSON and as HAR 1.2, filtered alike.
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { call, expectErrorShape, networkApi, newAccount, targets } from '../support/client.ts';

/** What is wrong with `doc` as a HAR 1.2 file (har-schema's draft-06 JSON schemas), none when it is valid. */
function harErrors(doc: unknown): string[] {
  const require = createRequire(import.meta.url);
  const harSchema = require('har-schema') as Record<string, object>;
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  for (const schema of Object.values(harSchema)) ajv.addSchema(schema);
  return ajv.validate('har.json#', doc) ? [] : (ajv.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe.each(targets())('webhook capture search ($name)', (target) => {
  const account = newAccount(target);
  const api = networkApi(target, account);

  it('filters by method, header, body text and time, and pages with a cursor', async () => {
    const created = (await api('POST', 'my-webhook-create')).body;
    const id = created.webhook_id as string;
    const send = (method: string, path: string, body?: BodyInit, headers: Record<string, string> = {}) =>
      fetch(`${created.webhook_url}${path}`, { method, body, headers }).then((r) => expect(r.status).toBe(200));
    for (let i = 0; i < 10; i++)
      await send('POST', `/p${i}`, `{"type":"invoice.paid","n":${i}}`, {
        'x-event': i % 2 ? 'odd' : 'even',
        'content-type': 'application/json',
      });
    await new Promise((r) => setTimeout(r, 50));
    const middle = new Date();
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 5; i++) await send('PUT', `/q${i}`, `refund of 50% for order ${i}`);
    await send('POST', '/bin', new Uint8Array([0xff, 0xfe, ...Buffer.from('INVOICE')]));
    await send('GET', '/plain');
    await expect.poll(async () => (await api('GET', `my-webhook-requests?webhook_id=${id}`)).body.data.total).toBe(17);

    const search = async (query: string) => {
      const res = await api('GET', `my-webhook-requests?webhook_id=${id}&${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data as {
        total: number;
        count: number;
        requests: Array<{ id: number; path: string; method: string }>;
        next_cursor?: string;
      };
    };
    const paths = (d: { requests: Array<{ path: string }> }) => d.requests.map((r) => r.path.split('/').pop());
    expect((await search('method=put')).total).toBe(5);
    expect(paths(await search('header=x-event:odd'))).toEqual(['p9', 'p7', 'p5', 'p3', 'p1']);
    expect((await search('header=X-Event')).total).toBe(10);
    expect((await search('q=INVOICE.PAID&header=x-event:even')).total).toBe(5);
    expect((await search('q=invoice')).total).toBe(10); // the binary body is not text
    expect(paths(await search(`q=${encodeURIComponent('50%')}`))).toEqual(['q4', 'q3', 'q2', 'q1', 'q0']);
    expect((await search(`q=${encodeURIComponent('5_%')}`)).total).toBe(0); // _ and % are themselves
    expect((await search(`since=${middle.toISOString()}`)).total).toBe(7);
    expect((await search(`until=${middle.toISOString()}&method=POST`)).total).toBe(10);

    // Pages of 6, newest first: together the whole list, once each; the last page has no cursor.
    const all = (await search('limit=500')).requests.map((r) => r.id);
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await search(`limit=6${cursor ? `&cursor=${cursor}` : ''}`);
      // total counts every match on every page; count, this page's.
      expect([page.total, page.count]).toEqual([17, page.requests.length]);
      seen.push(...page.requests.map((r) => r.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(all);

    for (const [query, message] of [
      ['cursor=nonsense', /cursor: is not a cursor/],
      ['since=yesterday', /since: must be an ISO 8601 time/],
      ['limit=501', /limit: must be from 1 to 500/],
      ['method=GET%20X', /method: must be an HTTP method/],
      ['header=bad%20name', /header: must be name or name:value/],
      [`q=${'x'.repeat(201)}`, /q: must be at most 200 characters/],
      ['q=a%00b', /q: must not contain NUL/],
      ['header=x-event:a%00', /header: must not contain NUL/],
    ] as const) {
      const refused = await api('GET', `my-webhook-requests?webhook_id=${id}&${query}`);
      expectErrorShape(refused, 400);
      expect(refused.body.message).toMatch(message);
    }
    const stranger = await newAccount(target);
    expectErrorShape(
      await call(target, 'GET', `/api/v1/network/my-webhook-requests?webhook_id=${id}&q=invoice`, {
        key: stranger.key,
      }),
      404,
    );

    // Export: every kept capture as my-webhook-requests shows them, or as HAR 1.2; filters as search.
    const download = async (query: string) => {
      const res = await fetch(`${target.baseUrl}/api/v1/network/my-webhook-export?webhook_id=${id}&${query}`, {
        headers: { 'X-API-Key': (await account).key },
      });
      return {
        status: res.status,
        disposition: res.headers.get('content-disposition'),
        body: (await res.json()) as any,
      };
    };
    const json = await download('format=json');
    expect(json.status).toBe(200);
    expect(json.disposition).toBe(`attachment; filename="webhook-${id}.json"`);
    expect(json.body.requests).toEqual((await api('GET', `my-webhook-requests?webhook_id=${id}`)).body.data.requests);
    const har = await download('format=har');
    expect(har.disposition).toBe(`attachment; filename="webhook-${id}.har"`);
    expect(har.body.log).toMatchObject({ version: '1.2', creator: { name: 'netops' } });
    // Valid HAR 1.2 by the schema har-validator and browsers' importers follow (har-schema).
    expect(harErrors(har.body), JSON.stringify(harErrors(har.body))).toEqual([]);
    const entries = har.body.log.entries as any[];
    expect(entries).toHaveLength(17);
    for (const e of entries) {
      expect(Date.parse(e.startedDateTime)).not.toBeNaN();
      expect(e.request).toMatchObject({ httpVersion: 'HTTP/1.1', cookies: [], headersSize: -1 });
      // Each was answered the default acknowledgement: its status kept, its headers and body not.
      expect(e.response).toMatchObject({ status: 200, statusText: 'OK', content: { size: -1 }, redirectURL: '' });
      expect(e.timings).toMatchObject({ send: 0, wait: 0, receive: 0 });
    }
    const p3 = entries.find((e) => e.request.url.endsWith('/p3'));
    expect(p3.request).toMatchObject({
      method: 'POST',
      url: `${created.webhook_url}/p3`,
      postData: { mimeType: 'application/json', text: '{"type":"invoice.paid","n":3}' },
      bodySize: 29,
    });
    expect(p3.request.headers).toContainEqual({ name: 'x-event', value: 'odd' });
    const bin = entries.find((e) => e.request.url.endsWith('/bin'));
    expect(bin.request.postData).toMatchObject({
      _encoding: 'base64',
      text: Buffer.from([0xff, 0xfe, ...Buffer.from('INVOICE')]).toString('base64'),
    });
    expect(entries.find((e) => e.request.url.endsWith('/plain')).request.postData).toBeUndefined();
    expect((await download('format=har&method=PUT')).body.log.entries).toHaveLength(5);
    expect((await download('format=json&q=invoice&header=x-event:even')).body.requests).toHaveLength(5);
    expect((await download('format=xml')).status).toBe(400);
    expect(
      (
        await fetch(`${target.baseUrl}/api/v1/network/my-webhook-export?webhook_id=${id}`, {
          headers: { 'X-API-Key': stranger.key },
        })
      ).status,
    ).toBe(404);
  });

  it('refuses a query parameter it does not know, naming it and the one it is a slip away from', async () => {
    const id = (await api('POST', 'my-webhook-create')).body.webhook_id as string;
    const typo = await api('GET', `my-webhook-requests?webhook_id=${id}&metod=POST`);
    expectErrorShape(typo, 400);
    expect(typo.body.message).toBe('metod: is not a field of this query (did you mean method?)');
    const none = await api('GET', 'my-webhooks?page=2');
    expectErrorShape(none, 400);
    expect(none.body.message).toContain('page: is not a field of this query');
    expect((await api('GET', `my-webhook-requests?webhook_id=${id}&method=POST`)).status).toBe(200);
  });
});
