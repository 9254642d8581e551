// A credential revoked while a long-lived request it opened is still open ends that request within
// seconds, and nothing captured after the revocation reaches it: a capture stream of a key revoked in
// the dashboard (it ends with `event: error`, error_code unauthorized), a wait (my-webhook-wait) of a key
// revoked by the admin command from another process (401), MCP calls waiting for a capture whose app is
// disconnected in the dashboard (a JSON-RPC error, as JSON and as an event stream), a dashboard
// stream whose session signs out, and `netops listen` (it exits saying why). Each close time is printed.
import { describe, expect, it } from 'vitest';
import { cliEnv, startCli } from '../support/cli.ts';
import { admin, call, expectErrorShape, targets } from '../support/client.ts';
import type { Target } from '../support/global-setup.ts';
import { connectedClient, newUser, PASSWORD } from '../support/mcp.ts';
import { startReceiver, type Received } from '../support/receiver.ts';

const CLOSES_WITHIN_MS = 5000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface SseEvent {
  event: string;
  data: any;
}

/** Reads a Server-Sent Events response; `next()` waits for the following event (null once it ended). */
function events(res: Response) {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let ended = false;
  const queue: SseEvent[] = [];
  return async (timeoutMs = 15_000): Promise<SseEvent | null> => {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0 && !ended) {
      const left = deadline - Date.now();
      const read = await Promise.race([reader.read(), sleep(Math.max(0, left)).then(() => null)]);
      if (read === null) throw new Error(`no event within ${timeoutMs} ms`);
      if (read.done) ended = true;
      buffer += read.value ?? '';
      for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (data) queue.push({ event: event ?? 'message', data: JSON.parse(data) });
      }
    }
    return queue.shift() ?? null;
  };
}

/** Every event until the stream ends, and when it ended. */
async function rest(next: ReturnType<typeof events>): Promise<{ events: SseEvent[]; endedAt: number }> {
  const got: SseEvent[] = [];
  for (let e = await next(); e; e = await next()) got.push(e);
  return { events: got, endedAt: performance.now() };
}

/** A browser at the dashboard: its cookies (whatever their paths: every request here is below /dashboard). */
class Dashboard {
  readonly #jar = new Map<string, string>();
  readonly target: Target;
  constructor(target: Target) {
    this.target = target;
  }

  get cookie() {
    return [...this.#jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(`${this.target.baseUrl}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: this.cookie },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.#jar.delete(name);
      else this.#jar.set(name, pair!.slice(eq + 1).trim());
    }
    return res;
  }

  /** Posts `fields` to `action` with the CSRF token of `from`'s page; answers the page's HTML and the reply. */
  async post(from: string, action: string, fields: Record<string, string>): Promise<Response> {
    const html = await (await this.fetch(from)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (!csrf) throw new Error(`no CSRF token on ${from}: ${html.slice(0, 200)}`);
    const reply = await this.fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, ...fields }).toString(),
    });
    await reply.body?.cancel();
    return reply;
  }

  static async signIn(target: Target, email: string): Promise<Dashboard> {
    const browser = new Dashboard(target);
    const reply = await browser.post('/dashboard/sign-in', '/dashboard/sign-in?next=/dashboard/keys', {
      email,
      password: PASSWORD,
    });
    expect(reply.status).toBe(303);
    return browser;
  }

  /** Revokes the key as its owner does: the Revoke button of its row on the keys page. */
  async revokeKey(key: string): Promise<void> {
    const html = await (await this.fetch('/dashboard/keys')).text();
    const row = [...html.matchAll(/<form method="post" action="\/dashboard\/keys\/revoke">[\s\S]*?<\/form>/g)]
      .map((m) => m[0])
      .find((f) => f.includes(`Revoke ${key.slice(0, 12)}`));
    const keyId = row && /name="key_id" value="(\d+)"/.exec(row)?.[1];
    if (!keyId) throw new Error(`no Revoke button for ${key.slice(0, 12)}`);
    const reply = await this.post('/dashboard/keys', '/dashboard/keys/revoke', { key_id: keyId });
    expect(reply.status).toBe(303);
  }
}

/** A user who signs in to the dashboard, with an API key. */
async function userWithKey(target: Target) {
  const { email } = await newUser(target, 'pro');
  const made = await admin(target, ['create-key', '--email', email, '--plan', 'pro']);
  expect(made.code, made.stderr).toBe(0);
  return { email, key: JSON.parse(made.stdout).api_key as string };
}

async function newWebhook(target: Target, key: string): Promise<{ webhook_id: string; webhook_url: string }> {
  const created = await call(target, 'POST', '/api/v1/network/my-webhook-create', { key });
  expect(created.status).toBe(201);
  return created.body;
}

const capture = async (url: string, body: string) => {
  const res = await fetch(url, { method: 'POST', body });
  expect(res.status).toBe(200);
  await res.body?.cancel();
};

describe.each(targets())('revoked credentials end their live requests ($name)', (target) => {
  it('capture streams whose keys are revoked in the dashboard end within 5 s, without what came after', async () => {
    const { email, key } = await userWithKey(target);
    // A second key of the same user, whose stream stays idle: only the periodic check can end it.
    const idleKey = JSON.parse((await admin(target, ['create-key', '--email', email, '--plan', 'pro'])).stdout).api_key;
    const hook = await newWebhook(target, key);
    const idleHook = await newWebhook(target, idleKey);
    const open = async (webhookId: string, apiKey: string) => {
      const res = await fetch(`${target.baseUrl}/api/v1/network/my-webhook-requests/events?webhook_id=${webhookId}`, {
        headers: { 'X-API-Key': apiKey, accept: 'text/event-stream' },
      });
      expect(res.status).toBe(200);
      const next = events(res);
      expect((await next())?.event).toBe('requests'); // what was kept: nothing yet
      return next;
    };
    const next = await open(hook.webhook_id, key);
    const idle = await open(idleHook.webhook_id, idleKey);
    await capture(hook.webhook_url, 'before the revocation');
    expect((await next())?.data.data.requests.map((r: { body: string }) => r.body)).toEqual(['before the revocation']);

    const dashboard = await Dashboard.signIn(target, email);
    await dashboard.revokeKey(key);
    const revokedAt = performance.now();
    const ended = rest(next);
    await capture(hook.webhook_url, 'after the revocation');
    await dashboard.revokeKey(idleKey);
    const idleRevokedAt = performance.now();
    const after = await ended;
    const idleAfter = await rest(idle);
    const closeMs = Math.round(after.endedAt - revokedAt);
    const idleCloseMs = Math.round(idleAfter.endedAt - idleRevokedAt);
    console.log(
      `[${target.name}] capture streams closed ${closeMs} ms (a capture came) and ${idleCloseMs} ms (idle) ` +
        `after their keys were revoked in the dashboard`,
    );

    expect(JSON.stringify(after.events)).not.toContain('after the revocation');
    const revoked = {
      event: 'error',
      data: {
        success: false,
        error_code: 'unauthorized',
        message: 'The API key was revoked (or its account deleted): this stream ended',
      },
    };
    expect(after.events).toEqual([revoked]);
    expect(idleAfter.events).toEqual([revoked]);
    expect(closeMs).toBeLessThan(CLOSES_WITHIN_MS);
    expect(idleCloseMs).toBeLessThan(CLOSES_WITHIN_MS);
    // Opened again (as EventSource and `netops listen` do): 401.
    const path = `/api/v1/network/my-webhook-requests/events?webhook_id=${hook.webhook_id}`;
    expectErrorShape(await call(target, 'GET', path, { key }), 401);
  });

  it('netops listen exits within 5 s when its key is revoked, saying why, without forwarding what came after', {
    timeout: 60_000,
  }, async () => {
    const { email, key } = await userWithKey(target);
    const hook = await newWebhook(target, key);
    const received: Received[] = [];
    const receiver = await startReceiver('127.0.0.1', received, (_got, res) => res.writeHead(204).end());
    try {
      const listen = startCli(
        ['listen', hook.webhook_id, '--forward-to', `${receiver.url}/local`],
        await cliEnv(target.baseUrl, key, { NO_COLOR: '1' }),
      );
      await listen.waitFor(/Forwarding captures/);
      await capture(hook.webhook_url, 'before the revocation');
      await listen.waitFor(/-> 204/);
      const dashboard = await Dashboard.signIn(target, email);
      await dashboard.revokeKey(key);
      const revokedAt = performance.now();
      await capture(hook.webhook_url, 'after the revocation');
      const ended = await listen.ended;
      const closeMs = Math.round(performance.now() - revokedAt);
      console.log(`[${target.name}] netops listen exited ${closeMs} ms after its key was revoked in the dashboard`);
      expect(ended.code).toBe(1);
      expect(ended.stderr).toContain(
        '401 unauthorized: The API key was revoked (or its account deleted): this stream ended',
      );
      expect(received.map((r) => r.body.toString())).toEqual(['before the revocation']);
      expect(closeMs).toBeLessThan(CLOSES_WITHIN_MS);
    } finally {
      await receiver.close();
    }
  });

  it('a wait (my-webhook-wait) whose key is revoked by the admin command answers 401 within 5 s, not the capture', {
    timeout: 60_000,
  }, async () => {
    const { key } = await userWithKey(target);
    const hook = await newWebhook(target, key);
    const waiting = call(target, 'GET', `/api/v1/network/my-webhook-wait?webhook_id=${hook.webhook_id}&timeout=60`, {
      key,
    }).then((reply) => ({ reply, at: performance.now() }));
    await sleep(500);
    // Another process revokes it, straight in the database: no API process is told.
    const revoked = await admin(target, ['revoke-key', '--key', key]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const revokedAt = performance.now();
    await capture(hook.webhook_url, 'after the revocation');
    const { reply, at } = await waiting;
    const closeMs = Math.round(at - revokedAt);
    console.log(`[${target.name}] my-webhook-wait ended ${closeMs} ms after the key was revoked by the admin command`);

    expectErrorShape(reply, 401);
    expect(reply.body.message).toBe('The API key was revoked (or its account deleted)');
    expect(reply.text).not.toContain('after the revocation');
    expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(closeMs).toBeLessThan(CLOSES_WITHIN_MS);
  });

  it('MCP calls waiting for a capture end within 5 s when their app is disconnected, as JSON and as a stream', {
    timeout: 90_000,
  }, async () => {
    const { email, key } = await userWithKey(target);
    const app = await connectedClient(target, email, { name: 'Disconnected while waiting' });
    // Another app of the same user whose call stays idle (no capture, no progress): only the periodic check ends it.
    const idleApp = await connectedClient(target, email, { name: 'Disconnected while idle' });
    const hook = await newWebhook(target, key);
    const idleHook = await newWebhook(target, key);
    const wait = (token: string, webhookId: string, id: number, meta: Record<string, unknown>) =>
      fetch(`${target.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'webhook_wait_for_request', arguments: { webhook_id: webhookId, timeout: 60 }, _meta: meta },
        }),
      }).then(async (res) => ({
        status: res.status,
        type: res.headers.get('content-type'),
        text: await res.text(),
        at: performance.now(),
      }));
    const token = app.oauth.tokens()!.access_token;
    // As JSON (no progress token), and as an event stream (a progress token: progress every 5 s).
    const plain = wait(token, hook.webhook_id, 1, {});
    const streamed = wait(token, hook.webhook_id, 2, { progressToken: 'p' });
    const idle = wait(idleApp.oauth.tokens()!.access_token, idleHook.webhook_id, 3, {});
    await sleep(1500);

    const dashboard = await Dashboard.signIn(target, email);
    const disconnect = async (oauth: typeof app.oauth) => {
      const reply = await dashboard.post('/dashboard/connected-apps', '/dashboard/connected-apps/revoke', {
        client_id: oauth.clientInformation()!.client_id,
      });
      expect(reply.status).toBe(303);
      return performance.now();
    };
    const revokedAt = await disconnect(app.oauth);
    await capture(hook.webhook_url, 'after the revocation');
    const idleRevokedAt = await disconnect(idleApp.oauth);

    for (const [name, answer, id, since] of [
      ['as JSON (a capture came)', await plain, 1, revokedAt],
      ['as an event stream (a capture came)', await streamed, 2, revokedAt],
      ['as JSON (idle)', await idle, 3, idleRevokedAt],
    ] as const) {
      const closeMs = Math.round(answer.at - since);
      console.log(
        `[${target.name}] MCP webhook_wait_for_request ${name} ended ${closeMs} ms after the app was disconnected`,
      );
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain('after the revocation');
      const messages = answer.type?.startsWith('text/event-stream')
        ? [...answer.text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!))
        : [JSON.parse(answer.text)];
      expect(messages.at(-1)).toEqual({
        jsonrpc: '2.0',
        id,
        error: {
          code: -32000,
          message: 'The access token was revoked (its app was disconnected, or its account deleted): this call ended',
        },
      });
      expect(closeMs).toBeLessThan(CLOSES_WITHIN_MS);
    }
    expect((await plain).type).toMatch(/^application\/json/);
    expect((await streamed).type).toMatch(/^text\/event-stream/);
  });

  it('a dashboard stream ends within 5 s when its session signs out', async () => {
    const { email, key } = await userWithKey(target);
    const hook = await newWebhook(target, key);
    const dashboard = await Dashboard.signIn(target, email);
    const res = await dashboard.fetch(`/dashboard/webhooks/${hook.webhook_id}/events`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(res.status).toBe(200);
    const next = events(res);
    expect((await next())?.event).toBe('requests');

    const signedOut = await dashboard.post('/dashboard/keys', '/dashboard/sign-out', {});
    expect(signedOut.status).toBe(303);
    const revokedAt = performance.now();
    await capture(hook.webhook_url, 'after signing out');
    const after = await rest(next);
    const closeMs = Math.round(after.endedAt - revokedAt);
    console.log(`[${target.name}] dashboard stream closed ${closeMs} ms after its session signed out`);
    expect(JSON.stringify(after.events)).not.toContain('after signing out');
    expect(after.events).toEqual([
      {
        event: 'error',
        data: {
          success: false,
          error_code: 'unauthorized',
          message: 'The dashboard session ended (signed out, expired, or its account deleted): this stream ended',
        },
      },
    ]);
    expect(closeMs).toBeLessThan(CLOSES_WITHIN_MS);
  });
});
