// A load test's HTTP/1.1 request as written: its head line by line, and never a line a header's name,
// value or the method would add of its own (another host, a second request).
import { describe, expect, it } from 'vitest';
import { requestBytes } from '../../../../../domain/load/http/request.ts';

const url = new URL('http://target.example:8080/a?b=1');

describe("a load test's HTTP/1.1 request", () => {
  it('writes the request line, the host, the headers and the body’s length', () => {
    expect(
      requestBytes({ url, method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' }).toString(),
    ).toBe(
      'POST /a?b=1 HTTP/1.1\r\nhost: target.example:8080\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nhi',
    );
  });

  it.each([
    ['a value', { method: 'GET', headers: { 'content-type': 'text/plain\r\nhost: other.example' } }],
    ['a name', { method: 'GET', headers: { 'x-a\r\nhost': 'other.example' } }],
    ['a NUL', { method: 'GET', headers: { 'x-a': 'b\0' } }],
    ['the method', { method: 'GET / HTTP/1.1\r\nhost: other.example\r\n\r\nGET', headers: {} }],
  ])('refuses %s holding a line break or NUL', (_, spec) => {
    expect(() => requestBytes({ url, ...spec })).toThrow(/holds a line break or NUL/);
  });
});
