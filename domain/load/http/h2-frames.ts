// HTTP/2's frames as the load client (http2.ts) writes and reads them (RFC 9113 sections 4 and 6): the
// types, flags and error codes it uses, its limits, and the few frames it builds.
/** RFC 9113 section 7: the error codes' names. */
export const ERROR_CODES = [
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
export const PROTOCOL_ERROR = 1;
export const FLOW_CONTROL_ERROR = 3;
export const FRAME_SIZE_ERROR = 6;
export const REFUSED_STREAM = 7;
export const CANCEL = 8;
export const COMPRESSION_ERROR = 9;

// Frame types and flags (RFC 9113 section 6).
export const DATA = 0;
export const HEADERS = 1;
export const RST_STREAM = 3;
export const SETTINGS = 4;
export const PUSH_PROMISE = 5;
export const PING = 6;
export const GOAWAY = 7;
export const WINDOW_UPDATE = 8;
export const CONTINUATION = 9;
export const END_STREAM = 0x1;
export const ACK = 0x1;
export const END_HEADERS = 0x4;
export const PADDED = 0x8;
export const PRIORITY = 0x20;

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
/** The largest window (2^31 - 1): a stream's, advertised in our SETTINGS, and the connection's, raised at once. */
export const MAX_WINDOW = 2 ** 31 - 1;
/** The connection's window is topped up once this much has arrived. */
export const WINDOW_REFILL = 2 ** 30;
/** The largest frame we accept (SETTINGS_MAX_FRAME_SIZE's default, which we keep). */
export const MAX_FRAME = 16_384;
/** The most header block (with its CONTINUATION frames) we accept. */
export const MAX_HEADER_BLOCK = 256 * 1024;
/** Stream ids are 31 bits: a connection that has used them all is replaced. */
export const LAST_STREAM_ID = 2 ** 31 - 1;

/** Our SETTINGS (no server push; the largest stream window), then the connection's window raised to the largest. */
export const OPENING = (() => {
  const settings = Buffer.alloc(9 + 12);
  settings.writeUIntBE(12, 0, 3);
  settings[3] = SETTINGS;
  settings.writeUInt16BE(0x2, 9); // ENABLE_PUSH
  settings.writeUInt32BE(0, 11);
  settings.writeUInt16BE(0x4, 15); // INITIAL_WINDOW_SIZE
  settings.writeUInt32BE(MAX_WINDOW, 17);
  return Buffer.concat([PREFACE, settings, windowUpdate(0, MAX_WINDOW - 65_535)]);
})();

export function frameHeader(length: number, type: number, flags: number, stream: number): Buffer {
  const b = Buffer.allocUnsafe(9);
  b.writeUIntBE(length, 0, 3);
  b[3] = type;
  b[4] = flags;
  b.writeUInt32BE(stream, 5);
  return b;
}

export function windowUpdate(stream: number, increment: number): Buffer {
  const b = frameHeader(4, WINDOW_UPDATE, 0, stream);
  return Buffer.concat([
    b,
    Buffer.from([(increment >>> 24) & 0x7f, (increment >>> 16) & 0xff, (increment >>> 8) & 0xff, increment & 0xff]),
  ]);
}

/** A frame that breaks the protocol: the connection ends with GOAWAY and `code` (PROTOCOL_ERROR unless said). */
export class FrameError extends Error {
  readonly code: number;
  constructor(message: string, code = PROTOCOL_ERROR) {
    super(message);
    this.code = code;
  }
}
