// A minimal HTTP/2 client (RFC 9113) for load generation: users share a connection
// (Http2Connection), `streamsPerConnection` of them to each; each user is a slot (Http2Slot) that sends
// one request at a time as a new stream, with the same surface as an HTTP/1.1 connection
// (connection.ts). Like http1.ts it does only what a load tester needs, which Node's own client
// (node:http2) cannot do cheaply: a stream is a slot's id in a map, not a Duplex stream object; the
// request's header block is the same prebuilt bytes for every stream (hpack.ts); answers are parsed
// for their status and where they end; frames written in one tick go out in one write.
// - The socket is ours (connect.ts: the SSRF guard's lookup, the pinned addresses, byte counting);
//   over TLS it offers h2 and http/1.1 by ALPN, and a server that does not choose h2 fails the
//   requests with `http2_not_offered` (never a silent downgrade). Over http:// it is HTTP/2 with prior
//   knowledge (h2c).
// - Streams open once the server's SETTINGS have come, at most its SETTINGS_MAX_CONCURRENT_STREAMS
//   at once: users beyond it wait for a stream to end (as a browser's requests do).
// - Flow control: we advertise the largest windows and keep the connection's open as answers arrive;
//   request bodies wait for the server's windows.
// - Errors: RST_STREAM from the server is `refused_stream` (REFUSED_STREAM) or `stream_reset:<code>`
//   (RFC 9113 section 7's names); a stream a GOAWAY ended unanswered is `goaway`; a connection lost
//   is its socket's error, or ECONNRESET as for HTTP/1.1; a server breaking the protocol is
//   `http2_protocol_error` (or `http2_compression_error` for its header blocks).
// The connection itself is in h2-streams.ts (sending) and h2-session.ts (reading); frames in h2-frames.ts.
import { performance } from 'node:perf_hooks';
import { openSocket, type ConnectionOptions } from './connect.ts';
import { type Completion, errorOf, KeptBody, type LoadConnection, type Step } from './connection.ts';
import { ERROR_CODES, REFUSED_STREAM } from './h2-frames.ts';
import { Session } from './h2-session.ts';
import type { ConnectionOwner, H2Streams, StreamUser } from './h2-streams.ts';
import { newPhaseTimes, type PhaseTimes } from '../phases.ts';
import type { Http2Request } from './request.ts';

/** What the results report of a shard's HTTP/2 connections. */
export interface Http2Counts {
  connections: number;
  /** The lowest SETTINGS_MAX_CONCURRENT_STREAMS a server sent (null: none did: no limit). */
  serverMaxStreams: number | null;
}

/** A connection that up to `streams` users share, opened when one of them first sends and again after it is lost. */
export class Http2Connection implements ConnectionOwner {
  private readonly options: ConnectionOptions;
  private readonly counts: Http2Counts;
  private current: Session | null = null;
  private readonly live = new Set<Session>();

  constructor(options: ConnectionOptions, counts: Http2Counts) {
    this.options = options;
    this.counts = counts;
  }

  /** `slot`'s stream, on the connection open now, else on a new one. */
  enqueue(slot: Http2Slot) {
    let session = this.current;
    if (!session?.open) session = this.open();
    slot.session = session;
    slot.streamId = 0;
    session.request(slot, !session.ready);
  }

  private open(): Session {
    const secure = this.options.url.protocol === 'https:';
    let session: Session | undefined;
    const socket = openSocket(this.options, (chunk) => session?.onData(chunk), ['h2', 'http/1.1']);
    session = new Session(this, socket);
    this.current = session;
    this.live.add(session);
    this.counts.connections += 1;
    this.options.onSocket(socket);
    session.start(secure);
    return session;
  }

  /** A connection going away hands the users still waiting on it to a new one. */
  moveWaiting(from: H2Streams) {
    const waiting = from.waiting.splice(0);
    for (const [slot] of waiting) if (slot instanceof Http2Slot) this.enqueue(slot);
  }

  serverLimit(max: number) {
    this.counts.serverMaxStreams = Math.min(this.counts.serverMaxStreams ?? max, max);
  }

  lost(connection: H2Streams) {
    if (connection instanceof Session) this.live.delete(connection);
    if (this.current === connection) this.current = null;
  }

  close() {
    this.current = null;
    for (const s of this.live) s.destroy();
    this.live.clear();
  }
}

/** One user on a shared connection: one request at a time, each a new stream. */
export class Http2Slot implements LoadConnection<Http2Request>, StreamUser {
  private readonly connection: Http2Connection;
  private request: Http2Request;
  private onDone: Completion | null = null;
  /** The connection its request is on (or waits for), and its stream's id there. */
  session: Session | null = null;
  streamId = 0;
  /** The body not sent yet, and the stream's send window. */
  unsent: Buffer | null = null;
  window = 0;
  /** DATA received on its stream since the stream's window was last topped up. */
  received = 0;
  private status = 0;
  answered = false;
  private readonly kept = new KeptBody();
  sentAt = 0;
  readonly phases: PhaseTimes = newPhaseTimes();
  readonly protocol = 'h2';
  /** The request in flight (or the last one) opened its stream: its headers were written. */
  reached = false;
  private writtenAt = 0;
  private firstByteAt = 0;

  constructor(connection: Http2Connection, request: Http2Request) {
    this.connection = connection;
    this.request = request;
  }

  get busy(): boolean {
    return this.onDone !== null;
  }

  get body(): Buffer | null {
    return this.kept.body;
  }

  send(done: Completion, step?: Step<Http2Request>): void {
    this.onDone = done;
    this.streamId = 0;
    if (step) this.request = step.request;
    this.kept.reset(step?.keepBody ?? false);
    this.sentAt = performance.now();
    this.status = 0;
    this.answered = false;
    this.reached = false;
    this.firstByteAt = 0;
    this.connection.enqueue(this);
  }

  /** Its stream is opening on `session` as `id`: the request to send. */
  opened(session: Session, id: number, waitedForConnection: boolean): Http2Request {
    this.session = session;
    this.streamId = id;
    this.received = 0;
    this.writtenAt = performance.now();
    this.reached = true;
    session.opening.phasesInto(this.phases, waitedForConnection);
    return this.request;
  }

  response(status: number) {
    this.status = status;
    this.answered = true;
    this.firstByteAt = performance.now();
  }

  data(chunk: Buffer, start: number, end: number) {
    if (this.kept.keeping) this.kept.add(chunk.subarray(start, end));
  }

  complete() {
    if (!this.answered) return this.fail(errorOf('the stream ended without an answer', 'http2_protocol_error'));
    const now = performance.now();
    const p = this.phases;
    const firstByte = this.firstByteAt || now;
    p.ttfb = (firstByte - this.writtenAt) * 1000;
    p.transfer = (now - firstByte) * 1000;
    this.finish(null);
  }

  /** The server reset the stream with `code`. */
  reset(code: number) {
    if (code === REFUSED_STREAM) return this.fail(errorOf('the server refused the stream', 'refused_stream'));
    const name = ERROR_CODES[code] ?? `0x${code.toString(16)}`;
    // (Even NO_ERROR: a stream the server ended with its whole answer is over before any reset.)
    this.fail(errorOf(`the server reset the stream (${name})`, `stream_reset:${name}`));
  }

  fail(error: Error) {
    this.finish(error);
  }

  private finish(error: Error | null) {
    const done = this.onDone;
    this.onDone = null;
    this.session = null;
    this.streamId = 0;
    this.unsent = null;
    done?.(this.status, error);
  }

  abort(error: Error) {
    const session = this.session;
    if (session) {
      session.cancel(this);
      session.dequeue(this);
    }
    this.fail(error);
  }

  close() {
    this.connection.close();
  }
}
