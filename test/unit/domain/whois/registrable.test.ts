import { describe, expect, it } from 'vitest';
import { registrableDomain } from '../../../../domain/whois/registrable.ts';

describe('registrable domains', () => {
  it('finds the name under its public suffix, in ASCII', () => {
    expect(registrableDomain('www.Example.co.uk.')).toEqual({
      domain: 'example.co.uk',
      suffix: 'co.uk',
      tld: 'uk',
      label: 'example',
    });
    expect(registrableDomain('bücher.de')).toEqual({
      domain: 'xn--bcher-kva.de',
      suffix: 'de',
      tld: 'de',
      label: 'xn--bcher-kva',
    });
    expect(registrableDomain('a.b.foo.test')).toMatchObject({ domain: 'foo.test', tld: 'test' });
  });

  it('refuses a bare suffix and a name under no public suffix, naming the field', () => {
    expect(() => registrableDomain('co.uk', 'domains')).toThrow(/domains "co\.uk" is a public suffix/);
    expect(() => registrableDomain('example.nosuchtld')).toThrow(/not under a known public suffix/);
  });
});
