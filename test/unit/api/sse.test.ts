// A stream stops polling its source as soon as the client goes away, and ends when the source is done.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { csvFormat, NDJSON, startSse, startStream, type SseOptions } from '../../../api/sse.ts';
import { credentialChecks } from '../../../lib/auth/credential-checks.ts';

const servers: http.Server[] = [];
afterEach(() => Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r)))));

async function serve(
  tick: () => Promise<{ events: Array<{ event: string; data: unknown }>; done: boolean }>,
  options: SseOptions = { pollMs: 50 },
): Promise<string> {
  const app = new Koa();
  app.use((ctx) => startSse(ctx, tick, options));
  const server = http.createServer(app.callback());
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('startSse', () => {
  it('writes nothing after the client left: not when it left before the stream began, nor during a look', async () => {
    const errors: unknown[] = [];
    const app = new Koa();
    app.use(async (ctx) => {
      const left = new Promise((r) => ctx.res.once('close', r));
      // The look answers after the client left.
      const late = async () => {
        await left;
        return { events: [{ event: 'n', data: 1 }], done: false };
      };
      if (ctx.path === '/before') await left;
      startSse(ctx, late, { pollMs: 50 });
      // (Koa ends the body with a premature close when the client leaves: that one is not ours.)
      (ctx.body as NodeJS.EventEmitter).on(
        'error',
        (err: NodeJS.ErrnoException) => err.code !== 'ERR_STREAM_PREMATURE_CLOSE' && errors.push(err),
      );
    });
    const server = http.createServer(app.callback());
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const path of ['/before', '/during']) {
      const controller = new AbortController();
      const res = fetch(`${base}${path}`, { signal: controller.signal }).catch(() => undefined);
      await sleep(100);
      controller.abort();
      await res;
      await sleep(150);
    }
    expect(errors).toEqual([]);
  });

  it('stops polling when the client disconnects', async () => {
    let ticks = 0;
    const url = await serve(async () => ({ events: [{ event: 'n', data: ++ticks }], done: false }));
    const controller = new AbortController();
    const res = await fetch(url, { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    await sleep(200);
    expect(ticks).toBeGreaterThan(1);
    controller.abort();
    await sleep(150);
    const atClose = ticks;
    await sleep(400);
    expect(ticks).toBe(atClose);
  });

  it('with a wake-up, looks at its source only when woken, and stops listening when the client goes', async () => {
    let ticks = 0;
    const listeners = new Set<() => void>();
    const url = await serve(async () => ({ events: [{ event: 'n', data: ++ticks }], done: false }), {
      pollMs: 10_000,
      wakeMs: 50,
      wake: (notify) => {
        listeners.add(notify);
        return () => listeners.delete(notify);
      },
    });
    const controller = new AbortController();
    const reader = (await fetch(url, { signal: controller.signal })).body!.getReader();
    await reader.read();
    await sleep(300);
    expect(ticks).toBe(1); // idle: no look at the source
    for (const notify of listeners) notify();
    await sleep(100);
    expect(ticks).toBe(2);
    // However often the source changes, it is looked at once per wakeMs at most (pollMs plays no part).
    for (let i = 0; i < 20; i++) {
      for (const notify of listeners) notify();
      await sleep(5);
    }
    await sleep(100);
    expect(ticks).toBeGreaterThan(2);
    expect(ticks).toBeLessThanOrEqual(2 + Math.ceil(200 / 50) + 1);
    controller.abort();
    await sleep(150);
    expect(listeners.size).toBe(0);
  });

  it('sends events in order and ends the response when the source is done', async () => {
    let n = 0;
    const url = await serve(async () => ({ events: [{ event: 'step', data: { n: ++n } }], done: n >= 3 }));
    const text = await (await fetch(url)).text();
    expect(text).toBe(
      'retry: 3000\n\nevent: step\ndata: {"n":1}\n\nevent: step\ndata: {"n":2}\n\nevent: step\ndata: {"n":3}\n\n',
    );
  });
  it('writes the same looks as NDJSON lines or CSV rows under a header, quoting what needs it', async () => {
    const looks = () => {
      let n = 0;
      return async () => {
        n += 1;
        return {
          events: [{ event: 'row', data: n === 1 ? { a: 1, b: 'x,"y"' } : { a: 2, b: 'z' } }],
          done: n === 2,
        };
      };
    };
    const app = new Koa();
    app.use((ctx) => startStream(ctx, looks(), ctx.path === '/csv' ? csvFormat(['a', 'b']) : NDJSON, { pollMs: 20 }));
    const server = http.createServer(app.callback());
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ndjson = await fetch(`${base}/ndjson`);
    expect(ndjson.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(await ndjson.text()).toBe(`${JSON.stringify({ a: 1, b: 'x,"y"' })}\n${JSON.stringify({ a: 2, b: 'z' })}\n`);
    const csv = await fetch(`${base}/csv`);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(await csv.text()).toBe('a,b\r\n1,"x,""y"""\r\n2,z\r\n');
  });

  it(
    "ends when the request's credential is revoked, " + 'saying so, and sends nothing read after the revocation',
    async () => {
      const checks = credentialChecks({ everyMs: 50 });
      let holds = true;
      const credential = checks.credential('api-key:1', async () => holds, { message: 'The API key was revoked' });
      let n = 0;
      const app = new Koa();
      app.use((ctx) => {
        ctx.state.credential = credential;
        startSse(
          ctx,
          async () => {
            n += 1;
            if (n === 3) holds = false; // revoked just before this look read its event
            return { events: [{ event: 'step', data: { n } }], done: false };
          },
          { pollMs: 20 },
        );
      });
      const server = http.createServer(app.callback());
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

      const sse = await (await fetch(`${base}/sse`)).text();
      expect(sse).toBe(
        'retry: 3000\n\nevent: step\ndata: {"n":1}\n\nevent: step\ndata: {"n":2}\n\n' +
          'event: error\ndata: {"success":false,"error_code":"unauthorized","message":"The API key was ' +
          'revoked: this stream ended"}\n\n',
      );
      expect(checks.following).toBe(0);

      // Idle (its source has nothing new): the periodic check ends it.
      holds = true;
      n = 10;
      let looks = 0;
      const idle = new Koa();
      idle.use((ctx) => {
        ctx.state.credential = credential;
        startStream(
          ctx,
          async () => {
            looks += 1;
            return { events: [], done: false };
          },
          NDJSON,
          { pollMs: 20 },
        );
      });
      const idleServer = http.createServer(idle.callback());
      servers.push(idleServer);
      await new Promise<void>((r) => idleServer.listen(0, '127.0.0.1', r));
      const began = Date.now();
      const reply = fetch(`http://127.0.0.1:${(idleServer.address() as AddressInfo).port}/`).then((r) => r.text());
      await sleep(120);
      expect(looks).toBeGreaterThan(1);
      holds = false;
      const revoked = {
        success: false,
        error_code: 'unauthorized',
        message: 'The API key was revoked: this stream ended',
      };
      expect(await reply).toBe(`${JSON.stringify(revoked)}\n`);
      expect(Date.now() - began).toBeLessThan(1000);
    },
  );
});
