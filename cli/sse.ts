// Server-Sent Events of the API (a webhook's captures, a load test's status), read from fetch's body
// with eventsource-parser, and `follow`: a stream kept open across the service restarting and the
// network dropping, reconnecting with backoff, and opened again when no byte came for `idleMs` (the
// service writes a keepalive every 15 s, so silence means a connection that died without a word:
// a laptop that slept, a Wi-Fi switch, a NAT that forgot it).
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { ApiError, NetworkError } from './errors.ts';

export interface ServerEvent {
  event: string;
  id: string | undefined;
  /** The event's JSON data (the reader knows the shape its stream sends). */
  data: unknown;
}

export async function* serverEvents(body: ReadableStream | null): AsyncGenerator<ServerEvent> {
  if (!body) return;
  const events = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const e of events) {
    let data: unknown = e.data;
    try {
      data = JSON.parse(e.data);
    } catch {
      // not JSON: kept as text
    }
    yield { event: e.event ?? 'message', id: e.id, data };
  }
}

export interface FollowOptions {
  /** Opens the stream (a fresh Last-Event-ID each time, where the caller keeps one). */
  open: (signal: AbortSignal) => Promise<Response>;
  /** Each event; throwing ends the follow with that error. */
  onEvent: (event: ServerEvent) => Promise<void> | void;
  /** True once nothing more is wanted (the stream's source ended). */
  finished: () => boolean;
  stop: AbortSignal;
  onDisconnect: (reason: string, waitMs: number) => void;
  /** Connections in a row that fail before the follow gives up (default: never). */
  maxFailures?: number;
  idleMs?: number;
}

const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;

/** Follows a stream until `finished()`, `stop` aborts, or a failure no retry can change (401, 404, ...). */
export async function follow(o: FollowOptions): Promise<void> {
  const idleMs = o.idleMs ?? 45_000;
  let backoff = FIRST_BACKOFF_MS;
  let failures = 0;
  while (!o.stop.aborted && !o.finished()) {
    const idle = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), idleMs);
    };
    let reason = 'the service ended the stream';
    let waitMs = backoff;
    try {
      touch();
      const res = await o.open(AbortSignal.any([o.stop, idle.signal]));
      const tap = new TransformStream({
        transform: (chunk, out) => {
          touch();
          out.enqueue(chunk);
        },
      });
      for await (const event of serverEvents(res.body ? res.body.pipeThrough(tap) : null)) {
        if (event.event !== 'error') {
          backoff = FIRST_BACKOFF_MS;
          failures = 0;
        }
        await o.onEvent(event);
        if (o.finished() || o.stop.aborted) return;
      }
    } catch (e) {
      if (o.stop.aborted) return;
      if (idle.signal.aborted) reason = `no data for ${idleMs / 1000} s`;
      else if (e instanceof ApiError && e.retryable) {
        reason = e.message;
        if (e.retryAfterSeconds) waitMs = Math.max(waitMs, e.retryAfterSeconds * 1000);
      } else if (e instanceof NetworkError || (e instanceof TypeError && /terminated|fetch failed/i.test(e.message)))
        reason = e.message;
      else throw e;
    } finally {
      clearTimeout(timer);
    }
    if (o.finished()) return;
    failures += 1;
    if (o.maxFailures !== undefined && failures >= o.maxFailures)
      throw new NetworkError(`gave up after ${failures} failed connections: ${reason}`);
    o.onDisconnect(reason, waitMs);
    await sleep(waitMs, o.stop);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
