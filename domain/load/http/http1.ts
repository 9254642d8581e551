// A minimal HTTP/1.1 client connection for load generation: one request at a time on one keep-alive socket, the
// request written from one prebuilt buffer, the response parsed only as far as a load tester needs (status code, where
// the body ends: Content-Length, chunked, or the connection's end). It does what wrk does in C, which general-purpose
// clients cannot: no header objects, no body buffers, no promise or allocation per request; the socket counts bytes.
import { performance } from 'node:perf_hooks';
import type net from 'node:net';
import { OpeningTimes, openSocket, type ConnectionOptions } from './connect.ts';
import { type Completion, KeptBody, type LoadConnection, type Step } from './connection.ts';
import { newPhaseTimes, type PhaseTimes } from '../phases.ts';
import { newHeadFacts, readHead } from './response-head.ts';

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
/** A response head larger than this is refused (as servers refuse large request heads). */
const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk-size or trailer line longer than this is refused. */
const MAX_LINE_BYTES = 8 * 1024;

const State = { Idle: 0, Head: 1, Body: 2, ChunkSize: 3, ChunkData: 4, Trailers: 5, UntilClose: 6 } as const;
type State = (typeof State)[keyof typeof State];

export class Http1Connection implements LoadConnection<Buffer> {
  private socket: net.Socket | null = null;
  private connected = false;
  /** Opened by warm(), its opening not yet counted in a request's phases. */
  private warmed = false;
  private state: State = State.Idle;
  private pending: Buffer | null = null;
  private remaining = 0;
  private status = 0;
  private closeAfter = false;
  private noBody = false;
  private onDone: Completion | null = null;
  /** performance.now() when the request in flight was sent (for the timeout sweep). */
  sentAt = 0;
  /** The phases of the last request answered, µs (phases.ts): DNS, connect and TLS only when it opened the socket. */
  readonly phases: PhaseTimes = newPhaseTimes();
  private readonly opening = new OpeningTimes();
  // performance.now() of the request's steps (0: not happened).
  private writtenAt = 0;
  private firstByteAt = 0;
  private openedForRequest = false;
  /** The request in flight (or the last one) was written on an open socket. */
  reached = false;
  private readonly options: ConnectionOptions;
  private request: Buffer;
  private readonly headOnly: boolean;
  private readonly kept = new KeptBody();
  private readonly head = newHeadFacts();
  protocol = 'http/1.1';

  constructor(options: ConnectionOptions, request: Buffer, headOnly: boolean) {
    this.options = options;
    this.request = request;
    this.headOnly = headOnly;
    this.noBody = headOnly;
  }

  get body(): Buffer | null {
    return this.kept.body;
  }

  get busy(): boolean {
    return this.onDone !== null;
  }

  send(done: Completion, step?: Step<Buffer>): void {
    this.onDone = done;
    if (step) {
      this.request = step.request;
      this.noBody = step.method === 'HEAD';
      this.kept.reset(step.keepBody);
    } else this.noBody = this.headOnly;
    this.sentAt = performance.now();
    this.state = State.Head;
    this.pending = null;
    this.firstByteAt = 0;
    this.reached = false;
    // A connection opened early (warm) gives its opening's phases to its first request.
    this.openedForRequest = !this.socket || this.warmed;
    this.warmed = false;
    if (!this.socket) this.open();
    else if (this.connected) this.write(this.sentAt);
  }

  warm(): void {
    if (this.socket) return;
    this.open();
    this.warmed = true;
  }

  private write(at = performance.now()) {
    this.writtenAt = at;
    this.reached = true;
    this.socket!.write(this.request);
  }

  private open() {
    const { url } = this.options;
    // Events of a socket this connection has moved on from are ignored.
    const current = () => this.socket === socket;
    const socket = openSocket(this.options, (chunk) => current() && this.onData(chunk));
    this.socket = socket;
    this.connected = false;
    this.options.onSocket(socket);
    this.opening.watch(socket, url.protocol === 'https:', current);
    socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      if (!current()) return;
      this.connected = true;
      if (this.onDone) this.write();
    });
    socket.once('end', () => current() && this.onEnd());
    socket.once('error', (err) => current() && this.fail(err));
    socket.once(
      'close',
      () =>
        current() &&
        this.fail(Object.assign(new Error('connection closed before the answer ended'), { code: 'ECONNRESET' })),
    );
  }

  /** Gives up on the request in flight (timeout or stop): the socket is closed. */
  abort(error: Error) {
    this.fail(error);
  }

  close() {
    this.socket?.destroy();
    this.socket = null;
  }

  private complete() {
    this.measure();
    const done = this.onDone;
    this.onDone = null;
    this.state = State.Idle;
    if (this.closeAfter) this.close();
    done?.(this.status, null);
  }

  /** The phases of the request just answered, in µs. */
  private measure() {
    const now = performance.now();
    const p = this.phases;
    this.opening.phasesInto(p, this.openedForRequest);
    const firstByte = this.firstByteAt || now;
    p.ttfb = (firstByte - this.writtenAt) * 1000;
    p.transfer = (now - firstByte) * 1000;
  }

  private fail(error: Error) {
    const socket = this.socket;
    this.socket = null;
    socket?.destroy();
    const done = this.onDone;
    this.onDone = null;
    this.state = State.Idle;
    done?.(this.status, error);
  }

  private onEnd() {
    if (this.state === State.UntilClose) {
      this.closeAfter = true;
      this.complete();
    } else if (this.onDone) {
      this.fail(Object.assign(new Error('connection closed before the answer ended'), { code: 'ECONNRESET' }));
    } else {
      this.close();
    }
    // (complete() and fail() have closed this socket already; closing here again would close the
    // socket that the next request, sent from their callback, has just opened.)
  }

  /** A chunk read (the thread's read buffer: what outlives the call is copied, here or by KeptBody). */
  private onData(chunk: Buffer) {
    if (this.firstByteAt === 0) this.firstByteAt = performance.now();
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    let off = 0;
    while (off < data.length) {
      switch (this.state) {
        case State.Head: {
          const end = data.indexOf(HEAD_END, off);
          if (end < 0) {
            if (data.length - off > MAX_HEAD_BYTES)
              return this.fail(Object.assign(new Error('response head too large'), { code: 'HPE_HEADER_OVERFLOW' }));
            this.pending = Buffer.from(data.subarray(off));
            return;
          }
          // "HTTP/1.1 200 OK": the minor version is byte 7, the status bytes 9..11.
          const start = off;
          this.status = (data[off + 9]! - 48) * 100 + (data[off + 10]! - 48) * 10 + (data[off + 11]! - 48);
          if (!(this.status >= 100 && this.status <= 999) || data[off + 5] !== 0x31)
            return this.fail(Object.assign(new Error('not an HTTP/1.x answer'), { code: 'HPE_INVALID_CONSTANT' }));
          off = end + 4;
          if (this.status < 200) continue; // 1xx: the real answer follows
          const head = readHead(data, start, end, this.head);
          const http10 = data[start + 7] === 0x30;
          this.protocol = http10 ? 'http/1.0' : 'http/1.1';
          this.closeAfter = head.close || (http10 && !head.keepAlive);
          if (this.noBody || this.status === 204 || this.status === 304) {
            this.complete();
            break;
          }
          if (head.chunked) {
            this.state = State.ChunkSize;
            break;
          }
          if (head.contentLength >= 0) {
            this.remaining = head.contentLength;
            if (this.remaining === 0) this.complete();
            else this.state = State.Body;
          } else {
            this.state = State.UntilClose;
          }
          break;
        }
        case State.Body:
        case State.ChunkData: {
          const take = Math.min(this.remaining, data.length - off);
          // A chunk's data, not the CRLF after it (the last 2 of `remaining`).
          if (this.kept.keeping)
            this.kept.add(
              data.subarray(
                off,
                off + (this.state === State.Body ? take : Math.max(0, Math.min(take, this.remaining - 2))),
              ),
            );
          this.remaining -= take;
          off += take;
          if (this.remaining === 0) {
            if (this.state === State.Body) this.complete();
            else this.state = State.ChunkSize;
          }
          break;
        }
        case State.ChunkSize:
        case State.Trailers: {
          const eol = data.indexOf(CRLF, off);
          if (eol < 0) {
            if (data.length - off > MAX_LINE_BYTES)
              return this.fail(
                Object.assign(new Error('chunk line too long'), { code: 'HPE_CHUNK_EXTENSIONS_OVERFLOW' }),
              );
            this.pending = Buffer.from(data.subarray(off));
            return;
          }
          if (this.state === State.Trailers) {
            const empty = eol === off;
            off = eol + 2;
            if (empty) this.complete();
            break;
          }
          const line = data.toString('latin1', off, eol);
          const size = /^[0-9a-f]{1,8}(?:[ \t]*;.*)?$/i.test(line) ? parseInt(line, 16) : NaN;
          off = eol + 2;
          if (Number.isNaN(size))
            return this.fail(Object.assign(new Error('bad chunk size'), { code: 'HPE_INVALID_CHUNK_SIZE' }));
          if (size === 0) this.state = State.Trailers;
          else {
            this.remaining = size + 2; // the data and its CRLF
            this.state = State.ChunkData;
          }
          break;
        }
        case State.UntilClose:
          if (this.kept.keeping) this.kept.add(data.subarray(off));
          off = data.length;
          break;
        case State.Idle:
          // Bytes nobody asked for: the server is confused; start afresh.
          return this.close();
      }
    }
  }
}
