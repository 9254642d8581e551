// Server-Sent Events for live views: the same shapes as the polling endpoints, pushed when they
// change. The stream polls its source (the database: every API process sees every change), sends an
// event when there is something new, a comment every KEEPALIVE_MS so proxies keep it open, and ends
// when the source says so or the client goes away.
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';

export const SSE_POLL_MS = 1000;
const KEEPALIVE_MS = 15_000;
/** A stream ends after this long; browsers' EventSource reconnects by itself. */
export const MAX_STREAM_MS = 30 * 60 * 1000;
const MAX_BUFFERED_BYTES = 1024 * 1024;

export interface SseTick {
  /** Events to send now (none when nothing changed); an `id` is what a reconnecting client sends back as Last-Event-ID. */
  events: Array<{ event: string; data: unknown; id?: string }>;
  /** True after the last event: the stream ends. */
  done: boolean;
}

export function startSse(ctx: Context, tick: () => Promise<SseTick>, pollMs = SSE_POLL_MS): void {
  const stream = new PassThrough();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  ctx.body = stream;

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let lastWrite = Date.now();
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    stream.end();
  };
  // The response closes when the client goes away (or the stream ends): stop polling then. A client
  // that left while the stream was being set up closed it already.
  ctx.res.once('close', close);
  if (ctx.res.destroyed || ctx.req.socket.destroyed) close();
  const ends = Date.now() + MAX_STREAM_MS;
  const write = (chunk: string) => {
    lastWrite = Date.now();
    stream.write(chunk);
  };
  stream.write('retry: 3000\n\n');

  const run = async () => {
    if (closed) return;
    // A client that reads nothing, or a stream open past its lifetime, is let go (EventSource reconnects).
    if (stream.writableLength > MAX_BUFFERED_BYTES || Date.now() > ends || ctx.res.destroyed) return close();
    try {
      const { events, done } = await tick();
      for (const e of events) write(`${e.id === undefined ? '' : `id: ${e.id}\n`}event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
      if (done) return close();
      if (Date.now() - lastWrite >= KEEPALIVE_MS) write(': keepalive\n\n');
    } catch (err) {
      write(`event: error\ndata: ${JSON.stringify({ success: false, message: (err as Error).message })}\n\n`);
      return close();
    }
    if (!closed) timer = setTimeout(run, pollMs);
  };
  void run();
}
