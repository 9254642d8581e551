// The SSRF guard's address classification on its own: no packet is sent, addresses are only judged.
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createAddressPolicy } from '../../../../lib/net/address-policy.ts';
import { SPECIAL_IPV4 } from '../../../../lib/net/special-addresses.ts';
import { IPV4_EMBEDDINGS } from '../../../../lib/net/special-addresses-embeddings.ts';
import { SPECIAL_IPV6 } from '../../../../lib/net/special-addresses-ipv6.ts';

const REFUSED = /private, loopback, link-local or reserved/;

// Address arithmetic for the table test, written apart from the policy's own parser.
const v4 = (text: string) => text.split('.').reduce((n, octet) => (n << 8n) | BigInt(octet), 0n);
const v4Text = (n: bigint) => [24n, 16n, 8n, 0n].map((s) => (n >> s) & 255n).join('.');
function v6(text: string): bigint {
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  expect(groups, text).toHaveLength(8);
  return groups.reduce((n, g) => (n << 16n) | BigInt(`0x${g}`), 0n);
}
const v6Text = (n: bigint) =>
  Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');

/** First and last address of a CIDR, and whether the CIDR has host bits set (a typo in the table). */
function bounds(cidr: string): { first: string; last: string; aligned: boolean } {
  const [address = '', prefixText = ''] = cidr.split('/');
  const family = isIP(address);
  const bits = family === 4 ? 32n : 128n;
  const n = family === 4 ? v4(address) : v6(address);
  const hostMask = (1n << (bits - BigInt(prefixText))) - 1n;
  const text = family === 4 ? v4Text : v6Text;
  return { first: text(n & ~hostMask), last: text(n | hostMask), aligned: (n & hostMask) === 0n };
}

describe('address policy', () => {
  const policy = createAddressPolicy();

  it.each([
    '0.0.0.0',
    '10.0.0.1',
    '10.255.255.255',
    '100.64.0.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.168.1.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '64:ff9b::a00:1',
    '2001::1',
    '2001:db8::1',
    '2002:a00:1::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fec0::1',
    'ff02::1',
  ])('refuses %s', (address) => {
    expect(policy.refusal(address)).toMatch(REFUSED);
  });

  // Issue 17, item 7: each of these was let through before.
  it.each([
    ['::ffff:0:7f00:1', /IPv4-translated Address 127\.0\.0\.1: Loopback/],
    ['::ffff:0:a9fe:a9fe', /IPv4-translated Address 169\.254\.169\.254: Link Local/],
    ['3fff::1', /Documentation, RFC 9637/],
    ['5f00::1', /Segment Routing \(SRv6\) SIDs, RFC 9602/],
  ])('refuses %s (issue 17)', (address, why) => {
    const refusal = policy.refusal(address);
    expect(refusal).toMatch(
      new RegExp(`^${address.replaceAll('.', '\\.')} is a private, loopback, link-local or reserved address \\(`),
    );
    expect(refusal).toMatch(why);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '93.184.215.14',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '100.63.255.255',
    '192.0.1.1',
    '192.88.98.255',
    '198.17.255.255',
    '198.20.0.0',
    '2606:4700:4700::1111',
    '2a00:1450:4001::1',
    '2001:200::1',
    '2001:db9::1',
    '2003::1',
    '3ffe::1',
    '3fff:1000::1',
  ])('allows public %s', (address) => {
    expect(policy.refusal(address)).toBeNull();
  });

  describe('the registry table', () => {
    const rows = [...SPECIAL_IPV4, ...SPECIAL_IPV6, ...IPV4_EMBEDDINGS];

    it('has well-formed, distinct blocks with a name and an RFC each', () => {
      expect(new Set(rows.map((row) => row.cidr)).size).toBe(rows.length);
      for (const row of rows) {
        expect(bounds(row.cidr).aligned, row.cidr).toBe(true);
        expect(row.name, row.cidr).not.toBe('');
        // A cloud platform's endpoint is documented by its vendor, not by an RFC.
        expect(row.rfc, row.cidr).toMatch(row.source === 'cloud' ? /^https:\/\// : /^RFC \d+/);
        // Refused although the registry does not say "not globally reachable": the table says why.
        const judgedByIpv4 = 'followsEmbedded' in row && row.followsEmbedded;
        if (row.globallyReachable !== false && !judgedByIpv4) expect(row.why, row.cidr).toBeTruthy();
      }
    });

    // The embedding forms are here too: their first and last addresses carry 0.0.0.0 and
    // 255.255.255.255 (or, for Teredo, a 0.0.0.0 server), which are refused whatever the form.
    it.each(
      rows.flatMap((row) =>
        Object.entries(bounds(row.cidr))
          .filter(([edge]) => edge !== 'aligned')
          .map(([edge, address]) => [row.cidr, edge, address as string]),
      ),
    )('%s: refuses its %s address %s', (_cidr, _edge, address) => {
      expect(policy.refusal(address)).toMatch(REFUSED);
    });

    it("refuses a cloud platform's host endpoint on a public address, in every form that carries it", () => {
      for (const address of ['168.63.129.16', '::ffff:168.63.129.16', '64:ff9b::a83f:8110'])
        expect(policy.refusal(address), address).toMatch(/Azure WireServer/);
      expect(policy.refusal('168.63.129.17')).toBeNull();
    });

    it('names the most specific block', () => {
      expect(policy.refusal('192.0.0.8')).toMatch(/\(IPv4 dummy address, RFC 7600\)$/);
      expect(policy.refusal('192.0.0.200')).toMatch(/\(IETF Protocol Assignments, RFC 6890 §2\.1\)$/);
      expect(policy.refusal('2001:1::3')).toMatch(/DNS-SD Service Registration Protocol Anycast/);
      expect(policy.refusal('::1')).toMatch(/\(Loopback Address, RFC 4291\)$/);
      expect(policy.refusal('100:0:0:1::1')).toMatch(/Dummy IPv6 Prefix/);
      expect(policy.refusal('4000::1')).toMatch(/Reserved by IETF/);
    });
  });

  describe('IPv6 forms that carry an IPv4 address', () => {
    const hex = (ipv4: string, xor = 0n) => {
      const n = v4(ipv4) ^ xor;
      return `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
    };
    // [form, spelling of it around an IPv4 address, public IPv4 inside let through, refusal names the IPv4 address]
    const forms: Array<[string, (ipv4: string) => string, boolean, boolean]> = [
      ['IPv4-mapped ::ffff:0:0/96, dotted', (a) => `::ffff:${a}`, true, true],
      ['IPv4-mapped ::ffff:0:0/96, hex', (a) => `::ffff:${hex(a)}`, true, true],
      ['IPv4-mapped ::ffff:0:0/96, written out', (a) => `0:0:0:0:0:FFFF:${hex(a)}`, true, true],
      ['NAT64 well-known prefix 64:ff9b::/96', (a) => `64:ff9b::${hex(a)}`, true, true],
      ['IPv4-translated ::ffff:0:0:0/96', (a) => `::ffff:0:${a}`, false, true],
      ['IPv4-compatible ::/96 (deprecated)', (a) => `::${hex(a)}`, false, true],
      ['6to4 2002::/16', (a) => `2002:${hex(a)}::1`, false, true],
      [
        'Teredo 2001::/32, client (server 65.54.227.120)',
        (a) => `2001:0:4136:e378:8000:63bf:${hex(a, 0xffffffffn)}`,
        false,
        true,
      ],
      ['Teredo 2001::/32, server (client 8.8.8.8)', (a) => `2001:0:${hex(a)}:8000:63bf:f7f7:f7f7`, false, true],
      ['local-use NAT64 64:ff9b:1::/48, /96 layout', (a) => `64:ff9b:1::${hex(a)}`, false, false],
      // RFC 6052 §2.2 with a /48 prefix: 16 bits of IPv4, the zero u octet, the other 16 bits.
      [
        'local-use NAT64 64:ff9b:1::/48, /48 layout',
        (a) => {
          const [high, low] = [(v4(a) >> 16n).toString(16), ((v4(a) >> 8n) & 0xffn).toString(16)];
          return `64:ff9b:1:${high}:${low}:${((v4(a) & 0xffn) << 8n).toString(16)}::`;
        },
        false,
        false,
      ],
    ];

    describe.each(forms)('%s', (_form, wrap, followsEmbedded, namesEmbedded) => {
      it.each(['127.0.0.1', '10.0.0.1', '169.254.169.254'])('refuses it around %s', (ipv4) => {
        const refusal = policy.refusal(wrap(ipv4));
        expect(refusal, wrap(ipv4)).toMatch(REFUSED);
        if (namesEmbedded) expect(refusal, wrap(ipv4)).toContain(`${ipv4}:`);
      });

      it(`${followsEmbedded ? 'allows' : 'refuses'} it around the public 8.8.8.8`, () => {
        const address = wrap('8.8.8.8');
        if (followsEmbedded) expect(policy.refusal(address), address).toBeNull();
        else expect(policy.refusal(address), address).toMatch(REFUSED);
      });
    });

    it('decodes Teredo as RFC 4380 §4 does', () => {
      expect(policy.refusal('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toMatch(
        /TEREDO client 192\.0\.2\.45: Documentation \(TEST-NET-1\)/,
      );
      expect(policy.refusal('2001:0:4136:e378:8000:63bf:f7f7:f7f7')).toMatch(
        /refused whatever it carries \(server 65\.54\.227\.120, client 8\.8\.8\.8\)/,
      );
    });
  });

  it('lets NETWORK_ALLOW open exactly the ranges it names, as written', () => {
    const allowing = createAddressPolicy(['127.0.0.0/8', '::1/128']);
    expect(allowing.refusal('127.0.0.1')).toBeNull();
    expect(allowing.refusal('::1')).toBeNull();
    expect(allowing.refusal('10.0.0.1')).not.toBeNull();
    expect(allowing.refusal('::ffff:127.0.0.1')).not.toBeNull();
    expect(allowing.refusal('64:ff9b::7f00:1')).not.toBeNull();

    const mapped = createAddressPolicy(['::ffff:127.0.0.0/104', '3fff::/20', '64:ff9b:1::/48']);
    expect(mapped.refusal('::ffff:127.0.0.1')).toBeNull();
    expect(mapped.refusal('::ffff:10.0.0.1')).not.toBeNull();
    expect(mapped.refusal('127.0.0.1')).not.toBeNull();
    expect(mapped.refusal('3fff::1')).toBeNull();
    expect(mapped.refusal('64:ff9b:1::a00:1')).toBeNull();
  });

  it('says an address is exempt only when NETWORK_ALLOW names it, public or not', () => {
    const allowing = createAddressPolicy(['127.0.0.0/8', '8.8.8.0/24']);
    expect(allowing.exempt('127.0.0.1')).toBe(true);
    expect(allowing.exempt('8.8.8.8')).toBe(true);
    expect(allowing.exempt('8.8.4.4')).toBe(false);
    expect(allowing.exempt('::1')).toBe(false);
    expect(allowing.exempt('example.com')).toBe(false);
    expect(policy.exempt('8.8.8.8')).toBe(false);
  });

  it('judges an IPv6 address with a zone by the address', () => {
    expect(policy.refusal('fe80::1%eth0')).toMatch(/Link-Local Unicast/);
    expect(policy.refusal('::ffff:127.0.0.1%1')).toMatch(/127\.0\.0\.1: Loopback/);
  });

  it('refuses what is not an IP address', () => {
    expect(policy.refusal('example.com')).toMatch(/not an IP address/);
  });
});
