// The reading side of an HTTP/2 connection of the load client (http2.ts): its socket's opening (ALPN
// h2, else `http2_not_offered`), the frames the server sends parsed and answered (SETTINGS, PING,
// WINDOW_UPDATE, GOAWAY, RST_STREAM, HEADERS with CONTINUATION and padding, DATA), the server's HPACK
// table followed, and a server that breaks the protocol closed with GOAWAY.
import type { TLSSocket } from 'node:tls';
import { errorOf } from './connection.ts';
import {
  ACK,
  COMPRESSION_ERROR,
  CONTINUATION,
  DATA,
  END_HEADERS,
  END_STREAM,
  FLOW_CONTROL_ERROR,
  FRAME_SIZE_ERROR,
  FrameError,
  frameHeader,
  GOAWAY,
  HEADERS,
  MAX_FRAME,
  MAX_HEADER_BLOCK,
  MAX_WINDOW,
  OPENING,
  PADDED,
  PING,
  PRIORITY,
  PROTOCOL_ERROR,
  PUSH_PROMISE,
  RST_STREAM,
  SETTINGS,
  WINDOW_REFILL,
  WINDOW_UPDATE,
  windowUpdate,
} from './h2-frames.ts';
import { H2Streams, type StreamUser } from './h2-streams.ts';
import { HpackDecoder, HpackError } from './hpack.ts';

/** A frame of a type whose size is fixed or bounded: refused when it is not `ok` (no closure a frame). */
const sized = (ok: boolean, what: string, length: number) => {
  if (!ok) throw new FrameError(`${what} of ${length} bytes`, FRAME_SIZE_ERROR);
};

const closedEarly = () => errorOf('connection closed before the answer ended', 'ECONNRESET');

/** One connection's life: its socket, the protocol's state on it, its streams. */
export class Session extends H2Streams {
  private error: Error | null = null;
  /** Data received since the last connection WINDOW_UPDATE we sent. */
  private received = 0;
  private readonly decoder = new HpackDecoder();
  /** A header block arriving in CONTINUATION frames: its stream, flags and parts. */
  private block: { stream: number; endStream: boolean; parts: Buffer[]; bytes: number } | null = null;
  private pending: Buffer | null = null;

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
        this.broken = true;
        socket.destroy();
        return;
      }
      this.write(OPENING);
    });
    socket.once('error', (err) => {
      this.error ??= err;
    });
    socket.once('close', () => this.lost());
  }

  /** A chunk read (the thread's read buffer: what outlives the call is copied, here or by KeptBody). */
  onData(chunk: Buffer) {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    let off = 0;
    // A server that answers HTTP/2's preface in HTTP/1.x (h2c to a server without it).
    if (!this.ready && data.length >= 5 && data.toString('latin1', 0, 5) === 'HTTP/') {
      this.error = errorOf(
        'the server answered in HTTP/1.x: it does not speak HTTP/2 with prior knowledge',
        'http2_not_offered',
      );
      this.broken = true;
      this.socket.destroy();
      return;
    }
    while (data.length - off >= 9 && !this.broken) {
      const length = data.readUIntBE(off, 3);
      if (length > MAX_FRAME) return this.fail(FRAME_SIZE_ERROR, 'a frame larger than our SETTINGS_MAX_FRAME_SIZE');
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
        if (err instanceof FrameError) return this.fail(err.code, err.message);
        // Nothing a server sends may take the load thread down.
        return this.fail(PROTOCOL_ERROR, `a frame this client could not read (${(err as Error).message})`);
      }
    }
    if (off < data.length && !this.broken) this.pending = Buffer.from(data.subarray(off));
  }

  private frame(type: number, flags: number, stream: number, data: Buffer, start: number, end: number) {
    if (this.block && type !== CONTINUATION) throw new FrameError('a frame inside a header block');
    const length = end - start;
    if ((type === DATA || type === HEADERS || type === RST_STREAM || type === CONTINUATION) && stream === 0)
      throw new FrameError(`frame type ${type} on stream 0`);
    switch (type) {
      case DATA: {
        this.received += end - start;
        if (this.received >= WINDOW_REFILL) {
          this.write(windowUpdate(0, this.received));
          this.received = 0;
        }
        const from = this.payloadStart(flags, data, start, end, 0);
        const to = flags & PADDED ? end - data.readUInt8(start) : end;
        const slot = this.streams.get(stream);
        if (!slot) return;
        if (to > from) slot.data(data, from, to);
        // The stream's own window: topped up for answers past a GiB.
        slot.received += length;
        if (slot.received >= WINDOW_REFILL && !(flags & END_STREAM)) {
          this.write(windowUpdate(stream, slot.received));
          slot.received = 0;
        }
        if (flags & END_STREAM) this.complete(stream);
        return;
      }
      case HEADERS: {
        const from = this.payloadStart(flags, data, start, end, flags & PRIORITY ? 5 : 0);
        const to = flags & PADDED ? end - data.readUInt8(start) : end;
        if (flags & END_HEADERS) return this.headers(stream, (flags & END_STREAM) !== 0, data, from, to);
        const part = Buffer.from(data.subarray(from, to));
        this.block = { stream, endStream: (flags & END_STREAM) !== 0, parts: [part], bytes: part.length };
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
          const whole = Buffer.concat(block.parts);
          this.headers(stream, block.endStream, whole, 0, whole.length);
        }
        return;
      }
      case RST_STREAM: {
        sized(length === 4, 'RST_STREAM', length);
        const slot = this.ended(stream);
        const code = data.readUInt32BE(start);
        if (slot) {
          slot.reset(code);
          this.next();
        }
        return;
      }
      case SETTINGS:
        if (stream !== 0) throw new FrameError('SETTINGS on a stream');
        sized(flags & ACK ? length === 0 : length % 6 === 0, 'SETTINGS', length);
        if (flags & ACK) return;
        return this.settings(data, start, end);
      case PING:
        sized(length === 8, 'PING', length);
        if (!(flags & ACK)) this.writeFrame(PING, ACK, 0, data, start, end);
        return;
      case GOAWAY:
        sized(length >= 8, 'GOAWAY', length);
        return this.goaway(data.readUInt32BE(start) & 0x7fffffff);
      case WINDOW_UPDATE: {
        sized(length === 4, 'WINDOW_UPDATE', length);
        const increment = data.readUInt32BE(start) & 0x7fffffff;
        if (increment === 0) throw new FrameError('WINDOW_UPDATE of 0');
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

  // Where the payload starts after the pad length and `skip` bytes of priority (its end is before the padding:
  // two numbers rather than a pair, which was allocated for every frame); a frame too short for them is refused.
  private payloadStart(flags: number, data: Buffer, start: number, end: number, skip: number): number {
    const padded = (flags & PADDED) !== 0;
    if (end - start < skip + (padded ? 1 : 0))
      throw new FrameError(`a frame of ${end - start} bytes, shorter than its fields`, FRAME_SIZE_ERROR);
    if (!padded) return start + skip;
    if (start + 1 + skip + data.readUInt8(start) > end) throw new FrameError('padding longer than its frame');
    return start + 1 + skip;
  }

  /** A header block (`block`, `from` to `to`): decoded always (the server's table must be followed); a status. */
  private headers(stream: number, endStream: boolean, block: Buffer, from: number, to: number) {
    const status = this.decoder.status(block, from, to);
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
      if (id === 0x1) this.serverTableSize(value);
      else if (id === 0x3) {
        this.maxStreams = value;
        this.owner.serverLimit(value);
      } else if (id === 0x4) {
        if (value > MAX_WINDOW) throw new FrameError('SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1', FLOW_CONTROL_ERROR);
        const delta = value - this.peerWindow;
        this.peerWindow = value;
        for (const slot of this.streams.values()) slot.window += delta;
      } else if (id === 0x5) {
        if (value < 16_384 || value > 2 ** 24 - 1) throw new FrameError('SETTINGS_MAX_FRAME_SIZE out of range');
        this.peerMaxFrame = value;
      }
    }
    this.writeFrame(SETTINGS, ACK, 0, data, start, start);
    this.ready = true;
    for (const slot of this.blocked) this.sendBody(slot);
    this.next();
  }

  /**
   * GOAWAY: no new streams here. The streams above `last` were not processed (RFC 9113 section 6.8):
   * they are sent again on another connection, as users waiting here are, their latency counting on
   * from when they were first sent. Those at or below it may still be answered.
   */
  private goaway(last: number) {
    this.goingAway = true;
    const unprocessed = [...this.streams].filter(([id]) => id > last);
    for (const [id] of unprocessed) this.streams.delete(id);
    this.waiting.unshift(...unprocessed.map(([, slot]): [StreamUser, boolean] => [slot, false]));
    this.owner.moveWaiting(this);
    this.next();
  }

  /** A connection error on our side: GOAWAY with `code`, and every stream fails with `kind`. */
  private fail(code: number, message: string, kind = 'http2_protocol_error') {
    this.broken = true;
    this.error = errorOf(`HTTP/2: ${message}`, kind);
    const goaway = frameHeader(8, GOAWAY, 0, 0);
    // Ended rather than destroyed, so that the GOAWAY goes out (over TLS too); closed for good a second later.
    this.socket.end(Buffer.concat([goaway, Buffer.from([0, 0, 0, 0, 0, 0, 0, code])]));
    setTimeout(() => this.socket.destroy(), 1000).unref();
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
