// Server-Sent Events for live views: the same shapes as the polling endpoints, pushed when they
// change. A stream asks its source (`tick`) for news either when it is woken (`wake`: a notification
// that the source changed, from the key-value store's publish/subscribe, so an idle stream costs no
// query) or, for sources whose answer changes with time (a running load test's progress), every
// `pollMs`. It sends an event when there is something new, a comment every KEEPALIVE_MS so proxies
// keep it open, renews its plan slot (`lease`) meanwhile, and ends when the source says so, the client
// goes away, or MAX_STREAM_MS has passed (EventSource reconnects by itself). It also ends when the
// credential that opened it (`ctx.state.credential`, set by each door's auth) is revoked: found within
// CREDENTIAL_CHECK_MS, and confirmed before each event is sent, so nothing read after the revocation is
// sent; it says so in a last failure (`event: error`, error_code `unauthorized`) where its format can.
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { Credential } from '../lib/auth/credential-checks.ts';
import type { StreamLease } from './services/streams.ts';

export const SSE_POLL_MS = 1000;
/**
 * A woken stream looks again after at least this long, and at least as long as its last look took:
 * a burst of notifications is one look, a capture reaches the client tens of milliseconds after it is
 * stored, and a stream under a flood spends at most half its time looking.
 */
export const SSE_WAKE_MS = 25;
const KEEPALIVE_MS = 15_000;
/** A stream ends after this long; browsers' EventSource reconnects by itself. */
export const MAX_STREAM_MS = 30 * 60 * 1000;
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** What a stream cut before its source ended says (its lifetime, a reader too slow, its plan slot lost). */
const CUT = 'the stream ended before what it follows did: open it again to go on';

export interface SseTick {
  /**
   * Events to send now (none when nothing changed); an `id` is what a reconnecting client sends back
   * as Last-Event-ID.
   */
  events: Array<{ event: string; data: unknown; id?: string }>;
  /** True after the last event: the stream ends. */
  done: boolean;
  /** The source has more to send now (a client catching up a page at a time): look again at once. */
  more?: boolean;
}

export interface SseOptions {
  /** The stream's slot of its user's plan: renewed while it lives, freed when it ends. */
  lease?: StreamLease;
  /** Subscribes `notify` to changes of the source; returns the unsubscribe. Without it, the stream polls. */
  wake?: (notify: () => void) => () => void;
  /** How often a stream without `wake` looks. */
  pollMs?: number;
  /** The least time between two looks of a woken stream (SSE_WAKE_MS). */
  wakeMs?: number;
}

/** How a stream writes: its type, its first text, each event, a failure, and its keepalive (null: none). */
export interface StreamFormat {
  contentType: string;
  opening: string;
  encode(event: SseTick['events'][number]): string;
  /** A last failure; `code` (lib/errors.ts) names its kind where it has one (`unauthorized`: credential revoked). */
  failure(message: string, code?: string): string;
  keepalive: string | null;
  /**
   * A stream cut before its source ended (its lifetime, a slow reader, its slot lost) says so in a
   * last failure (NDJSON)...
   */
  saysWhenCut?: boolean;
  /** ...or is cut on the wire too (CSV cannot say so in its rows). SSE ends quietly: EventSource reconnects. */
  abortIncomplete?: boolean;
}

const failureOf = (message: string, code?: string) =>
  code === undefined ? { success: false, message } : { success: false, error_code: code, message };

/** Server-Sent Events (EventSource reconnects after 3 s). */
const SSE: StreamFormat = {
  contentType: 'text/event-stream; charset=utf-8',
  opening: 'retry: 3000\n\n',
  encode: (e) => `${e.id === undefined ? '' : `id: ${e.id}\n`}event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`,
  failure: (message, code) => `event: error\ndata: ${JSON.stringify(failureOf(message, code))}\n\n`,
  keepalive: ': keepalive\n\n',
};

/** Each event's data as one JSON line (NDJSON); a failure as a last line {success: false, message}. */
export const NDJSON: StreamFormat = {
  contentType: 'application/x-ndjson; charset=utf-8',
  opening: '',
  encode: (e) => `${JSON.stringify(e.data)}\n`,
  failure: (message, code) => `${JSON.stringify(failureOf(message, code))}\n`,
  keepalive: null,
  saysWhenCut: true,
};

/** Each event's data as a CSV row (RFC 4180) of `columns`, under a header row; a failure ends the rows. */
export function csvFormat(columns: readonly string[]): StreamFormat {
  const cell = (v: unknown) => {
    const text = v === null || v === undefined ? '' : String(v);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return {
    contentType: 'text/csv; charset=utf-8; header=present',
    opening: `${columns.join(',')}\r\n`,
    encode: (e) => `${columns.map((c) => cell((e.data as Record<string, unknown>)[c])).join(',')}\r\n`,
    failure: () => '',
    keepalive: null,
    abortIncomplete: true,
  };
}

export function startSse(ctx: Context, tick: () => Promise<SseTick>, options: SseOptions = {}): void {
  startStream(ctx, tick, SSE, options);
}

/**
 * A live stream in `format` (SSE, NDJSON, CSV): the same looks at the source, lease and lifetime.
 * The status and headers are sent at once: it is the last thing a handler does (what throws before
 * it, a 404 or a 429, is still answered as an error).
 */
export function startStream(
  ctx: Context,
  tick: () => Promise<SseTick>,
  format: StreamFormat,
  options: SseOptions = {},
): void {
  const { lease, wake, pollMs = SSE_POLL_MS, wakeMs = SSE_WAKE_MS } = options;
  const stream = new PassThrough();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.set({
    'Content-Type': format.contentType,
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  ctx.body = stream;
  // The status and headers now, whatever the first text waits for (NDJSON and CSV have none before their first row).
  ctx.flushHeaders();

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let woken = false;
  let lastRun = 0;
  let lastLookMs = 0;
  let lastWrite = Date.now();
  let unsubscribe = () => {};
  const credential = (ctx.state as { credential?: Credential } | undefined)?.credential?.watch();
  const lookAgain = () => void run();
  /** `cut`: the stream ends before its source did (said in the format's way, or on the wire when it cannot). */
  const close = (cut: 'no' | 'said' | 'unsaid' = 'no') => {
    if (closed) return;
    if (cut === 'unsaid' && format.saysWhenCut && !ctx.res.destroyed) write(format.failure(CUT));
    closed = true;
    clearTimeout(timer);
    stream.off('drain', lookAgain);
    clearInterval(keeper);
    unsubscribe();
    credential?.stop();
    if (cut !== 'no' && format.abortIncomplete) ctx.res.destroy();
    else stream.end();
    lease?.release().catch(() => {}); // a slot not freed here expires by itself
  };
  const ends = Date.now() + MAX_STREAM_MS;
  // Nothing is written once closed (a client that left while a look was under way, or before the
  // first line): a write after the end is an 'error' on the stream, which nothing handles, and it
  // ended the whole process.
  const write = (chunk: string) => {
    if (closed) return;
    lastWrite = Date.now();
    stream.write(chunk);
  };
  /** A client that reads nothing, or a stream open past its lifetime, is let go. */
  const overdue = () => stream.writableLength > MAX_BUFFERED_BYTES || Date.now() > ends || ctx.res.destroyed;

  // Whatever the source does: keepalive comments, the lease renewed, the lifetime kept.
  const keeper = setInterval(async () => {
    if (closed) return;
    if (overdue()) return close('unsaid');
    if (format.keepalive !== null && Date.now() - lastWrite >= KEEPALIVE_MS) write(format.keepalive);
    try {
      if (lease && !(await lease.renew())) close('unsaid'); // the slot was lost and the plan's are all taken now
    } catch {
      // The store is unreachable: keep streaming; the slot expires by itself if this goes on.
    }
  }, KEEPALIVE_MS);
  // The response closes when the client goes away (or the stream ends): stop then. A client that
  // left while the stream was being set up closed it already.
  ctx.res.once('close', () => close());
  if (ctx.res.destroyed || ctx.req.socket.destroyed) close();
  // The credential was revoked: a last failure says so, and nothing more is sent.
  credential?.signal.addEventListener(
    'abort',
    () => {
      if (closed) return;
      write(format.failure(`${(credential.signal.reason as Error).message}: this stream ended`, 'unauthorized'));
      close('said');
    },
    { once: true },
  );

  const run = async () => {
    if (closed) return;
    if (overdue()) return close('unsaid');
    if (running) {
      woken = true; // looked at again once this look ends
      return;
    }
    running = true;
    let more = false;
    lastRun = Date.now();
    try {
      const answer = await tick();
      // What was read goes out only if the credential still holds now (else the abort above ended the stream).
      if (answer.events.length > 0 && credential && !(await credential.confirm())) return;
      for (const e of answer.events) write(format.encode(e));
      if (answer.done) return close();
      more = answer.more === true;
    } catch (err) {
      write(format.failure((err as Error).message));
      return close('said');
    } finally {
      running = false;
      lastLookMs = Date.now() - lastRun;
    }
    if (closed) return;
    // More to send now: once the client has read what was written (a slow reader is not buried).
    if (more) {
      clearTimeout(timer);
      if (stream.writableNeedDrain) stream.once('drain', lookAgain);
      else timer = setTimeout(run, 0);
      return;
    }
    if (!wake) timer = setTimeout(run, pollMs);
    else if (woken) wakeUp(); // a change that came while we looked
  };
  /** Looks again wakeMs (or the last look's time, if longer) after the last look ended, however often it changes. */
  const wakeUp = () => {
    woken = false;
    clearTimeout(timer);
    timer = setTimeout(run, Math.max(0, lastRun + lastLookMs + Math.max(wakeMs, lastLookMs) - Date.now()));
  };

  if (wake && !closed) {
    unsubscribe = wake(() => {
      if (closed) return;
      if (running) woken = true;
      else wakeUp();
    });
  }
  if (format.opening) write(format.opening);
  void run();
}
