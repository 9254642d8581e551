// A load test's request as its protocol sends it: built once per test (or per scenario step and its
// values), never per request. HTTP/1.1: the bytes written as they are; HTTP/2: the header block (the
// pseudo-headers, the names in lower case as HTTP/2 requires, HPACK-encoded) and the body.
import { encodeHeaders, encodeIndexing, HEADER_TABLE_SIZE, type IndexedBlocks } from './hpack.ts';

export interface RequestSpec {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

const bodyOf = ({ body }: RequestSpec): Buffer | null =>
  body === undefined ? null : typeof body === 'string' ? Buffer.from(body) : body;

/** What would end a line of the request's head, and so write lines (or a request) of its own. */
const LINE_ENDS = /[\r\n\0]/;

/**
 * The request as bytes, written as is for every request. A method, header name or value holding a line
 * break or NUL is refused: every door checks them, and this is the last place one could still add a
 * header line (another `host`) or a whole request of its own.
 */
export function requestBytes(spec: RequestSpec): Buffer {
  const body = bodyOf(spec);
  const lines = [`${spec.method} ${spec.url.pathname}${spec.url.search} HTTP/1.1`, `host: ${spec.url.host}`];
  for (const [name, value] of Object.entries(spec.headers)) lines.push(`${name}: ${value}`);
  // The lines as written (the path and host come from a URL, which encodes such characters).
  const broken = lines.find((line) => LINE_ENDS.test(line));
  if (broken !== undefined)
    throw new Error(`a request's method or header holds a line break or NUL: ${JSON.stringify(broken).slice(0, 100)}`);
  if (body) lines.push(`content-length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return body ? Buffer.concat([head, body]) : head;
}

export interface Http2Request {
  /** The HPACK header block (hpack.ts: the same bytes for every stream). */
  block: Buffer;
  /**
   * Its blocks for a connection that keeps its headers in the server's dynamic table (h2-streams.ts: the
   * first request on a connection whose headers fit); none when they cannot fit the table's default size.
   */
  indexing?: IndexedBlocks;
  /** null: the headers end the stream. */
  body: Buffer | null;
}

/**
 * The request as an HTTP/2 stream opens it: its header block and body, and (when it is `reused`, built
 * once for many sends) its blocks for the server's dynamic table. A request built for one send (a
 * scenario step with a user's values) could not use the table again, and would keep it from another.
 */
export function http2Request(spec: RequestSpec, reused = true): Http2Request {
  const body = bodyOf(spec);
  const headers: Array<[string, string]> = [
    [':method', spec.method],
    [':scheme', spec.url.protocol.slice(0, -1)],
    [':authority', spec.url.host],
    [':path', `${spec.url.pathname}${spec.url.search}`],
  ];
  for (const [name, value] of Object.entries(spec.headers)) headers.push([name.toLowerCase(), value]);
  if (body) headers.push(['content-length', String(body.length)]);
  const indexing = reused ? encodeIndexing(headers) : null;
  return {
    block: encodeHeaders(headers),
    ...(indexing && indexing.size <= HEADER_TABLE_SIZE ? { indexing } : {}),
    body: body?.length ? body : null,
  };
}
