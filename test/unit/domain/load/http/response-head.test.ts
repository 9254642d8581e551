// The load client's one-pass read of a response head, against what it must find and what it must not.
import { describe, expect, it } from 'vitest';
import { newHeadFacts, readHead } from '../../../../../domain/load/http/response-head.ts';

/**
 * What a read holds before the head read: an interim answer with headers that must not count (and the end
 * of a body), as in one chunk of a kept-alive connection.
 */
const BEFORE = 'HTTP/1.1 100 Continue\r\nConnection: close\r\nContent-Length: 9\r\nTransfer-Encoding: chunked\r\n\r\n';

/** The facts of `head` (its lines joined by CR LF, then the blank line), placed after other bytes as in a read. */
function facts(...lines: string[]) {
  const data = Buffer.from(`${BEFORE}${lines.join('\r\n')}\r\n\r\nbody`, 'latin1');
  const end = data.indexOf('\r\n\r\n', BEFORE.length);
  return { ...readHead(data, BEFORE.length, end, newHeadFacts()) };
}

const NONE = { close: false, keepAlive: false, chunked: false, contentLength: -1 };

describe('readHead', () => {
  it("reads nginx's head: its length, kept alive", () => {
    expect(
      facts(
        'HTTP/1.1 200 OK',
        'Server: nginx/1.22.1',
        'Date: Tue, 01 Dec 2026 06:00:00 GMT',
        'Content-Type: text/html',
        'Content-Length: 17',
        'Last-Modified: Tue, 01 Dec 2026 05:59:00 GMT',
        'Connection: keep-alive',
        'ETag: "692d2f1c-11"',
        'Accept-Ranges: bytes',
      ),
    ).toEqual({ close: false, keepAlive: true, chunked: false, contentLength: 17 });
  });

  it('reads names in any case and values after spaces or tabs', () => {
    expect(facts('HTTP/1.1 200 OK', 'CONNECTION:\t CLOSE', 'content-LENGTH:   1234567890123')).toEqual({
      ...NONE,
      close: true,
      contentLength: 1234567890123,
    });
    expect(facts('HTTP/1.0 200 OK', 'connection:Keep-Alive')).toEqual({ ...NONE, keepAlive: true });
    expect(facts('HTTP/1.1 200 OK', 'Transfer-Encoding: gzip, Chunked')).toEqual({ ...NONE, chunked: true });
    expect(facts('HTTP/1.1 204 No Content', 'Content-Length: 0')).toEqual({ ...NONE, contentLength: 0 });
  });

  it('takes the first Content-Length that starts with digits, and the digits it starts with', () => {
    expect(facts('HTTP/1.1 200 OK', 'Content-Length: none', 'Content-Length: 12', 'Content-Length: 99')).toEqual({
      ...NONE,
      contentLength: 12,
    });
    expect(facts('HTTP/1.1 200 OK', 'Content-Length: 42abc')).toEqual({ ...NONE, contentLength: 42 });
  });

  it('finds nothing in names that only begin or end like the ones it reads, nor in values', () => {
    expect(
      facts(
        'HTTP/1.1 200 OK',
        'X-Connection: close',
        'Connections: close',
        'Content-Length-Hint: 5',
        'Content-Type: text/plain; connection: close',
        'Transfer-Encodings: chunked',
        'Trailer: chunked',
        'Connection: upgrade, close',
        'Transfer-Encoding: gzip',
        'Connection\r: close',
      ),
    ).toEqual(NONE);
  });

  it('ends at the blank line: what the body holds is not read, nor is the status line', () => {
    const data = Buffer.from(
      'HTTP/1.1 200 Connection: close\r\nA: b\r\n\r\nConnection: close\r\nContent-Length: 5\r\n',
    );
    expect({ ...readHead(data, 0, data.indexOf('\r\n\r\n'), newHeadFacts()) }).toEqual(NONE);
    const bare = Buffer.from('HTTP/1.1 200 OK\r\n\r\n');
    expect({ ...readHead(bare, 0, bare.indexOf('\r\n\r\n'), newHeadFacts()) }).toEqual(NONE);
  });

  it('ends a line at LF, with or without its CR; a CR inside a line is part of it', () => {
    const data = Buffer.from('HTTP/1.1 200 OK\nConnection: close\r\nX: y\nContent-Length: 7\r\n\r\n', 'latin1');
    expect({ ...readHead(data, 0, data.indexOf('\r\n\r\n'), newHeadFacts()) }).toEqual({
      ...NONE,
      close: true,
      contentLength: 7,
    });
    expect(facts('HTTP/1.1 200 OK', 'Transfer-Encoding: gzip\r, chunked')).toEqual({ ...NONE, chunked: true });
  });

  it('rewrites the facts it is given: nothing of the last head stays', () => {
    const shared = newHeadFacts();
    const first = Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\n');
    readHead(first, 0, first.indexOf('\r\n\r\n'), shared);
    const second = Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
    expect({ ...readHead(second, 0, second.indexOf('\r\n\r\n'), shared) }).toEqual({ ...NONE, chunked: true });
  });
});
