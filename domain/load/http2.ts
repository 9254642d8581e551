// HTTP/2 for load generation, on Node's own client (node:http2, nghttp2 underneath): users share a
// connection (Http2Connection) as streams, `streamsPerConnection` of them to each; each user is a
// slot (Http2Slot) that sends one request at a time as a new stream, with the same surface as an
// HTTP/1.1 connection (connection.ts).
// - The socket is ours (connect.ts: the SSRF guard's lookup, the pinned addresses, byte counting);
//   over TLS it offers h2 and http/1.1 by ALPN, and a server that does not choose h2 fails the
//   requests with `http2_not_offered` (never a silent downgrade). Over http:// it is HTTP/2 with prior
//   knowledge (h2c).
// - Streams are opened only once the server's SETTINGS have come: nghttp2 then knows the server's
//   SETTINGS_MAX_CONCURRENT_STREAMS and holds streams beyond it until one ends (they wait, as a
//   browser's do), instead of sending them to be refused.
// - Errors: RST_STREAM from the server is `refused_stream` (REFUSED_STREAM) or `stream_reset:<code>`
//   (RFC 9113 section 7's names); a stream a GOAWAY ended unanswered is `goaway`; a connection lost
//   is its socket's error, or ECONNRESET as for HTTP/1.1.
// - The stream listeners are shared functions that find their slot on the stream: no closures per
//   request. The body flows without a listener unless a scenario step keeps it.
import http2, { type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { openSocket, type ConnectionOptions } from './connect.ts';
import { type Completion, errorOf, KeptBody, type LoadConnection, type Step } from './connection.ts';
import { newPhaseTimes, type PhaseTimes } from './phases.ts';
import type { Http2Request } from './request.ts';

const { NGHTTP2_CANCEL, NGHTTP2_NO_ERROR, NGHTTP2_REFUSED_STREAM } = http2.constants;

/** RFC 9113 section 7: the error codes' names. */
const ERROR_CODES = [
  'NO_ERROR',
  'PROTOCOL_ERROR',
  'INTERNAL_ERROR',
  'FLOW_CONTROL_ERROR',
  'SETTINGS_TIMEOUT',
  'STREAM_CLOSED',
  'FRAME_SIZE_ERROR',
  'REFUSED_STREAM',
  'CANCEL',
  'COMPRESSION_ERROR',
  'CONNECT_ERROR',
  'ENHANCE_YOUR_CALM',
  'INADEQUATE_SECURITY',
  'HTTP_1_1_REQUIRED',
];

/** Flow-control windows: a stream's, and the connection's (answers are read as fast as they come). */
const STREAM_WINDOW = 16 * 1024 * 1024;
const CONNECTION_WINDOW = 1024 * 1024 * 1024 - 1;

const kSlot = Symbol('slot');
type SlotStream = ClientHttp2Stream & { [kSlot]: Http2Slot | null };

/** One connection's life: the socket, the session over it, and what happened to them. */
interface Session {
  socket: Socket;
  http2: ClientHttp2Session | null;
  /** The server's SETTINGS have come: streams may be opened. */
  ready: boolean;
  /** The server sent GOAWAY: no new streams here; the unanswered ones ended by it. */
  goaway: boolean;
  /** The socket closed, or failed with `error`. */
  lost: boolean;
  error: Error | null;
}

const closedEarly = () => errorOf('connection closed before the answer ended', 'ECONNRESET');

/** What the results report of a shard's HTTP/2 connections. */
export interface Http2Counts {
  connections: number;
  /** The lowest SETTINGS_MAX_CONCURRENT_STREAMS a server sent (null: none did: no limit). */
  serverMaxStreams: number | null;
}

/** A connection that up to `streams` users share, opened when one of them first sends and again after it is lost. */
export class Http2Connection {
  private readonly options: ConnectionOptions;
  private readonly streams: number;
  private readonly counts: Http2Counts;
  private current: Session | null = null;
  private readonly live = new Set<Session>();
  /** Users waiting for the connection being opened. */
  private waiting: Http2Slot[] = [];
  // performance.now() of the current connection's opening steps (0: not happened).
  openedAt = 0;
  lookedUpAt = 0;
  connectedAt = 0;
  securedAt = 0;

  constructor(options: ConnectionOptions, streams: number, counts: Http2Counts) {
    this.options = options;
    this.streams = streams;
    this.counts = counts;
  }

  /** `slot`'s stream, now if the connection is ready, else once it is. */
  enqueue(slot: Http2Slot) {
    const session = this.current;
    if (session?.ready) return slot.start(session, false);
    this.waiting.push(slot);
    if (!session) this.open();
  }

  /** A slot that gave up while waiting. */
  dequeue(slot: Http2Slot) {
    const at = this.waiting.indexOf(slot);
    if (at >= 0) this.waiting.splice(at, 1);
  }

  private open() {
    const { url } = this.options;
    const secure = url.protocol === 'https:';
    const socket = openSocket(this.options, ['h2', 'http/1.1']);
    const session: Session = { socket, http2: null, ready: false, goaway: false, lost: false, error: null };
    this.current = session;
    this.live.add(session);
    this.counts.connections += 1;
    this.openedAt = performance.now();
    this.lookedUpAt = this.connectedAt = this.securedAt = 0;
    this.options.onSocket(socket);
    const current = () => this.current === session;
    socket.once('lookup', () => {
      if (current()) this.lookedUpAt = performance.now();
    });
    socket.once('connect', () => {
      if (current()) this.connectedAt = performance.now();
    });
    // Registered before the session's own: a slot's stream closing after these knows why.
    socket.once('error', (err) => {
      session.error ??= err;
      this.lost(session);
    });
    socket.once('close', () => {
      session.lost = true;
      this.live.delete(session);
      this.lost(session);
    });
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      if (secure) {
        if (current()) this.securedAt = performance.now();
        const chosen = (socket as TLSSocket).alpnProtocol;
        if (chosen !== 'h2') {
          session.error = errorOf(
            `the server does not offer HTTP/2 (ALPN chose ${chosen || 'nothing'})`,
            'http2_not_offered',
          );
          socket.destroy();
          return;
        }
      }
      this.start(session);
    });
  }

  /** The HTTP/2 session over a connected socket; its users' streams go once the server's SETTINGS came. */
  private start(session: Session) {
    const h2 = http2.connect(this.options.url.origin, {
      createConnection: () => session.socket,
      settings: { enablePush: false, initialWindowSize: STREAM_WINDOW },
      peerMaxConcurrentStreams: this.streams,
    });
    session.http2 = h2;
    h2.on('error', (err) => {
      session.error ??= err;
    });
    h2.once('remoteSettings', (settings) => {
      session.ready = true;
      const max = settings.maxConcurrentStreams;
      if (max !== undefined && max < 2 ** 32 - 1)
        this.counts.serverMaxStreams = Math.min(this.counts.serverMaxStreams ?? max, max);
      h2.setLocalWindowSize(CONNECTION_WINDOW);
      if (this.current !== session) return;
      const waiting = this.waiting;
      this.waiting = [];
      for (const slot of waiting) slot.start(session, true);
    });
    h2.on('goaway', () => {
      session.goaway = true;
      this.lost(session);
    });
    h2.once('close', () => this.lost(session));
  }

  /** The session can take no new stream: the next send opens another; users still waiting for it fail. */
  private lost(session: Session) {
    if (this.current !== session) return;
    this.current = null;
    const waiting = this.waiting;
    this.waiting = [];
    const error = session.error ?? (session.goaway ? errorOf('the server sent GOAWAY', 'goaway') : closedEarly());
    for (const slot of waiting) slot.fail(error);
  }

  close() {
    this.current = null;
    for (const s of this.live) {
      s.http2?.destroy();
      s.socket.destroy();
    }
    this.live.clear();
  }
}

function onResponse(this: SlotStream, headers: IncomingHttpHeaders) {
  this[kSlot]?.response(headers[':status'] as unknown as number);
}
function onData(this: SlotStream, chunk: Buffer) {
  this[kSlot]?.data(chunk);
}
function onEnd(this: SlotStream) {
  this[kSlot]?.end(this);
}
function onError(this: SlotStream, err: Error) {
  this[kSlot]?.error(err);
}
function onClose(this: SlotStream) {
  this[kSlot]?.closed(this);
}

/** One user on a shared connection: one request at a time, each a new stream. */
export class Http2Slot implements LoadConnection<Http2Request> {
  private readonly connection: Http2Connection;
  private request: Http2Request;
  private onDone: Completion | null = null;
  private stream: SlotStream | null = null;
  private session: Session | null = null;
  private status = 0;
  private ended = false;
  private streamError: Error | null = null;
  private readonly kept = new KeptBody();
  sentAt = 0;
  readonly phases: PhaseTimes = newPhaseTimes();
  readonly protocol = 'h2';
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
    if (step) this.request = step.request;
    this.kept.reset(step?.keepBody ?? false);
    this.sentAt = performance.now();
    this.status = 0;
    this.ended = false;
    this.streamError = null;
    this.firstByteAt = 0;
    this.connection.enqueue(this);
  }

  /** Opens this user's stream on `session` (`opened`: the user waited for it to open: its DNS, connect and TLS phases). */
  start(session: Session, opened: boolean) {
    if (!this.onDone) return;
    this.session = session;
    this.writtenAt = performance.now();
    const p = this.phases;
    const c = this.connection;
    if (opened) {
      const looked = c.lookedUpAt || c.openedAt;
      const connected = c.connectedAt || looked;
      p.dns = (looked - c.openedAt) * 1000;
      p.connect = (connected - looked) * 1000;
      p.tls = c.securedAt ? (c.securedAt - connected) * 1000 : 0;
    } else {
      p.dns = p.connect = p.tls = 0;
    }
    const { headers, body } = this.request;
    let stream: SlotStream;
    try {
      stream = session.http2!.request(headers, { endStream: body === null }) as SlotStream;
    } catch (err) {
      return this.fail(err as Error);
    }
    stream[kSlot] = this;
    this.stream = stream;
    stream.once('response', onResponse);
    stream.once('end', onEnd);
    stream.once('error', onError);
    stream.once('close', onClose);
    if (this.kept.keeping) stream.on('data', onData);
    else stream.resume();
    if (body) stream.end(body);
  }

  response(status: number) {
    this.status = status;
    this.firstByteAt = performance.now();
  }

  data(chunk: Buffer) {
    this.kept.add(chunk);
  }

  /** The readable side ended: from the server's END_STREAM, unless the stream was already reset. */
  end(stream: ClientHttp2Stream) {
    this.ended = !stream.closed || stream.rstCode === NGHTTP2_NO_ERROR;
  }

  error(err: Error) {
    this.streamError = err;
  }

  closed(stream: ClientHttp2Stream) {
    this.stream = null;
    if (this.status >= 200 && this.ended && this.streamError === null) return this.complete();
    this.fail(this.failureOf(stream.rstCode));
  }

  /** Why a stream ended unanswered, as the results count it. */
  private failureOf(code: number | undefined): Error {
    const session = this.session;
    if (session?.goaway) return errorOf('the server sent GOAWAY before answering', 'goaway');
    if (session?.error) return session.error;
    if (session?.lost || code === NGHTTP2_CANCEL) return closedEarly();
    if (code === NGHTTP2_REFUSED_STREAM) return errorOf('the server refused the stream', 'refused_stream');
    if (code !== undefined && code !== NGHTTP2_NO_ERROR) {
      const name = ERROR_CODES[code] ?? `0x${code.toString(16)}`;
      return errorOf(`the server reset the stream (${name})`, `stream_reset:${name}`);
    }
    return this.streamError ?? closedEarly();
  }

  private complete() {
    const now = performance.now();
    const p = this.phases;
    const firstByte = this.firstByteAt || now;
    p.ttfb = (firstByte - this.writtenAt) * 1000;
    p.transfer = (now - firstByte) * 1000;
    this.finish(null);
  }

  /** Ends the request with `error` (the connection could not open, or the stream failed). */
  fail(error: Error) {
    this.finish(error);
  }

  private finish(error: Error | null) {
    const done = this.onDone;
    this.onDone = null;
    this.session = null;
    done?.(this.status, error);
  }

  abort(error: Error) {
    const stream = this.stream;
    this.stream = null;
    if (stream) {
      stream[kSlot] = null;
      stream.close(NGHTTP2_CANCEL);
    } else this.connection.dequeue(this);
    this.fail(error);
  }

  close() {
    this.connection.close();
  }
}
