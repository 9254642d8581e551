// A capture sent again: its URL below the target, its headers without those of the connection, any
// name a sender used kept as data.
import { describe, expect, it } from 'vitest';
import { appendedUrl, resentHeaders } from '../../../lib/webhook-resend.ts';

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
