// `netops listen --forward-to`: every capture reaches a local receiver once, byte for byte, while the
// API process it follows restarts, and a listen started again forwards only what came meanwhile.
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { call, newAccount, targets } from '../support/client.ts';
import { cliEnv, startCli, type CliProcess } from '../support/cli.ts';
import { freePort, startApp, type AppProcess } from '../support/processes.ts';
import { startReceiver, type Received } from '../support/receiver.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One capture: a new connection each (no kept-alive request racing the API's shutdown), retried while the API is down.
 */
async function capture(baseUrl: string, webhookId: string, i: number): Promise<void> {
  const body = Buffer.from([i & 0xff, 0x00, 0xff, 0xfe, ...Buffer.from(`capture ${i}`)]);
  for (;;) {
    const status = await new Promise<number | null>((resolve) => {
      const req = http.request(
        `${baseUrl}/webhook/${webhookId}/events/${i}?n=${i}&tag=a&tag=b`,
        {
          method: 'POST',
          agent: false,
          headers: { 'content-type': 'application/octet-stream', 'x-seq': String(i), 'x-custom': `value ${i}` },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? null));
        },
      );
      req.on('error', () => resolve(null));
      req.end(body);
    });
    if (status === 200) return;
    await sleep(200);
  }
}

describe.each(targets())('netops listen ($name)', (target) => {
  const procs: Array<{ stop(): Promise<void> } | CliProcess> = [];
  afterAll(async () => {
    for (const p of procs) {
      if ('child' in p) p.child.kill('SIGKILL');
      else await p.stop();
    }
  });

  it('forwards 200 captures exactly once across an API restart; a restarted listen only what came meanwhile, ' +
    'a burst too; --from-now nothing before it', {
    timeout: 240_000,
  }, async () => {
    const received: Received[] = [];
    const receiver = await startReceiver('127.0.0.1', received, (_got, res) => res.writeHead(204).end());
    procs.push({ stop: () => receiver.close() });
    // An API process of this test's own, on the shared stores, so restarting it leaves the suite's alone.
    const apiEnv = { ...target.env, ROLE: 'api', PORT: String(await freePort()) };
    let api: AppProcess = await startApp(apiEnv);
    procs.push({ stop: () => api.stop() });
    const { key } = await newAccount(target);
    const hook = (
      await call(target, 'POST', '/api/v1/network/my-webhook-create', {
        key,
        json: { retention: { max_requests: 2000 } },
      })
    ).body;
    const env = await cliEnv(api.baseUrl, key, { NO_COLOR: '1' });

    const args = ['listen', hook.webhook_id, '--forward-to', `${receiver.url}/local/base?from=listen`];
    let listen = startCli(args, env);
    procs.push(listen);
    await listen.waitFor(/Forwarding captures/);

    let sent = 0;
    const sending = (async () => {
      for (let i = 0; i < 200; i++) {
        await capture(api.baseUrl, hook.webhook_id, i);
        sent = i + 1;
        await sleep(10);
      }
    })();
    while (sent < 100) await sleep(20);
    await api.stop();
    api = await startApp(apiEnv);
    await sending;

    /** Until `n` arrived, then 1.5 s more: a repeat would come in them. */
    const arrivals = async (n: number) => {
      const until = Date.now() + 60_000;
      while (received.length < n && Date.now() < until) await sleep(100);
      await sleep(1500);
    };
    await arrivals(200);
    expect(listen.stderr()).toMatch(/Disconnected/); // the restart was seen, and survived
    const check = (from: number, to: number) => {
      const seqs = received.map((r) => Number(r.headers['x-seq'])).sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: to - from }, (_, k) => from + k));
      for (const r of received) {
        const i = Number(r.headers['x-seq']);
        expect(r.method).toBe('POST');
        expect(r.url).toBe(`/local/base/events/${i}?from=listen&n=${i}&tag=a&tag=b`);
        expect(r.headers['x-custom']).toBe(`value ${i}`);
        expect(r.headers['content-type']).toBe('application/octet-stream');
        expect(r.body.equals(Buffer.from([i & 0xff, 0x00, 0xff, 0xfe, ...Buffer.from(`capture ${i}`)]))).toBe(true);
      }
    };
    check(0, 200);
    expect(listen.stdout().trim().split('\n')).toHaveLength(200);
    expect(listen.stdout()).toMatch(/\d\d:\d\d:\d\d {2}POST {3}\/events\/199\?n=199&tag=a&tag=b {2}-> 204 [\d.]+ ms\n/);

    // Killed outright: what arrives meanwhile is forwarded by the next listen, and nothing before it.
    listen.child.kill('SIGKILL');
    await listen.ended;
    received.length = 0;
    for (let i = 200; i < 220; i++) await capture(api.baseUrl, hook.webhook_id, i);
    listen = startCli(args, env);
    procs.push(listen);
    await arrivals(20);
    check(200, 220);

    // Killed again; meanwhile 600 captures from 8 senders at once (batches commit out of id order, and
    // more than a page of them waits): the next listen forwards each once.
    listen.child.kill('SIGKILL');
    await listen.ended;
    received.length = 0;
    const next = { i: 220 };
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next.i < 820) await capture(api.baseUrl, hook.webhook_id, next.i++);
      }),
    );
    listen = startCli(args, env);
    procs.push(listen);
    await arrivals(600);
    check(220, 820);

    // Ctrl-C ends it well.
    listen.child.kill('SIGINT');
    expect((await listen.ended).code).toBe(0);

    // --from-now, in a fresh config folder: nothing of the 820 kept, only what comes after.
    received.length = 0;
    const fresh = startCli([...args, '--from-now'], await cliEnv(api.baseUrl, key, { NO_COLOR: '1' }));
    procs.push(fresh);
    await fresh.waitFor(/Forwarding captures/);
    await capture(api.baseUrl, hook.webhook_id, 820);
    await fresh.waitFor(/\/events\/820/);
    await sleep(1500);
    check(820, 821);
    fresh.child.kill('SIGINT');
    expect((await fresh.ended).code).toBe(0);
  });
});
