import { describe, expect, it } from 'vitest';
import { bareHost } from '../../../../lib/net/bare-host.ts';

describe('bareHost', () => {
  it.each([
    [new URL('http://[::1]:8080/x'), '::1'],
    [new URL('https://[::ffff:7f00:1]/'), '::ffff:7f00:1'],
    [new URL('http://127.0.0.1:9/'), '127.0.0.1'],
    [new URL('https://Example.COM/'), 'example.com'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['whois.example', 'whois.example'],
  ])('%s → %s', (input, expected) => {
    expect(bareHost(input)).toBe(expected);
  });
});
