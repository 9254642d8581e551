// The sending side of an HTTP/2 connection of the load client (http2.ts): its streams, the users
// waiting for one (the connection not ready yet, or at the server's SETTINGS_MAX_CONCURRENT_STREAMS),
// the header blocks and bodies written within the server's windows and frame size, and the frames of
// one tick written at once, into one buffer. The reading side (h2-session.ts) extends it.
import type { Socket } from 'node:net';
import { OpeningTimes } from './connect.ts';
import {
  CANCEL,
  CONTINUATION,
  DATA,
  END_HEADERS,
  END_STREAM,
  HEADERS,
  LAST_STREAM_ID,
  RST_STREAM,
} from './h2-frames.ts';
import type { Http2Request } from './request.ts';
import { HEADER_TABLE_SIZE, tableSizeUpdate } from './hpack.ts';

/** What a connection needs of a user's stream (http2.ts's Http2Slot). */
export interface StreamUser {
  /** Its stream's id on the connection it is on (0: none yet). */
  streamId: number;
  /** The body not sent yet, the stream's send window, and the DATA received since its window was last topped up. */
  unsent: Buffer | null;
  window: number;
  received: number;
  /** Its answer's head has come. */
  answered: boolean;
  /**
   * Its stream is opening on `connection` as `id`: the request to send (`waited`: it waited for the connection to
   * open).
   */
  opened(connection: { opening: OpeningTimes }, id: number, waited: boolean): Http2Request;
  response(status: number): void;
  data(chunk: Buffer, start: number, end: number): void;
  complete(): void;
  /** The server reset the stream with `code`. */
  reset(code: number): void;
  fail(error: Error): void;
}

/** What a connection tells the users' group it belongs to (http2.ts's Http2Connection). */
export interface ConnectionOwner {
  serverLimit(max: number): void;
  /** The users still waiting on a connection going away: to another. */
  moveWaiting(from: H2Streams): void;
  lost(connection: H2Streams): void;
}

/**
 * A tick's first buffer: room for a few dozen requests' frames, taken from Node's shared pool (below
 * half its 8 KiB, so a slice of it, not an allocation of its own).
 */
const OUT_START = 2048;
/** RST_STREAM's payload: CANCEL. */
const CANCEL_CODE = Buffer.from([0, 0, 0, CANCEL]);

export class H2Streams {
  readonly socket: Socket;
  protected readonly owner: ConnectionOwner;
  readonly opening = new OpeningTimes();
  /** The server's SETTINGS have come: streams may open. */
  ready = false;
  /** GOAWAY received (or ids used up): no new streams here. */
  goingAway = false;
  closed = false;
  /** We found the server breaking the protocol (or not speaking HTTP/2): nothing more is read. */
  protected broken = false;
  private nextId = 1;
  protected readonly streams = new Map<number, StreamUser>();
  /** Users waiting for the connection to be ready, or for a stream under the server's limit. */
  readonly waiting: Array<[StreamUser, boolean]> = [];
  // The server's settings.
  protected maxStreams = Number.POSITIVE_INFINITY;
  protected peerWindow = 65_535;
  protected peerMaxFrame = 16_384;
  /** The connection's send window. */
  protected sendWindow = 65_535;
  /**
   * The frames of this tick, written into one buffer as they come and handed to the socket at the tick's
   * end (`outLength` bytes of `out`); a new one after each flush. One small allocation a write, where a
   * buffer a frame and their concatenation cost one each a request (what a load thread allocates is its
   * GC's work).
   */
  private out: Buffer | null = null;
  private outLength = 0;
  private flushing = false;
  /** Streams whose body waits for the server's windows. */
  protected readonly blocked = new Set<StreamUser>();
  /**
   * The server's dynamic table as our blocks left it: its size limit, the request whose headers it holds
   * (the first on this connection whose headers fit), and a size update the next block must begin with.
   */
  private tableLimit = HEADER_TABLE_SIZE;
  private inTable: Http2Request | null = null;
  private tableUsed = false;
  private sizeUpdate: number | null = null;

  constructor(owner: ConnectionOwner, socket: Socket) {
    this.owner = owner;
    this.socket = socket;
  }

  /** Whether `slot` can have a stream here now. */
  get open(): boolean {
    return !this.closed && !this.broken && !this.goingAway;
  }

  /** `slot`'s stream now if it may open, else once it may (`opened`: it waited for the connection to open). */
  request(slot: StreamUser, opened: boolean) {
    if (this.ready && this.streams.size < this.maxStreams && this.waiting.length === 0) this.stream(slot, opened);
    else this.waiting.push([slot, opened]);
  }

  dequeue(slot: StreamUser) {
    const at = this.waiting.findIndex(([s]) => s === slot);
    if (at >= 0) this.waiting.splice(at, 1);
  }

  protected stream(slot: StreamUser, opened: boolean) {
    const id = this.nextId;
    this.nextId += 2;
    if (this.nextId > LAST_STREAM_ID) this.goingAway = true;
    this.streams.set(id, slot);
    const request = slot.opened(this, id, opened);
    const { body } = request;
    const block = this.blockOf(request);
    // The header block, in CONTINUATION frames past the server's frame size.
    const first = Math.min(block.length, this.peerMaxFrame);
    const flags = (body ? 0 : END_STREAM) | (first === block.length ? END_HEADERS : 0);
    this.writeFrame(HEADERS, flags, id, block, 0, first);
    for (let at = first; at < block.length; at += this.peerMaxFrame) {
      const end = Math.min(block.length, at + this.peerMaxFrame);
      this.writeFrame(CONTINUATION, end === block.length ? END_HEADERS : 0, id, block, at, end);
    }
    if (body) {
      slot.unsent = body;
      slot.window = this.peerWindow;
      this.sendBody(slot);
    }
  }

  /** As much of the slot's body as the windows allow, in frames of the server's size. */
  protected sendBody(slot: StreamUser) {
    while (slot.unsent && this.sendWindow > 0 && slot.window > 0) {
      const n = Math.min(slot.unsent.length, this.sendWindow, slot.window, this.peerMaxFrame);
      const last = n === slot.unsent.length;
      this.writeFrame(DATA, last ? END_STREAM : 0, slot.streamId, slot.unsent, 0, n);
      this.sendWindow -= n;
      slot.window -= n;
      slot.unsent = last ? null : slot.unsent.subarray(n);
    }
    if (slot.unsent) this.blocked.add(slot);
    else this.blocked.delete(slot);
  }

  /**
   * The header block that opens `request`'s stream: its headers indexed when the server's table holds them,
   * inserted when it is the first request here whose headers fit, else literals; after the server shrank
   * its table, led by the size update it must see (RFC 7541 section 4.2).
   */
  private blockOf(request: Http2Request): Buffer {
    const indexing = request.indexing;
    let block = request.block;
    if (indexing && this.inTable === request) block = indexing.indexed;
    else if (indexing && !this.tableUsed && indexing.size <= this.tableLimit) {
      this.inTable = request;
      this.tableUsed = true;
      block = indexing.inserting;
    }
    if (this.sizeUpdate === null) return block;
    const update = tableSizeUpdate(this.sizeUpdate);
    this.sizeUpdate = null;
    return Buffer.concat([update, block]);
  }

  /**
   * The server's SETTINGS_HEADER_TABLE_SIZE. Below the limit our blocks kept to, the next block says so
   * (the server evicts what no longer fits), and headers it held are sent as literals from then on.
   */
  protected serverTableSize(size: number) {
    if (size >= this.tableLimit) return;
    this.tableLimit = size;
    this.sizeUpdate = size;
    if (this.inTable?.indexing && this.inTable.indexing.size > size) this.inTable = null;
  }

  /** Bytes made elsewhere (the preface, a WINDOW_UPDATE), sent with this tick's frames. */
  protected write(b: Buffer) {
    b.copy(this.room(b.length), this.outLength);
    this.outLength += b.length;
    this.flushSoon();
  }

  /** A frame: its header, then `payload` from `from` to `to`. */
  protected writeFrame(type: number, flags: number, stream: number, payload: Buffer, from: number, to: number) {
    const length = to - from;
    const out = this.room(9 + length);
    const at = this.outLength;
    out.writeUIntBE(length, at, 3);
    out[at + 3] = type;
    out[at + 4] = flags;
    out.writeUInt32BE(stream, at + 5);
    payload.copy(out, at + 9, from, to);
    this.outLength = at + 9 + length;
    this.flushSoon();
  }

  /** This tick's buffer, with room for `bytes` more. */
  private room(bytes: number): Buffer {
    const out = this.out;
    if (out && this.outLength + bytes <= out.length) return out;
    const wider = Buffer.allocUnsafe(Math.max(OUT_START, 2 * (out?.length ?? 0), this.outLength + bytes));
    out?.copy(wider, 0, 0, this.outLength);
    this.out = wider;
    return wider;
  }

  private flushSoon() {
    if (this.flushing) return;
    this.flushing = true;
    process.nextTick(() => this.flush());
  }

  private flush() {
    this.flushing = false;
    const out = this.out;
    const length = this.outLength;
    // The socket keeps what it is given until it is sent: the next frames go to a new buffer.
    this.out = null;
    this.outLength = 0;
    // Nothing more once the connection is closed or broken (its GOAWAY went out with the socket's end).
    if (this.closed || this.broken || !out || length === 0) return;
    this.socket.write(out.subarray(0, length));
  }

  /** Ends `slot`'s stream on our side (a timeout or a stop): RST_STREAM CANCEL. */
  cancel(slot: StreamUser) {
    if (!this.streams.delete(slot.streamId)) return;
    this.blocked.delete(slot);
    this.resetStream(slot.streamId);
    this.next();
  }

  /** A stream ended: the next waiting user may have one. */
  protected ended(id: number): StreamUser | undefined {
    const slot = this.streams.get(id);
    if (slot) {
      this.streams.delete(id);
      this.blocked.delete(slot);
      // Answered before its body was all sent (a 401 to a large upload): our side of the stream ends too.
      if (slot.unsent) this.resetStream(id);
    }
    return slot;
  }

  protected resetStream(id: number) {
    if (this.closed) return;
    this.writeFrame(RST_STREAM, 0, id, CANCEL_CODE, 0, 4);
  }

  protected next() {
    while (this.ready && this.open && this.waiting.length && this.streams.size < this.maxStreams) {
      const [slot, opened] = this.waiting.shift()!;
      this.stream(slot, opened);
    }
    if (this.goingAway && this.streams.size === 0) {
      this.owner.moveWaiting(this);
      this.socket.end();
    }
  }
}
