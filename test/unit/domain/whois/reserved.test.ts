import { domainToASCII } from 'node:url';
import { describe, expect, it } from 'vitest';
import { registrableDomain } from '../../../../domain/whois/registrable.ts';
import { reservedReason } from '../../../../domain/whois/reserved.ts';

describe('reservation rules', () => {
  const reason = (name: string) => reservedReason(registrableDomain(name));
  it('applies RFC 6761 and Specification 5 as documented', () => {
    expect(reason('foo.localhost')).toMatch(/RFC 6761/);
    expect(reason('example.org')).toMatch(/RFC 6761/);
    expect(reason('example.shop')).toMatch(/§1/);
    expect(reason('ab.shop')).toMatch(/§2/);
    expect(reason('whois.shop')).toMatch(/§3\.1/);
    expect(reason('olympic.shop')).toMatch(/§5/);
    // Country names, some lists in U-labels, looked up by their A-label.
    expect(reason('germany.shop')).toMatch(/§4/);
    expect(reason(`${domainToASCII('españa')}.shop`)).toMatch(/§4/);
    expect(reason('ab.de')).toBeNull(); // a country-code TLD
    expect(reason('ab.com')).toBeNull(); // .com predates Specification 5
    expect(reason('ab.co.uk')).toBeNull(); // a second-level suffix
    expect(reason('abc.shop')).toBeNull();
  });
});
