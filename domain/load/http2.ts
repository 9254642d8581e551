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
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { OpeningTimes, openSocket, type ConnectionOptions } from './connect.ts';
import { type Completion, errorOf, KeptBody, type LoadConnection, type Step } from './connection.ts';
import { HpackDecoder, HpackError } from './hpack.ts';
import { newPhaseTimes, type PhaseTimes } from './phases.ts';
import type { Http2Request } from './request.ts';

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
const NO_ERROR = 0;
const PROTOCOL_ERROR = 1;
const REFUSED_STREAM = 7;
const CANCEL = 8;
const COMPRESSION_ERROR = 9;

// Frame types and flags (RFC 9113 section 6).
const DATA = 0;
const HEADERS = 1;
const RST_STREAM = 3;
const SETTINGS = 4;
const PUSH_PROMISE = 5;
const PING = 6;
const GOAWAY = 7;
const WINDOW_UPDATE = 8;
const CONTINUATION = 9;
const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
/** The largest window (2^31 - 1): a stream's, advertised in our SETTINGS, and the connection's, raised at once. */
const MAX_WINDOW = 2 ** 31 - 1;
/** The connection's window is topped up once this much has arrived. */
const WINDOW_REFILL = 2 ** 30;
/** The largest frame we accept (SETTINGS_MAX_FRAME_SIZE's default, which we keep). */
const MAX_FRAME = 16_384;
/** The most header block (with its CONTINUATION frames) we accept. */
const MAX_HEADER_BLOCK = 256 * 1024;
/** Stream ids are 31 bits: a connection that has used them all is replaced. */
const LAST_STREAM_ID = 2 ** 31 - 1;

/** Our SETTINGS (no server push; the largest stream window), then the connection's window raised to the largest. */
const OPENING = (() => {
  const settings = Buffer.alloc(9 + 12);
  settings.writeUIntBE(12, 0, 3);
  settings[3] = SETTINGS;
  settings.writeUInt16BE(0x2, 9); // ENABLE_PUSH
  settings.writeUInt32BE(0, 11);
  settings.writeUInt16BE(0x4, 15); // INITIAL_WINDOW_SIZE
  settings.writeUInt32BE(MAX_WINDOW, 17);
  return Buffer.concat([PREFACE, settings, windowUpdate(0, MAX_WINDOW - 65_535)]);
})();

function frameHeader(length: number, type: number, flags: number, stream: number): Buffer {
  const b = Buffer.allocUnsafe(9);
  b.writeUIntBE(length, 0, 3);
  b[3] = type;
  b[4] = flags;
  b.writeUInt32BE(stream, 5);
  return b;
}

function windowUpdate(stream: number, increment: number): Buffer {
  const b = frameHeader(4, WINDOW_UPDATE, 0, stream);
  return Buffer.concat([
    b,
    Buffer.from([(increment >>> 24) & 0x7f, (increment >>> 16) & 0xff, (increment >>> 8) & 0xff, increment & 0xff]),
  ]);
}

/** A frame that breaks the protocol: the connection ends with PROTOCOL_ERROR. */
class FrameError extends Error {}

const closedEarly = () => errorOf('connection closed before the answer ended', 'ECONNRESET');

/** What the results report of a shard's HTTP/2 connections. */
export interface Http2Counts {
  connections: number;
  /** The lowest SETTINGS_MAX_CONCURRENT_STREAMS a server sent (null: none did: no limit). */
  serverMaxStreams: number | null;
}

/** One connection's life: its socket, the protocol's state on it, its streams. */
class Session {
  readonly socket: Socket;
  private readonly owner: Http2Connection;
  readonly opening = new OpeningTimes();
  /** The server's SETTINGS have come: streams may open. */
  ready = false;
  /** GOAWAY received (or ids used up): no new streams; the unanswered ones above `lastStreamId` ended by it. */
  goingAway = false;
  closed = false;
  /** We found the server breaking the protocol: nothing more is read. */
  private broken = false;
  private error: Error | null = null;
  private nextId = 1;
  private readonly streams = new Map<number, Http2Slot>();
  /** Users waiting for the connection to be ready, or for a stream under the server's limit. */
  readonly waiting: Array<[Http2Slot, boolean]> = [];
  // The server's settings.
  private maxStreams = Number.POSITIVE_INFINITY;
  private peerWindow = 65_535;
  private peerMaxFrame = 16_384;
  /** The connection's send window, and the data received since the last WINDOW_UPDATE we sent. */
  private sendWindow = 65_535;
  private received = 0;
  private readonly decoder = new HpackDecoder();
  /** A header block arriving in CONTINUATION frames: its stream, flags and parts. */
  private block: { stream: number; endStream: boolean; parts: Buffer[]; bytes: number } | null = null;
  private pending: Buffer | null = null;
  private out: Buffer[] = [];
  private flushing = false;
  /** Streams whose body waits for the server's windows. */
  private readonly blocked = new Set<Http2Slot>();

  constructor(owner: Http2Connection, socket: Socket) {
    this.owner = owner;
    this.socket = socket;
  }

  start(secure: boolean) {
    const socket = this.socket;
    this.opening.watch(socket, secure, () => !this.closed);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      if (secure && (socket as TLSSocket).alpnProtocol !== 'h2') {
        const chosen = (socket as TLSSocket).alpnProtocol;
        this.error = errorOf(
          `the server does not offer HTTP/2 (ALPN chose ${chosen || 'nothing'})`,
          'http2_not_offered',
        );
        socket.destroy();
        return;
      }
      this.write(OPENING);
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.once('error', (err) => {
      this.error ??= err;
    });
    socket.once('close', () => this.lost());
  }

  /** Whether `slot` can have a stream here now. */
  get open(): boolean {
    return !this.closed && !this.goingAway;
  }

  /** `slot`'s stream now if it may open, else once it may (`opened`: it waited for the connection to open). */
  request(slot: Http2Slot, opened: boolean) {
    if (this.ready && this.streams.size < this.maxStreams && this.waiting.length === 0) this.stream(slot, opened);
    else this.waiting.push([slot, opened]);
  }

  dequeue(slot: Http2Slot) {
    const at = this.waiting.findIndex(([s]) => s === slot);
    if (at >= 0) this.waiting.splice(at, 1);
  }

  private stream(slot: Http2Slot, opened: boolean) {
    const id = this.nextId;
    this.nextId += 2;
    if (this.nextId > LAST_STREAM_ID) this.goingAway = true;
    this.streams.set(id, slot);
    const { block, body } = slot.opened(this, id, opened);
    // The header block, in CONTINUATION frames past the server's frame size.
    const first = Math.min(block.length, this.peerMaxFrame);
    const flags = (body ? 0 : END_STREAM) | (first === block.length ? END_HEADERS : 0);
    this.write(frameHeader(first, HEADERS, flags, id));
    this.write(first === block.length ? block : block.subarray(0, first));
    for (let at = first; at < block.length; at += this.peerMaxFrame) {
      const end = Math.min(block.length, at + this.peerMaxFrame);
      this.write(frameHeader(end - at, CONTINUATION, end === block.length ? END_HEADERS : 0, id));
      this.write(block.subarray(at, end));
    }
    if (body) {
      slot.unsent = body;
      slot.window = this.peerWindow;
      this.sendBody(slot);
    }
  }

  /** As much of the slot's body as the windows allow, in frames of the server's size. */
  private sendBody(slot: Http2Slot) {
    while (slot.unsent && this.sendWindow > 0 && slot.window > 0) {
      const n = Math.min(slot.unsent.length, this.sendWindow, slot.window, this.peerMaxFrame);
      const last = n === slot.unsent.length;
      this.write(frameHeader(n, DATA, last ? END_STREAM : 0, slot.streamId));
      this.write(slot.unsent.subarray(0, n));
      this.sendWindow -= n;
      slot.window -= n;
      slot.unsent = last ? null : slot.unsent.subarray(n);
    }
    if (slot.unsent) this.blocked.add(slot);
    else this.blocked.delete(slot);
  }

  private write(b: Buffer) {
    this.out.push(b);
    if (this.flushing) return;
    this.flushing = true;
    process.nextTick(() => this.flush());
  }

  private flush() {
    this.flushing = false;
    const out = this.out;
    this.out = [];
    if (this.closed || out.length === 0) return;
    this.socket.write(out.length === 1 ? out[0]! : Buffer.concat(out));
  }

  /** Ends `slot`'s stream on our side (a timeout or a stop): RST_STREAM CANCEL. */
  cancel(slot: Http2Slot) {
    if (!this.streams.delete(slot.streamId)) return;
    this.blocked.delete(slot);
    if (!this.closed) {
      const rst = frameHeader(4, RST_STREAM, 0, slot.streamId);
      this.write(Buffer.concat([rst, Buffer.from([0, 0, 0, CANCEL])]));
    }
    this.next();
  }

  /** A stream ended: the next waiting user may have one. */
  private ended(id: number): Http2Slot | undefined {
    const slot = this.streams.get(id);
    if (slot) {
      this.streams.delete(id);
      this.blocked.delete(slot);
    }
    return slot;
  }

  private next() {
    while (this.ready && this.open && this.waiting.length && this.streams.size < this.maxStreams) {
      const [slot, opened] = this.waiting.shift()!;
      this.stream(slot, opened);
    }
    if (this.goingAway && this.streams.size === 0) {
      this.owner.moveWaiting(this);
      this.socket.end();
    }
  }

  private onData(chunk: Buffer) {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    let off = 0;
    while (data.length - off >= 9 && !this.broken) {
      const length = data.readUIntBE(off, 3);
      if (length > MAX_FRAME) return this.fail(PROTOCOL_ERROR, 'a frame larger than our SETTINGS_MAX_FRAME_SIZE');
      if (data.length - off < 9 + length) break;
      const type = data[off + 3]!;
      const flags = data[off + 4]!;
      const stream = data.readUInt32BE(off + 5) & 0x7fffffff;
      const start = off + 9;
      off = start + length;
      try {
        this.frame(type, flags, stream, data, start, off);
      } catch (err) {
        if (err instanceof HpackError) return this.fail(COMPRESSION_ERROR, err.message, 'http2_compression_error');
        if (err instanceof FrameError) return this.fail(PROTOCOL_ERROR, err.message);
        throw err;
      }
    }
    if (off < data.length && !this.broken) this.pending = data.subarray(off);
  }

  private frame(type: number, flags: number, stream: number, data: Buffer, start: number, end: number) {
    if (this.block && type !== CONTINUATION) throw new FrameError('a frame inside a header block');
    switch (type) {
      case DATA: {
        this.received += end - start;
        if (this.received >= WINDOW_REFILL) {
          this.write(windowUpdate(0, this.received));
          this.received = 0;
        }
        const slot = this.streams.get(stream);
        if (!slot) return;
        const [from, to] = this.unpadded(flags, data, start, end, 0);
        if (to > from) slot.data(data, from, to);
        if (flags & END_STREAM) this.complete(stream);
        return;
      }
      case HEADERS: {
        const [from, to] = this.unpadded(flags, data, start, end, flags & PRIORITY ? 5 : 0);
        const part = data.subarray(from, to);
        if (flags & END_HEADERS) return this.headers(stream, (flags & END_STREAM) !== 0, part);
        this.block = { stream, endStream: (flags & END_STREAM) !== 0, parts: [Buffer.from(part)], bytes: part.length };
        return;
      }
      case CONTINUATION: {
        const block = this.block;
        if (!block || block.stream !== stream) throw new FrameError('CONTINUATION without HEADERS');
        block.parts.push(Buffer.from(data.subarray(start, end)));
        block.bytes += end - start;
        if (block.bytes > MAX_HEADER_BLOCK) throw new FrameError('a header block too large');
        if (flags & END_HEADERS) {
          this.block = null;
          this.headers(stream, block.endStream, Buffer.concat(block.parts));
        }
        return;
      }
      case RST_STREAM: {
        const slot = this.ended(stream);
        const code = end - start >= 4 ? data.readUInt32BE(start) : PROTOCOL_ERROR;
        if (slot) {
          slot.reset(code);
          this.next();
        }
        return;
      }
      case SETTINGS:
        if (flags & ACK) return;
        return this.settings(data, start, end);
      case PING:
        if (!(flags & ACK) && end - start === 8)
          this.write(Buffer.concat([frameHeader(8, PING, ACK, 0), Buffer.from(data.subarray(start, end))]));
        return;
      case GOAWAY:
        return this.goaway(data.readUInt32BE(start) & 0x7fffffff);
      case WINDOW_UPDATE: {
        const increment = data.readUInt32BE(start) & 0x7fffffff;
        if (stream === 0) {
          this.sendWindow += increment;
          for (const slot of this.blocked) this.sendBody(slot);
        } else {
          const slot = this.streams.get(stream);
          if (slot) {
            slot.window += increment;
            this.sendBody(slot);
          }
        }
        return;
      }
      case PUSH_PROMISE:
        throw new FrameError('PUSH_PROMISE, though push is disabled');
      default:
      // PRIORITY and frame types this client does not know are ignored (RFC 9113 section 4.1).
    }
  }

  /** The payload's bounds without its padding (and the `skip` bytes of priority after the pad length). */
  private unpadded(flags: number, data: Buffer, start: number, end: number, skip: number): [number, number] {
    if (!(flags & PADDED)) return [start + skip, end];
    const pad = data[start]!;
    if (start + 1 + skip + pad > end) throw new FrameError('padding longer than its frame');
    return [start + 1 + skip, end - pad];
  }

  /** A header block: decoded always (the server's table must be followed); an answer's status or its end. */
  private headers(stream: number, endStream: boolean, block: Buffer) {
    const status = this.decoder.status(block);
    const slot = this.streams.get(stream);
    if (!slot) return;
    // The answer's head; informational (1xx) ones before it and trailers after it carry nothing we count.
    if (status >= 200 && !slot.answered) slot.response(status);
    if (endStream) this.complete(stream);
  }

  private complete(stream: number) {
    const slot = this.ended(stream);
    if (!slot) return;
    slot.complete();
    this.next();
  }

  private settings(data: Buffer, start: number, end: number) {
    for (let at = start; at + 6 <= end; at += 6) {
      const id = data.readUInt16BE(at);
      const value = data.readUInt32BE(at + 2);
      if (id === 0x3) {
        this.maxStreams = value;
        this.owner.serverLimit(value);
      } else if (id === 0x4) {
        const delta = value - this.peerWindow;
        this.peerWindow = value;
        for (const slot of this.streams.values()) slot.window += delta;
      } else if (id === 0x5) this.peerMaxFrame = value;
    }
    this.write(frameHeader(0, SETTINGS, ACK, 0));
    if (!this.ready) this.ready = true;
    for (const slot of this.blocked) this.sendBody(slot);
    this.next();
  }

  /** GOAWAY: streams above `last` were not processed (they fail: `goaway`); no new ones here. */
  private goaway(last: number) {
    this.goingAway = true;
    this.owner.moveWaiting(this);
    for (const [id, slot] of [...this.streams]) {
      if (id > last) {
        this.ended(id);
        slot.fail(errorOf('the server sent GOAWAY before answering', 'goaway'));
      }
    }
    this.next();
  }

  /** A connection error on our side: GOAWAY with `code`, and every stream fails with `kind`. */
  private fail(code: number, message: string, kind = 'http2_protocol_error') {
    this.broken = true;
    this.error = errorOf(`HTTP/2: ${message}`, kind);
    const goaway = frameHeader(8, GOAWAY, 0, 0);
    this.socket.write(Buffer.concat([goaway, Buffer.from([0, 0, 0, 0, 0, 0, 0, code])]));
    this.socket.destroy();
  }

  /** The socket closed: what was in flight or waiting fails. */
  private lost() {
    if (this.closed) return;
    this.closed = true;
    const error = this.error ?? (this.goingAway ? errorOf('the server sent GOAWAY', 'goaway') : closedEarly());
    const streams = [...this.streams.values()];
    this.streams.clear();
    this.blocked.clear();
    this.owner.lost(this);
    for (const slot of streams) slot.fail(error);
    const waiting = this.waiting.splice(0);
    for (const [slot] of waiting) slot.fail(error);
  }

  destroy() {
    this.socket.destroy();
  }
}

/** A connection that up to `streams` users share, opened when one of them first sends and again after it is lost. */
export class Http2Connection {
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
    session.request(slot, !session.ready);
  }

  private open(): Session {
    const secure = this.options.url.protocol === 'https:';
    const socket = openSocket(this.options, ['h2', 'http/1.1']);
    const session = new Session(this, socket);
    this.current = session;
    this.live.add(session);
    this.counts.connections += 1;
    this.options.onSocket(socket);
    session.start(secure);
    return session;
  }

  /** A connection going away hands the users still waiting on it to a new one. */
  moveWaiting(from: Session) {
    const waiting = from.waiting.splice(0);
    for (const [slot] of waiting) this.enqueue(slot);
  }

  serverLimit(max: number) {
    this.counts.serverMaxStreams = Math.min(this.counts.serverMaxStreams ?? max, max);
  }

  lost(session: Session) {
    this.live.delete(session);
    if (this.current === session) this.current = null;
  }

  close() {
    this.current = null;
    for (const s of this.live) s.destroy();
    this.live.clear();
  }
}

/** One user on a shared connection: one request at a time, each a new stream. */
export class Http2Slot implements LoadConnection<Http2Request> {
  private readonly connection: Http2Connection;
  private request: Http2Request;
  private onDone: Completion | null = null;
  /** The connection its request is on (or waits for), and its stream's id there. */
  session: Session | null = null;
  streamId = 0;
  /** The body not sent yet, and the stream's send window. */
  unsent: Buffer | null = null;
  window = 0;
  private status = 0;
  answered = false;
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
    this.streamId = 0;
    if (step) this.request = step.request;
    this.kept.reset(step?.keepBody ?? false);
    this.sentAt = performance.now();
    this.status = 0;
    this.answered = false;
    this.firstByteAt = 0;
    this.connection.enqueue(this);
  }

  /** Its stream is opening on `session` as `id`: the request to send. */
  opened(session: Session, id: number, waitedForConnection: boolean): Http2Request {
    this.session = session;
    this.streamId = id;
    this.writtenAt = performance.now();
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
    if (code === NO_ERROR && this.answered) return this.complete(); // a full answer, then the stream closed
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
      if (this.streamId) session.cancel(this);
      else session.dequeue(this);
    }
    this.fail(error);
  }

  close() {
    this.connection.close();
  }
}
