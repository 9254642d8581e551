// The webhook developer's loop sends and shows what the sender sent and what it was answered, against
// the real service: a capture's query string goes out byte for byte (percent-encodings, an empty
// value, repeated names in their order, and the quotes and angle brackets a URL parser would re-spell)
// when the service forwards it (forward_url), when `netops listen` forwards it, and when it is replayed
// (my-webhook-replay and `netops webhook replay --to`); the HAR export carries it and the status each
// capture was answered with (a rule's 409, the webhook's response's 202, a CORS preflight's 200), and
// the listings (the API's, `netops webhook requests`) show that status.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkApi, newAccount, targets } from '../support/client.ts';
import { cliEnv, runCli, startCli } from '../support/cli.ts';
import { startReceiver, type Received, type Receiver } from '../support/receiver.ts';

const QUERY = 'q=%20space&empty=&b=2&a=1&b=1';
/** Characters a sender may send raw that URL parsers re-spell (`%22`, `%3C`, `%3E`, `%27`). */
const RAW_QUERY = `v="1"&w=<x>&s='y'`;

/** Sends `POST path` with the request target exactly as given (fetch would re-spell it). */
function sendRaw(url: string, path: string, body: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method: 'POST', path, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode!));
    });
    req.once('error', reject);
    req.end(body);
  });
}

describe.each(targets())('a capture as sent and as answered ($name)', (target) => {
  const account = newAccount(target);
  const api = networkApi(target, account);
  const env = async () => cliEnv(target.baseUrl, (await account).key, { NO_COLOR: '1' });
  const received: Received[] = [];
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver('127.0.0.1', received, (_got, res) => res.writeHead(204).end());
  });
  afterAll(() => receiver.close());
  /** The URL the receiver got under `prefix`, once it came. */
  const arrived = async (prefix: string, ms = 30_000) => {
    const until = Date.now() + ms;
    for (;;) {
      const got = received.filter((r) => r.url.startsWith(prefix)).map((r) => r.url);
      if (got.length >= 2 || Date.now() > until) return got.sort();
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('forwards, listens and replays the query string byte for byte; shows it and keeps the parsed pairs', {
    timeout: 120_000,
  }, async () => {
    const created = await api('POST', 'my-webhook-create', { forward_url: `${receiver.url}/fwd` });
    expect(created.status, created.text).toBe(201);
    const { webhook_id: id, webhook_url: hookUrl } = created.body as { webhook_id: string; webhook_url: string };
    const sent = await fetch(`${hookUrl}/orders?${QUERY}`, { method: 'POST', body: 'percent' });
    expect(sent.status).toBe(200);
    expect(await sendRaw(hookUrl, `/webhook/${id}/raw?${RAW_QUERY}`, 'raw')).toBe(200);
    const wanted = [`/orders?${QUERY}`, `/raw?${RAW_QUERY}`];

    const listed = (await api('GET', `my-webhook-requests?webhook_id=${id}`)).body.data.requests as any[];
    const [raw, percent] = listed;
    expect(percent).toMatchObject({ query_string: QUERY, answered_status: 200, matched_rule: null });
    expect(JSON.parse(percent.query_params)).toEqual({ q: ' space', empty: '', b: ['2', '1'], a: '1' });
    expect(raw).toMatchObject({ query_string: RAW_QUERY, answered_status: 200 });

    // The service's forward (a Temporal activity), to forward_url.
    expect(await arrived('/fwd/')).toEqual(wanted.map((w) => `/fwd${w}`));

    // The service's replay, to a URL the user names: what it says it sent is what arrived.
    for (const c of [percent, raw]) {
      const replayed = await api('POST', 'my-webhook-replay', {
        webhook_id: id,
        request_id: c.id,
        target_url: `${receiver.url}/replay`,
      });
      expect(replayed.status, replayed.text).toBe(200);
      expect(replayed.body.target_url).toBe(
        `${receiver.url}/replay${c.path.slice(`/webhook/${id}`.length)}?${c.query_string}`,
      );
    }
    expect(await arrived('/replay/')).toEqual(wanted.map((w) => `/replay${w}`));

    // netops webhook replay --to: sent from the machine the command runs on.
    for (const c of [percent, raw]) {
      const run = await runCli(['webhook', 'replay', id, String(c.id), '--to', `${receiver.url}/cli`], await env());
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(`→ 204`);
    }
    expect(await arrived('/cli/')).toEqual(wanted.map((w) => `/cli${w}`));

    // netops listen: its first run forwards what the webhook keeps.
    const listen = startCli(['listen', id, '--forward-to', `${receiver.url}/listen`], await env());
    try {
      await listen.waitFor(/Forwarding captures of/);
      expect(await arrived('/listen/')).toEqual(wanted.map((w) => `/listen${w}`));
      // Its line per capture shows the query as sent.
      await listen.waitFor(/\/raw\?v="1"&w=<x>&s='y'\s+->\s+204/);
      expect(listen.stdout() + listen.stderr()).toContain(`/orders?${QUERY}`);
    } finally {
      listen.child.kill('SIGINT');
      await listen.ended;
    }

    // Listings show it as sent.
    const requests = await runCli(['webhook', 'requests', id], await env());
    expect(requests.code, requests.stderr).toBe(0);
    expect(requests.stdout).toContain(`/orders?${QUERY}`);
    expect(requests.stdout).toContain(`/raw?${RAW_QUERY}`);

    // The HAR export: the URL as sent, and its pairs in their order, spelled as sent.
    const har = (await (
      await fetch(`${target.baseUrl}/api/v1/network/my-webhook-export?webhook_id=${id}&format=har`, {
        headers: { 'X-API-Key': (await account).key },
      })
    ).json()) as any;
    const entry = har.log.entries.find((e: any) => e._capture_id === percent.id);
    expect(entry.request.url).toBe(`${hookUrl}/orders?${QUERY}`);
    expect(entry.request.queryString).toEqual([
      { name: 'q', value: '%20space' },
      { name: 'empty', value: '' },
      { name: 'b', value: '2' },
      { name: 'a', value: '1' },
      { name: 'b', value: '1' },
    ]);
    expect(har.log.entries.find((e: any) => e._capture_id === raw.id).request.url).toBe(`${hookUrl}/raw?${RAW_QUERY}`);
  });

  it('records the status each capture was answered with: in the API, the HAR export and netops webhook requests', {
    timeout: 60_000,
  }, async () => {
    const created = await api('POST', 'my-webhook-create', {
      rules: [{ match: { path: '/dup' }, response: { status: 409, body: 'exists' } }],
      response: { status: 202, body: 'accepted' },
    });
    expect(created.status, created.text).toBe(201);
    const { webhook_id: id, webhook_url: hookUrl } = created.body as { webhook_id: string; webhook_url: string };
    expect((await fetch(`${hookUrl}/dup?x=1`, { method: 'POST', body: '{}' })).status).toBe(409);
    expect((await fetch(`${hookUrl}/new`, { method: 'POST', body: '{}' })).status).toBe(202);
    // A browser's CORS preflight gets the CORS answer, whatever the owner set.
    const preflight = await fetch(`${hookUrl}/cors`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(200);

    const listed = (await api('GET', `my-webhook-requests?webhook_id=${id}`)).body.data.requests as any[];
    expect(listed.map((r) => [r.path.slice(`/webhook/${id}`.length), r.answered_status, r.matched_rule])).toEqual([
      ['/cors', 200, null],
      ['/new', 202, null],
      ['/dup', 409, 0],
    ]);

    const res = await fetch(`${target.baseUrl}/api/v1/network/my-webhook-export?webhook_id=${id}&format=har`, {
      headers: { 'X-API-Key': (await account).key },
    });
    expect(res.status).toBe(200);
    const entries = ((await res.json()) as any).log.entries as any[];
    expect(entries.map((e) => [e.request.url, e.response.status, e.response.statusText])).toEqual([
      [`${hookUrl}/cors`, 200, 'OK'],
      [`${hookUrl}/new`, 202, 'Accepted'],
      [`${hookUrl}/dup?x=1`, 409, 'Conflict'],
    ]);
    // Nothing claims an empty answer: what was answered besides the status is not kept.
    for (const e of entries) expect(e.response).toMatchObject({ bodySize: -1, content: { size: -1 } });

    const run = await runCli(['webhook', 'requests', id], await env());
    expect(run.code, run.stderr).toBe(0);
    const line = (path: string) => run.stdout.split('\n').find((l) => l.includes(` ${path} `)) ?? '';
    expect(line('/dup?x=1')).toMatch(/answered 409, rule 0/);
    expect(line('/new')).toMatch(/answered 202/);
    expect(line('/cors')).not.toMatch(/answered/);
  });
});
