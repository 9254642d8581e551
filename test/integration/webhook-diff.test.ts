// Diffs of two captures, through REST and MCP: two JSON deliveries differing in a nested field, an
// added header and a query value are told apart by exactly those; headers that differ on every
// delivery are left out unless the caller names its own list; text bodies by lines; captures that
// are not the caller's, or not kept, are 404; bad ids are refused naming the field. Two 1 MiB captures
// that differ everywhere are diffed off the event loop (/healthz stays fast meanwhile), with an honest
// answer at each bound: a line diff given up (why, both sizes), a patch cut at 256 KiB.
import { describe, expect, it } from 'vitest';
import { expectErrorShape, networkApi, newAccount, targets } from '../support/client.ts';
import { connectedClient, newUser } from '../support/mcp.ts';

describe.each(targets())('webhook capture diffs ($name)', (target) => {
  const account = newAccount(target);
  const api = networkApi(target, account);
  /** Sends `init` to the capture URL and answers the new capture's id. */
  async function captured(webhook: { webhook_id: string; webhook_url: string }, suffix: string, init: RequestInit) {
    expect((await fetch(`${webhook.webhook_url}${suffix}`, init)).status).toBe(200);
    const { data } = (await api('GET', `my-webhook-requests?webhook_id=${webhook.webhook_id}&limit=1`)).body;
    return data.requests[0].id as number;
  }

  it('names exactly the nested field, the added header and the query value that changed', async () => {
    const webhook = (await api('POST', 'my-webhook-create', {})).body;
    const order = (total: number) =>
      JSON.stringify({ type: 'order.paid', data: { order: { id: 'o-1', total, lines: [{ sku: 'a' }] } } });
    const a = await captured(webhook, '/events?attempt=1&source=shop', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: order(10),
    });
    const b = await captured(webhook, '/events?attempt=2&source=shop', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-retry': 'yes' },
      body: order(125),
    });
    const diff = await api('GET', `my-webhook-diff?webhook_id=${webhook.webhook_id}&a=${a}&b=${b}`);
    expect(diff.status, diff.text).toBe(200);
    expect(diff.body).toMatchObject({
      success: true,
      webhook_id: webhook.webhook_id,
      a: { id: a },
      b: { id: b },
      same: false,
    });
    expect(diff.body.method).toBeNull();
    expect(diff.body.path).toBeNull();
    expect(diff.body.query).toEqual({ added: {}, removed: {}, changed: { attempt: { a: '1', b: '2' } } });
    // content-length differs too, but is among the headers left out by default.
    expect(diff.body.headers).toMatchObject({ added: { 'x-retry': 'yes' }, removed: {}, changed: {} });
    expect(diff.body.headers.ignored).toContain('content-length');
    expect(diff.body.body).toEqual({
      format: 'json',
      same: false,
      truncated: false,
      changes: [{ change: 'changed', pointer: '/data/order/total', a: 10, b: 125 }],
    });

    // Every header compared: content-length now shows.
    const all = await api('GET', `my-webhook-diff?webhook_id=${webhook.webhook_id}&a=${a}&b=${b}&ignore_headers=`);
    const length = Buffer.byteLength(order(10));
    expect(all.body.headers.changed).toEqual({ 'content-length': { a: String(length), b: String(length + 1) } });
    expect(all.body.headers.ignored).toEqual([]);
    expect((await api('GET', `my-webhook-diff?webhook_id=${webhook.webhook_id}&a=${a}&b=${a}`)).body.same).toBe(true);

    // Through MCP, the same answer.
    const { email } = await newUser(target);
    const { client } = await connectedClient(target, email);
    const own = (await client.callTool({ name: 'webhook_create', arguments: {} })).structuredContent as {
      webhook_id: string;
      webhook_url: string;
    };
    const x = await fetch(`${own.webhook_url}/t`, { method: 'PUT', body: 'one\ntwo\nthree\n' });
    const y = await fetch(`${own.webhook_url}/t`, { method: 'PUT', body: 'one\n2\nthree\n' });
    expect([x.status, y.status]).toEqual([200, 200]);
    const listed = (await client.callTool({ name: 'webhook_requests', arguments: { webhook_id: own.webhook_id } }))
      .structuredContent as {
      requests: Array<{ id: number }>;
    };
    const [newer, older] = listed.requests.map((r) => r.id);
    const viaMcp = await client.callTool({
      name: 'webhook_diff',
      arguments: { webhook_id: own.webhook_id, a: older, b: newer },
    });
    expect(viaMcp.isError).toBeFalsy();
    expect((viaMcp.structuredContent as any).body).toEqual({
      format: 'text',
      same: false,
      patch: '@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n',
      truncated: false,
    });
    const unknownArg = await client.callTool({
      name: 'webhook_diff',
      arguments: { webhook_id: own.webhook_id, a: older, c: newer },
    });
    expect(unknownArg.isError).toBe(true);
  });

  it("answers 404 for a capture that is not the webhook's, and names bad fields", async () => {
    const one = (await api('POST', 'my-webhook-create', {})).body;
    const two = (await api('POST', 'my-webhook-create', {})).body;
    const a = await captured(one, '', { method: 'POST', body: 'a' });
    const other = await captured(two, '', { method: 'POST', body: 'b' });
    const foreign = await api('GET', `my-webhook-diff?webhook_id=${one.webhook_id}&a=${a}&b=${other}`);
    expectErrorShape(foreign, 404);
    expect(foreign.body.message).toBe(`No capture ${other} among those webhook ${one.webhook_id} keeps`);
    const cases: Array<[string, RegExp]> = [
      [`a=${a}`, /^b is required \(query\)/],
      [`a=x&b=${a}`, /^a: must be the id of a captured request \(query\)/],
      [`a=${a}&b=0`, /^b: must be the id of a captured request \(query\)/],
      [`a=${a}&b=${a}&ignore_headers=date,bad%20name`, /^ignore_headers: must be header names/],
      [`a=${a}&b=${a}&ignore=date`, /^ignore: is not a field of this query/],
    ];
    for (const [query, message] of cases) {
      const refused = await api('GET', `my-webhook-diff?webhook_id=${one.webhook_id}&${query}`);
      expectErrorShape(refused, 400);
      expect(refused.body.message, query).toMatch(message);
    }
  });

  it('diffs two 1 MiB captures that differ everywhere off the event loop, answering what it could do', async () => {
    const webhook = (await api('POST', 'my-webhook-create', {})).body;
    // Half a million short lines each, `a` or `b` at random: a line diff of them works past its half second.
    const lines = () => Array.from({ length: 512 * 1024 }, () => (Math.random() < 0.5 ? 'a\n' : 'b\n')).join('');
    const a = await captured(webhook, '', { method: 'POST', body: lines() });
    const b = await captured(webhook, '', { method: 'POST', body: lines() });
    const diffing = api('GET', `my-webhook-diff?webhook_id=${webhook.webhook_id}&a=${a}&b=${b}`);
    let done = false;
    void diffing.finally(() => {
      done = true;
    });
    // Another caller's latency meanwhile: the diff ran on the event loop for about a second before.
    const waits: number[] = [];
    while (!done) {
      const began = performance.now();
      expect((await fetch(`${target.baseUrl}/healthz`)).status).toBe(200);
      waits.push(performance.now() - began);
      await new Promise((r) => setTimeout(r, 20));
    }
    const diff = await diffing;
    expect(diff.status, diff.text).toBe(200);
    expect(diff.body.body).toMatchObject({ format: 'text', same: false, patch: null, truncated: false });
    expect(diff.body.body.reason).toMatch(
      new RegExp(
        [
          '^the texts \\(1048576 and 1048576 bytes, 524288 and 524288 lines\\) (took more than 500 ms|',
          'differ in more than 5000 lines)',
        ].join(''),
      ),
    );
    // A diff on the event loop holds every wait for its whole run (500 ms and more, its bound); a loaded
    // two-core machine delays one wait among ~90 now and then (134 ms once in CI, the others 3-30 ms).
    expect(waits.length).toBeGreaterThan(0);
    expect(Math.max(...waits), waits.map((w) => w.toFixed(0)).join(' ')).toBeLessThan(300);

    // One line each, a megabyte long: the patch is cut at 256 KiB, and says so.
    const x = await captured(webhook, '', { method: 'POST', body: 'x'.repeat(1024 * 1024) });
    const y = await captured(webhook, '', { method: 'POST', body: 'y'.repeat(1024 * 1024) });
    const long = await api('GET', `my-webhook-diff?webhook_id=${webhook.webhook_id}&a=${x}&b=${y}`);
    expect(long.status, long.text.slice(0, 500)).toBe(200);
    expect(long.body.body).toMatchObject({ format: 'text', same: false, truncated: true });
    expect(long.body.body.patch).toHaveLength(256 * 1024);
    expect(long.body.body.patch.startsWith('@@ -1,1 +1,1 @@\n-xxx')).toBe(true);
  });
});
