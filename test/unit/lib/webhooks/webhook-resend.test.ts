// A capture sent again: its URL below the target, its headers without those of the connection, any
// name a sender used kept as data.
import { describe, expect, it } from 'vitest';
import { appendedUrl, resentHeaders, resentRequest, sentTarget } from '../../../../lib/webhooks/webhook-resend.ts';

describe('sending a capture again', () => {
  it('appends the path and the query to the target, after its own', () => {
    expect(appendedUrl(new URL('https://t.example/hooks/'), '/orders', 'a=1')).toBe(
      'https://t.example/hooks/orders?a=1',
    );
    expect(appendedUrl(new URL('https://t.example/hooks?k=v'), '/orders', 'a=1')).toBe(
      'https://t.example/hooks/orders?k=v&a=1',
    );
    expect(appendedUrl(new URL('https://t.example/'), '', '')).toBe('https://t.example');
  });

  it('sends the query as it was sent, nothing re-encoded; rebuilt from its pairs only where it was not kept', () => {
    const capture = {
      method: 'POST',
      path: '/webhook/w1/orders',
      headers: {},
      body: null,
      bodyEncoding: 'utf8' as const,
      queryParams: JSON.stringify({ q: ' space', empty: '', b: ['2', '1'], a: '1', v: '"1"' }),
    };
    const sent = `q=%20space&empty=&b=2&a=1&b=1&v="1"&w=<x>`;
    const { url } = resentRequest({ ...capture, queryString: sent }, 'w1', 'http://localhost:4000/hooks');
    expect(url).toBe(`http://localhost:4000/hooks/orders?${sent}`);
    // The request target as spelled (a URL parser would send %22, %3C, %3E).
    expect(sentTarget(url)).toBe(`/hooks/orders?${sent}`);
    expect(new URL(url).search).not.toBe(`?${sent}`);
    expect(sentTarget('http://localhost:4000?a=1')).toBe('/?a=1');
    expect(resentRequest(capture, 'w1', 'http://localhost:4000/hooks').url).toBe(
      'http://localhost:4000/hooks/orders?q=+space&empty=&b=2&b=1&a=1&v=%221%22',
    );
  });

  it('never climbs out of the target path, whatever a stored capture holds, raw or percent-encoded', () => {
    const hooks = new URL('http://localhost:4000/webhooks');
    for (const below of [
      '/../../admin/delete',
      '/%2e%2e/%2E%2E/admin/delete',
      '/.%2e/..;/admin/delete',
      '/a\\..\\..\\admin/delete',
    ]) {
      const url = appendedUrl(hooks, below, '');
      expect(url, below).toBe('http://localhost:4000/webhooks/admin/delete');
      // As a client would send it: a URL parser resolves nothing further.
      expect(new URL(url).pathname, below).toBe('/webhooks/admin/delete');
    }
    // An encoded slash stays inside its segment, spelled so that no server decodes it into a separator.
    expect(new URL(appendedUrl(hooks, '/x/..%2f..%2fadmin', '')).pathname).toBe('/webhooks/x/..%252f..%252fadmin');
    // Dots that are not a whole segment are data, left as sent.
    expect(appendedUrl(hooks, '/v1.2/..x/a..', 'q=1')).toBe('http://localhost:4000/webhooks/v1.2/..x/a..?q=1');
  });

  it('drops the connection headers and the pseudo-headers, joins repeats, keeps any name as data', () => {
    const headers = resentHeaders([
      [':authority', 'x.example'],
      ['Host', 'x.example'],
      ['Connection', 'keep-alive'],
      ['Content-Length', '3'],
      ['Accept', 'a'],
      ['accept', 'b'],
      ['Cookie', 'a=1'],
      ['cookie', 'b=2'],
      ['__proto__', 'p'],
      ['constructor', 'c'],
    ]);
    expect(Object.entries(headers)).toEqual([
      ['accept', 'a, b'],
      ['cookie', 'a=1; b=2'],
      ['__proto__', 'p'],
      ['constructor', 'c'],
    ]);
    expect(Object.getPrototypeOf(headers)).toBe(null);
  });
});
