// Waiting for a capture (my-webhook-wait, MCP webhook_wait_for_request): the first matching capture
// that arrives after the call answers it, at once (a capture that does not match does not); since a
// time, one already there answers; at the timeout, request null and timed_out true with 200; bad
// input and someone else's webhook refused; a wait holds one of the plan's live-stream slots. Through
// MCP, as a plain call and as a task (a workflow: tasks/result answers the capture, tasks/cancel ends
// the wait and frees its slot).
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { admin, call, networkApi, newAccount, targets } from '../support/client.ts';
import { connectedClient, newUser } from '../support/mcp.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (done: () => Promise<boolean>, what: string | (() => string), ms = 15_000) => {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(typeof what === 'string' ? what : what());
    await sleep(1000);
  }
};

describe.each(targets())('waiting for a capture ($name)', (target) => {
  const account = newAccount(target);
  const api = networkApi(target, account);

  it('answers the first matching capture as it arrives, not one that does not match; since a time; at the ' +
    'timeout, null', {
    timeout: 30_000,
  }, async () => {
    const created = (await api('POST', 'my-webhook-create')).body;
    const id = created.webhook_id as string;
    // Before the call, and matching every filter: not what the wait answers.
    await fetch(`${created.webhook_url}/before`, { method: 'POST', body: '{"type":"checkout.old"}' });

    const started = Date.now();
    const waiting = api('GET', `my-webhook-wait?webhook_id=${id}&method=POST&q=checkout&timeout=20`);
    await sleep(500);
    // Not matching: a GET, and a POST without the text.
    await fetch(`${created.webhook_url}/ping`);
    await fetch(`${created.webhook_url}/other`, { method: 'POST', body: '{"type":"refund"}' });
    await sleep(500);
    const sentAt = Date.now();
    await fetch(`${created.webhook_url}/events`, { method: 'POST', body: '{"type":"checkout.completed"}' });
    const answer = await waiting;
    const answeredAt = Date.now();
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ success: true, webhook_id: id, timed_out: false });
    expect(answer.body.request).toMatchObject({ method: 'POST', body: '{"type":"checkout.completed"}' });
    // Within 200 ms of the capture's arrival (its created_at, on this machine's clock).
    const arrived = Date.parse(answer.body.request.created_at);
    console.log(
      `wait answered ${answeredAt - arrived} ms after the capture arrived (${answeredAt - sentAt} ms after ` +
        `it was sent)`,
    );
    expect(answeredAt - arrived).toBeLessThan(200);
    expect(answeredAt - started).toBeGreaterThan(1000);

    // Since a time before the first capture: it is there already.
    const since = new Date(started - 60_000).toISOString();
    const already = await api('GET', `my-webhook-wait?webhook_id=${id}&since=${encodeURIComponent(since)}&timeout=5`);
    expect(already.body.request).toMatchObject({ body: '{"type":"checkout.old"}' });

    const t0 = Date.now();
    const none = await api('GET', `my-webhook-wait?webhook_id=${id}&method=DELETE&timeout=1`);
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ success: true, webhook_id: id, request: null, timed_out: true });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
  });

  it('refuses bad input and webhooks that are not yours; holds a live-stream slot while it waits', {
    timeout: 30_000,
  }, async () => {
    const created = (await api('POST', 'my-webhook-create')).body;
    const id = created.webhook_id as string;
    const tooLong = await api('GET', `my-webhook-wait?webhook_id=${id}&timeout=121`);
    expect([tooLong.status, tooLong.body.message]).toEqual([400, 'timeout: must be from 1 to 120 seconds (query)']);
    const unknown = await api('GET', `my-webhook-wait?webhook_id=${id}&metod=POST`);
    expect([unknown.status, unknown.body.message]).toEqual([400, expect.stringMatching(/^metod: is not a field/)]);
    expect((await api('GET', 'my-webhook-wait?webhook_id=nope&timeout=1')).status).toBe(404);

    // A free plan has 2 live streams: two waits hold both, a third is refused until one ends.
    const free = newAccount(target, 'free');
    const freeApi = networkApi(target, free);
    const own = (await freeApi('POST', 'my-webhook-create')).body;
    const waits = [1, 2].map(() => freeApi('GET', `my-webhook-wait?webhook_id=${own.webhook_id}&timeout=4`));
    await sleep(1000);
    const third = await freeApi('GET', `my-webhook-wait?webhook_id=${own.webhook_id}&timeout=1`);
    expect(third.status).toBe(429);
    expect((await Promise.all(waits)).map((w) => w.body.timed_out)).toEqual([true, true]);
    expect((await freeApi('GET', `my-webhook-wait?webhook_id=${own.webhook_id}&timeout=1`)).status).toBe(200);
  });

  it('waits through MCP: webhook_wait_for_request answers the capture that arrives', { timeout: 30_000 }, async () => {
    const { email } = await newUser(target);
    const { client } = await connectedClient(target, email);
    const created = (await client.callTool({ name: 'webhook_create', arguments: {} })).structuredContent as any;
    const waiting = client.callTool(
      { name: 'webhook_wait_for_request', arguments: { webhook_id: created.webhook_id, method: 'PUT', timeout: 20 } },
      undefined,
      { timeout: 30_000 },
    );
    await sleep(500);
    await fetch(created.webhook_url, { method: 'POST', body: 'not this one' });
    await fetch(`${created.webhook_url}/orders/7`, { method: 'PUT', body: 'this one' });
    const result = await waiting;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      webhook_id: created.webhook_id,
      timed_out: false,
      request: { method: 'PUT', body: 'this one' },
    });
    const timedOut = await client.callTool({
      name: 'webhook_wait_for_request',
      arguments: { webhook_id: created.webhook_id, timeout: 1 },
    });
    expect(timedOut.structuredContent).toMatchObject({ request: null, timed_out: true });
  });

  it('waits as an MCP task: tasks/result answers the capture; each wait holds a live-stream slot until it ' +
    'ends or is cancelled', {
    timeout: 60_000,
  }, async () => {
    const { email } = await newUser(target, 'free');
    const { client } = await connectedClient(target, email);
    const key = JSON.parse((await admin(target, ['create-key', '--email', email, '--plan', 'free'])).stdout).api_key;
    const created = (await client.callTool({ name: 'webhook_create', arguments: {} })).structuredContent as any;
    const id = created.webhook_id as string;
    const restWait = () => call(target, 'GET', `/api/v1/network/my-webhook-wait?webhook_id=${id}&timeout=1`, { key });
    const startWait = (args: Record<string, unknown>) =>
      client.request(
        {
          method: 'tools/call',
          params: { name: 'webhook_wait_for_request', arguments: { webhook_id: id, ...args }, task: {} },
        },
        CreateTaskResultSchema,
      );
    // Sent before the call, matching: not what the wait answers.
    await fetch(`${created.webhook_url}/orders/1`, { method: 'PUT', body: 'before the wait' });
    const first = await startWait({ method: 'PUT', timeout: 60 });
    const second = await startWait({ method: 'PATCH', timeout: 60 });
    expect(first.task).toMatchObject({ taskId: expect.stringMatching(/^webhook-wait-/), status: 'working' });
    // The free plan's two slots are both held by the tasks: a REST wait is refused.
    expect((await restWait()).status).toBe(429);
    // A foreign or unknown webhook is refused at the call.
    const unknown = await client.callTool({ name: 'webhook_wait_for_request', arguments: { webhook_id: 'nope' } });
    expect(unknown).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/No webhook nope/) }] });

    await fetch(created.webhook_url, { method: 'POST', body: 'not this one' });
    await fetch(`${created.webhook_url}/orders/8`, { method: 'PUT', body: 'the awaited one' });
    const result = await client.experimental.tasks.getTaskResult(first.task.taskId, CallToolResultSchema);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      webhook_id: id,
      timed_out: false,
      request: { method: 'PUT', path: expect.stringMatching(/\/orders\/8$/), body: 'the awaited one' },
    });
    expect(await client.experimental.tasks.getTask(first.task.taskId)).toMatchObject({
      status: 'completed',
      statusMessage: expect.stringMatching(/^captured request \d+$/),
    });

    // Cancelled, the other wait ends and frees its slot: both of the plan's are free again.
    const asked = Date.now();
    expect((await client.experimental.tasks.cancelTask(second.task.taskId)).status).toBe('cancelled');
    const cancelled = await client.experimental.tasks.getTaskResult(second.task.taskId, CallToolResultSchema);
    expect(cancelled).toMatchObject({ isError: true, content: [{ text: 'The wait was cancelled.' }] });
    const both = await Promise.all([restWait(), restWait()]);
    console.log(`a cancelled wait's slot was free ${Date.now() - asked} ms after tasks/cancel`);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
  });

  it('a plain MCP wait whose client goes away ends, and frees its live-stream slot', { timeout: 60_000 }, async () => {
    // A new free account (the plan's 2 slots; 10 requests a minute, so this test makes few).
    const { email } = await newUser(target, 'free');
    const { client, oauth, url } = await connectedClient(target, email);
    const key = JSON.parse((await admin(target, ['create-key', '--email', email, '--plan', 'free'])).stdout).api_key;
    const id = ((await client.callTool({ name: 'webhook_create', arguments: {} })).structuredContent as any)
      .webhook_id as string;
    const restWait = () => call(target, 'GET', `/api/v1/network/my-webhook-wait?webhook_id=${id}&timeout=1`, { key });
    // Two plain calls hold both slots; their clients go away (the HTTP requests closed): the waits end.
    const callers = [1, 2].map(() => new AbortController());
    const plain = callers.map((caller, i) =>
      fetch(url, {
        method: 'POST',
        signal: caller.signal,
        headers: {
          authorization: `Bearer ${oauth.tokens()!.access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i + 1,
          method: 'tools/call',
          params: { name: 'webhook_wait_for_request', arguments: { webhook_id: id, timeout: 60 } },
        }),
      }).catch(() => null),
    );
    await sleep(1500);
    const held = await restWait();
    expect([held.status, held.body.message]).toEqual([429, expect.stringMatching(/^At most 2 live streams/)]);
    for (const caller of callers) caller.abort();
    await Promise.all(plain);
    const gone = Date.now();
    // (Once a second: each refused look counts against the free plan's request rate too.)
    let last: { status: number; body: { message?: string } } = { status: 0, body: {} };
    await until(
      async () => {
        last = await restWait();
        return last.status === 200;
      },
      () => `the abandoned waits kept their slots: ${JSON.stringify(last.body)}`,
    );
    console.log(`an abandoned plain wait's slot was free within ${Date.now() - gone} ms`);
  });
});
