// Response rules of webhooks: the first rule whose match holds answers (by a JSON body field, by a
// header, by a path glob), its body filled from the request; none holding: the webhook's response,
// else the default JSON. Every capture records the rule that answered it (matched_rule). Rules are
// set at creation and by update, answered at once by every API process, removed with null, and
// refused naming the field when they cannot work.
import { describe, expect, it } from 'vitest';
import { expectErrorShape, networkApi, newAccount, targets, webhookCaptures } from '../support/client.ts';

const json = { 'Content-Type': 'application/json' };
const rules = [
  {
    match: { method: 'POST', body: { pointer: '/order/id', equals: 'dup-1' } },
    response: {
      status: 409,
      headers: json,
      body:
        '{"error":"order {{request.body./order/id}} ' +
        'exists","total":{{request.body./order/total}},"request_id":"{{uuid}}"}',
    },
  },
  {
    match: { header: { authorization: false } },
    response: { status: 401, body: 'no token for {{request.method}} {{request.path}}' },
  },
  {
    match: { path: '/orders/*/cancel' },
    response: {
      status: 202,
      headers: json,
      body: '{"cancelled":"{{request.query.reason}}","by":"{{request.header.X-User}}"}',
    },
  },
];

describe.each(targets())('webhook response rules ($name)', (target) => {
  const account = newAccount(target);
  const api = networkApi(target, account);
  const captures = async (webhookId: string) =>
    (await webhookCaptures<{ path: string; matched_rule: number | null }>(target, account, webhookId)).toReversed();

  it('answers by the first rule that holds, fills its body from the request, and records the rule', async () => {
    const created = await api('POST', 'my-webhook-create', { rules, response: { status: 200, body: 'fallback' } });
    expect(created.status, created.text).toBe(201);
    // Stored in full: the short forms given come back spelled out.
    expect(created.body.rules[0].match).toEqual({ method: ['POST'], body: { pointer: '/order/id', equals: 'dup-1' } });
    expect(created.body.rules[1].match).toEqual({ header: { authorization: { present: false } } });
    const url = created.body.webhook_url as string;
    const auth = { authorization: 'Bearer t' };

    const duplicate = await fetch(`${url}/orders`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ order: { id: 'dup-1', total: 12.5 } }),
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers.get('content-type')).toBe('application/json');
    const said = await duplicate.json();
    expect(said).toMatchObject({ error: 'order dup-1 exists', total: 12.5 });
    expect(said.request_id).toMatch(/^[0-9a-f-]{36}$/);

    // The first rule does not hold (another id), the second does (no authorization).
    const noToken = await fetch(`${url}/orders`, { method: 'POST', body: '{"order":{"id":"new-2"}}' });
    expect(noToken.status).toBe(401);
    expect(await noToken.text()).toBe('no token for POST /orders');

    const cancel = await fetch(`${url}/orders/7/cancel?reason=late%20%22again%22`, {
      method: 'DELETE',
      headers: { ...auth, 'x-user': 'ann' },
    });
    expect(cancel.status).toBe(202);
    expect(await cancel.json()).toEqual({ cancelled: 'late "again"', by: 'ann' });

    // * stays within one segment: no rule holds, so the webhook's own response.
    const none = await fetch(`${url}/orders/7/x/cancel`, { method: 'DELETE', headers: auth });
    expect(none.status).toBe(200);
    expect(await none.text()).toBe('fallback');

    expect(
      (await captures(created.body.webhook_id)).map((c) => [c.path.split('/').slice(3).join('/'), c.matched_rule]),
    ).toEqual([
      ['orders', 0],
      ['orders', 1],
      ['orders/7/cancel', 2],
      ['orders/7/x/cancel', null],
    ]);
  });

  it('takes null for none at creation, as an update does', async () => {
    const settings = { response: null, rules: null, schema: null, signature: null, forward_url: null, retention: null };
    const created = await api('POST', 'my-webhook-create', settings);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ rules: [], schema: null, response: null, forward_url: null });
    expect((await fetch(created.body.webhook_url, { method: 'POST' })).status).toBe(200);
  });

  it('falls back to the default JSON, changes at once on update, and goes with null', async () => {
    const created = await api('POST', 'my-webhook-create', {});
    const id = created.body.webhook_id as string;
    const url = created.body.webhook_url as string;
    expect(created.body.rules).toEqual([]);
    expect((await fetch(url, { method: 'POST' })).status).toBe(200); // cached as having no rules

    const updated = await api('POST', 'my-webhook-update', { webhook_id: id, rules: rules.slice(1) });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.message).toContain('2 response rules now answer first');
    const refused = await fetch(url, { method: 'POST' });
    expect(refused.status).toBe(401);
    const withToken = await fetch(url, { method: 'POST', headers: { authorization: 'x' } });
    expect(withToken.status).toBe(200);
    expect(await withToken.json()).toMatchObject({ success: true, message: 'Request captured' });

    expect((await api('POST', 'my-webhook-update', { webhook_id: id, rules: null })).body.rules).toEqual([]);
    expect((await fetch(url, { method: 'POST' })).status).toBe(200);
    expect((await captures(id)).map((c) => c.matched_rule)).toEqual([null, 0, null, null]);
  });

  it('refuses rules that cannot work, naming the field', async () => {
    const created = await api('POST', 'my-webhook-create', {});
    const id = created.body.webhook_id as string;
    const rule = (match: unknown, response: unknown = { status: 200 }) => ({
      webhook_id: id,
      rules: [{ match, response }],
    });
    const cases: Array<[unknown, RegExp]> = [
      [rule({ body: { regex: 'a(b' } }), /^rules\.0\.match\.body\.regex: is not a regular expression RE2 accepts/],
      [
        rule({ header: { 'x-a': { regex: '(?<=a)b' } } }),
        /^rules\.0\.match\.header\.x-a\.regex: is not a regular expression RE2/,
      ],
      [rule({ body: { pointer: 'order/id', equals: 1 } }), /^rules\.0\.match\.body\.pointer: must be a JSON Pointer/],
      [rule({ body: { equals: 1 } }), /^rules\.0\.match\.body\.equals: needs a pointer/],
      [
        rule({ body: { pointer: '/a', equals: 1, exists: true } }),
        /^rules\.0\.match\.body: must give one of equals, exists, regex/,
      ],
      [rule({ header: { 'X-A': '1', 'x-a': '2' } }), /^rules\.0\.match\.header: must name each header once/],
      [rule({ body: { regex: 'a[^x]{999}z' } }), /^rules\.0\.match\.body\.regex: is too costly a regular expression/],
      [
        {
          webhook_id: id,
          rules: Array.from({ length: 20 }, () => ({
            match: { body: { regex: '[a-z]{50}[0-9]{50}' } },
            response: { status: 200 },
          })),
        },
        /^rules: hold regular expressions and globs too costly together/,
      ],
      [rule({ path: 'orders' }), /^rules\.0\.match\.path: must be a glob starting with "\/"/],
      [rule({ method: 'GE T' }), /^rules\.0\.match\.method: must be method names/],
      [rule({ methods: 'GET' }), /^rules\.0\.match\.methods: is not a field of this body \(did you mean method\?\)/],
      [rule({ query: { a: { equal: 'b' } } }), /^rules\.0\.match\.query\.a/],
      [
        rule({}, { status: 200, body: '{{request.ip}}' }),
        /^rules\.0\.response\.body: \{\{request\.ip\}\} is not a placeholder/,
      ],
      [rule({}, { status: 99 }), /^rules\.0\.response\.status: must be from 200 to 599/],
      [rule({}, { status: 200, headers: { 'Set-Cookie': 'a=1' } }), /^rules\.0\.response\.headers: must not set/],
      [
        { webhook_id: id, rules: Array.from({ length: 51 }, () => ({ match: {}, response: { status: 200 } })) },
        /^rules: must hold at most 50 rules/,
      ],
      [{ webhook_id: id, rules: 'all' }, /^rules: must be a list/],
    ];
    for (const [body, message] of cases) {
      const refused = await api('POST', 'my-webhook-update', body);
      expectErrorShape(refused, 400);
      expect(refused.body.message, JSON.stringify(body).slice(0, 120)).toMatch(message);
    }
    // The edge: 50 rules are taken.
    const fifty = await api('POST', 'my-webhook-update', {
      webhook_id: id,
      rules: Array.from({ length: 50 }, (_, i) => ({ match: { path: `/r${i}` }, response: { status: 200 + i } })),
    });
    expect(fifty.status, fifty.text).toBe(200);
    expect((await fetch(`${created.body.webhook_url}/r49`)).status).toBe(249);
  });
  it("refuses a user's captures that have rules once their rules ran the plan's time, and no one else's", async () => {
    // Sixteen patterns of 118-126 steps (1,967 together, under the 2,000 allowed), none holding, each
    // over 64 KiB of letters: each capture of these webhooks runs them all (15-20 ms here).
    const costly = Array.from({ length: 16 }, (_, i) => ({
      match: { body: { regex: `(?:[a-z]|Q|[b-y]){1,60}[0-9]{${1 + (i % 3)}}` } },
      response: { status: 418, body: 'never' },
    }));
    const freeAccount = newAccount(target, 'free');
    const freeUser = networkApi(target, freeAccount);
    const other = networkApi(target, newAccount(target, 'free'));
    // Four webhooks take 240 captures a minute on the free plan, more than its 1,000 ms of rules allow.
    const heavy: string[] = [];
    for (let i = 0; i < 4; i++) {
      heavy.push((await freeUser('POST', 'my-webhook-create', { rules: costly })).body.webhook_url);
    }
    const plain = (await freeUser('POST', 'my-webhook-create', {})).body.webhook_url as string;
    const theirs = await other('POST', 'my-webhook-create', { rules: costly });
    expect(theirs.status, theirs.text).toBe(201);
    const body = 'abcdefghijklmnopqrstuvwxyzQ'.repeat(2500).slice(0, 64 * 1024);

    let refused: Response | undefined;
    let sent = 0;
    for (; sent < 240 && !refused; sent++) {
      const answer = await fetch(`${heavy[sent % 4]}?n=${sent}`, { method: 'POST', body });
      if (answer.status === 429) refused = answer;
      else expect(answer.status).toBe(200);
    }
    expect(refused, `no 429 in ${sent} captures`).toBeDefined();
    expect(sent).toBeGreaterThan(1); // the bucket starts full: the first capture's rules always run
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const said = await refused!.json();
    expect(said).toMatchObject({ success: false, code: 429, error: 'Too Many Requests' });
    expect(said.message).toMatch(/response rules ran for their owner's 1000 ms of this minute on this server/);

    // The same user's webhook without rules, and another user's rules, are answered as before.
    expect((await fetch(plain, { method: 'POST', body })).status).toBe(200);
    expect((await fetch(theirs.body.webhook_url, { method: 'POST', body })).status).toBe(200);
    // Nothing of the refused capture was stored.
    const id = new URL(heavy[(sent - 1) % 4]!).pathname.split('/')[2]!;
    const stored = await webhookCaptures<{ query_string: string | null }>(target, freeAccount, id);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.map((c) => c.query_string)).not.toContain(`n=${sent - 1}`);
  });
});
